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

func toggler(expected: InvalidationCounts? = nil, configure: @escaping @Sendable (Toggler) -> Void = { _ in })
    -> Benchmark
{
    var counts: (@Sendable (Parameters) -> InvalidationCounts?)?
    if let expected { counts = { _ in expected } }
    return Benchmark(family: "test/toggle", contender: "lockfree", expectedCounts: counts) { _ in
        let t = Toggler()
        configure(t)
        return t
    }
}

@Suite struct MeasurerTests {
    let plan = TimingPlan(budgetNanoseconds: 20_000_000, maxSamples: 20, targetSampleNanoseconds: 20_000)

    /// A clock whose every reading is 1 ms after the one before: a batch of one operation "takes"
    /// 1 ms (over the 20 µs target), and sampling spends 3 ms a sample (two readings to time it,
    /// one to look at the budget).
    final class Ticking: @unchecked Sendable {
        var now: UInt64 = 0
        func read() -> UInt64 {
            now += 1_000_000
            return now
        }
    }

    @Test func timingPassSamplesUntilTheBudget() {
        let clock = Ticking()
        let report = Measurer.timingPass(toggler(), Parameters(), plan: plan, clock: clock.read)
        #expect(report.failure == nil)
        let time = report.metrics.first { $0.metric == .time }
        // 7 samples: the budget (20 ms) is spent at the seventh (21 ms), past the 5 at least.
        #expect(time?.samples == Array(repeating: 1_000_000, count: 7))
        #expect(report.batch == 1)
        #expect(report.metrics.map(\.name) == ["time", "setup-time"])
        #expect(report.metrics.last?.summary.p50 == 1_000_000)
    }

    @Test func timingPassStopsAtTheCapAndAtFourTimesTheBudget() {
        let capped = TimingPlan(budgetNanoseconds: 20_000_000, maxSamples: 4, targetSampleNanoseconds: 20_000)
        let few = Measurer.timingPass(toggler(), Parameters(), plan: capped, clock: Ticking().read)
        #expect(few.metrics.first { $0.metric == .time }?.samples?.count == 4)
        // 50 samples wanted, but sampling gives up at 4 x 20 ms: the 27th sample (81 ms).
        let wanting = TimingPlan(
            budgetNanoseconds: 20_000_000, maxSamples: 100, minSamples: 50, targetSampleNanoseconds: 20_000)
        let most = Measurer.timingPass(toggler(), Parameters(), plan: wanting, clock: Ticking().read)
        #expect(most.metrics.first { $0.metric == .time }?.samples?.count == 27)
    }

    /// On the real clock, the pass measures something: one sample at least, and a positive time.
    @Test func timingPassOnTheMonotonicClock() {
        let report = Measurer.timingPass(toggler(), Parameters(), plan: plan)
        #expect(report.failure == nil)
        let time = report.metrics.first { $0.metric == .time }
        #expect((1...20).contains(time?.samples?.count ?? 0))
        #expect(time?.summary.p50 ?? 0 > 0)
    }

    @Test func countingPassReportsPerOperation() {
        let report = Measurer.countingPass(
            toggler(expected: InvalidationCounts(notifications: 1, invalidations: 1)), Parameters(), operations: 100)
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
        let report = Measurer.countingPass(
            toggler(expected: InvalidationCounts(notifications: 2, invalidations: 1)), Parameters(), operations: 10)
        #expect(
            report.failure
                == "counts over 10 operations differ from expected: measured notifications 10, invalidations 10, evaluations 0, unnecessary 0, missed 0; expected notifications 20, invalidations 10, evaluations 0, unnecessary 0, missed 0"
        )
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
