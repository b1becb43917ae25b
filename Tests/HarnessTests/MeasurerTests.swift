import Testing
@testable import Harness

/// Counts like a view graph would: per operation one notification and one invalidation, and an
/// allocation of a class instance.
final class Toggler: BenchmarkInstance {
    final class Row { var on = false }
    var c = InvalidationCounts()
    var missAt: Int?
    var throwing = false
    var kept: [Row] = []
    func run(operations: Int) throws -> Int {
        if throwing { throw BenchmarkFailure("oracle: row 3 is stale") }
        for _ in 0..<operations {
            c.notifications += 1
            c.invalidations += 1
            let row = Row()
            row.on.toggle()
            blackHole(row)
            if let m = missAt, c.notifications >= m { c.missed += 1 }
        }
        return c.notifications
    }
    var counts: InvalidationCounts { c }
    var extraMetrics: [String: Double] { ["sum": 16, "count": 5] }
}

func toggler(expected: InvalidationCounts? = nil, configure: @escaping @Sendable (Toggler) -> Void = { _ in }) -> Benchmark {
    var counts: (@Sendable (Parameters) -> InvalidationCounts?)?
    if let expected { counts = { _ in expected } }
    return Benchmark(family: "test/toggle", contender: "lockfree", expectedCounts: counts) { _ in
        let t = Toggler()
        configure(t)
        return t
    }
}

@Suite struct MeasurerTests {
    // A budget generous enough that 5 samples fit on a loaded machine (sampling stops at 4x it).
    let plan = TimingPlan(budgetNanoseconds: 20_000_000, maxSamples: 20, targetSampleNanoseconds: 20_000)

    @Test func timingPassSamplesWithinCap() {
        let report = Measurer.timingPass(toggler(), Parameters(), plan: plan)
        #expect(report.failure == nil)
        let time = report.metrics.first { $0.name == "time" }
        #expect(time?.samples?.count ?? 0 >= 5)
        #expect(time?.samples?.count ?? 99 <= 20)
        #expect(time?.summary.p50 ?? 0 > 0)
        #expect(report.batch >= 1)
        #expect(report.metrics.map(\.name) == ["time", "setup-time"])
    }

    @Test func countingPassReportsPerOperation() {
        let report = Measurer.countingPass(toggler(expected: InvalidationCounts(notifications: 1, invalidations: 1)), Parameters(), operations: 100)
        #expect(report.failure == nil)
        let value = { (name: String) in report.metrics.first { $0.name == name }?.summary.p50 }
        #expect(value("notifications") == 1)
        #expect(value("invalidations") == 1)
        #expect(value("evaluations") == 0)
        #expect(value("missed") == 0)
        #expect(value("sum") == 16)
        #expect(value("count") == 5)
        #if Jemalloc
        #expect(value("mallocs") ?? 0 >= 1)
        #expect(value("retained-bytes") != nil)
        #else
        #expect(value("mallocs") == nil)
        #endif
    }

    @Test func expectedCountMismatchFails() {
        let report = Measurer.countingPass(toggler(expected: InvalidationCounts(notifications: 2, invalidations: 1)), Parameters(), operations: 10)
        #expect(report.failure == "counts over 10 operations differ from expected: measured notifications 10, invalidations 10, evaluations 0, unnecessary 0, missed 0; expected notifications 20, invalidations 10, evaluations 0, unnecessary 0, missed 0")
    }

    @Test func missedUpdateFails() {
        let report = Measurer.countingPass(toggler(configure: { $0.missAt = 15 }), Parameters(), operations: 10)
        #expect(report.failure == "16 missed update(s)")  // operations 15...30 of warm-up, counted and verified runs
    }

    @Test func thrownFailureIsReported() {
        let timing = Measurer.timingPass(toggler(configure: { $0.throwing = true }), Parameters(), plan: plan)
        #expect(timing.failure == "oracle: row 3 is stale")
        let counting = Measurer.countingPass(toggler(configure: { $0.throwing = true }), Parameters(), operations: 1)
        #expect(counting.failure == "oracle: row 3 is stale")
    }

    @Test func planSharesTheBudget() {
        #expect(RunMode.quick.timingPlan(runs: 600).budgetNanoseconds == 100_000_000)  // 60 s / 600
        #expect(RunMode.quick.timingPlan(runs: 10).budgetNanoseconds == 500_000_000)  // capped
        #expect(RunMode.standard.timingPlan(runs: 10_000).budgetNanoseconds == 100_000_000)  // floor
        #expect(RunMode.quick.timingPlan(runs: 1, maxSamples: 7).maxSamples == 7)
    }
}
