import Foundation
import Testing

@testable import Harness

@Suite struct GateTests {
    let thresholds = Thresholds(mallocTolerance: 0.5, timeRatioTolerance: 1.35)

    @Test func passesWithinTolerance() {
        let verdict = Gate.evaluate(
            baseline: sampleSet(), current: sampleSet(lockfreeTime: [11, 12, 13, 14, 15, 16, 17], mallocs: 1.4),
            thresholds: thresholds)
        #expect(verdict.findings == [])
        #expect(verdict.exitCode == .success)
    }

    @Test func moreInvalidationsIsARegression() {
        let verdict = Gate.evaluate(baseline: sampleSet(), current: sampleSet(invalidations: 3), thresholds: thresholds)
        #expect(verdict.regressions.count == 2)  // both contenders
        #expect(verdict.regressions.first?.metric == "invalidations")
        #expect(verdict.exitCode == .regression)
    }

    @Test func changedExtraValueIsARegression() {
        func withSum(_ sum: Double) -> ResultSet {
            var set = sampleSet()
            set.results[0].metrics.append(MetricResult(name: "sum", unit: "value", value: sum))
            return set
        }
        #expect(Gate.evaluate(baseline: withSum(16), current: withSum(16), thresholds: thresholds).exitCode == .success)
        let verdict = Gate.evaluate(baseline: withSum(16), current: withSum(15), thresholds: thresholds)
        #expect(verdict.regressions.map(\.metric) == ["sum"])
        #expect(verdict.exitCode == .regression)
    }

    @Test func mallocsBeyondToleranceRegress() {
        let verdict = Gate.evaluate(baseline: sampleSet(), current: sampleSet(mallocs: 1.6), thresholds: thresholds)
        #expect(verdict.regressions.map(\.metric) == ["mallocs", "mallocs"])
        #expect(verdict.exitCode == .regression)
        let custom = Thresholds(mallocTolerances: ["books/toggle/n=10": 1])
        #expect(
            Gate.evaluate(baseline: sampleSet(), current: sampleSet(mallocs: 1.6), thresholds: custom).exitCode
                == .success)
    }

    @Test func timeIsGatedAsRatio() {
        // Baseline ratio 13/23 = 0.565; doubling both contenders keeps it: pass.
        let both = sampleSet(lockfreeTime: [20, 22, 24, 26, 28, 30, 32], appleTime: [40, 42, 44, 46, 48, 50, 52])
        #expect(Gate.evaluate(baseline: sampleSet(), current: both, thresholds: thresholds).exitCode == .success)
        // 20/23 = 0.87 > 0.565 * 1.35 = 0.763: regression, and a suspect to re-measure.
        let slower = sampleSet(lockfreeTime: [17, 18, 19, 20, 21, 22, 23])
        let verdict = Gate.evaluate(baseline: sampleSet(), current: slower, thresholds: thresholds)
        #expect(verdict.exitCode == .regression)
        #expect(verdict.timeSuspects == ["books/toggle/n=10"])
    }

    @Test func onlyImprovements() {
        let better = sampleSet(lockfreeTime: [5, 6, 7, 8, 9, 10, 11], invalidations: 1, mallocs: 0)
        let verdict = Gate.evaluate(baseline: sampleSet(), current: better, thresholds: thresholds)
        #expect(verdict.regressions == [])
        #expect(Set(verdict.improvements.map(\.metric)) == ["invalidations", "mallocs", "time ratio"])
        #expect(verdict.exitCode == .improvementOnly)
    }

    @Test func failureDominates() {
        let verdict = Gate.evaluate(
            baseline: sampleSet(), current: sampleSet(invalidations: 3, failure: "missed"), thresholds: thresholds)
        #expect(verdict.failures == ["books/toggle/n=10 on lockfree"])
        #expect(verdict.exitCode == .benchmarkFailed)
    }

    /// `sampleSet` with instruction counts per operation for lockfree and apple.
    func withInstructions(_ set: ResultSet = sampleSet(), lockfree: Double, apple: Double) -> ResultSet {
        var set = set
        for i in set.results.indices {
            let value = set.results[i].contender == "lockfree" ? lockfree : apple
            set.results[i].metrics.append(MetricResult(name: "instructions", unit: "instructions", value: value))
        }
        return set
    }

    @Test func lockfreeInstructionsReplaceTheTimeRatio() {
        let baseline = withInstructions(lockfree: 100, apple: 1000)
        // apple's count moving by half (its key-path dictionary's collisions depend on where type
        // metadata landed in the process) and wall-clock noise: neither is gated.
        let noisy = withInstructions(sampleSet(lockfreeTime: [40, 41, 42, 43, 44, 45, 46]), lockfree: 105, apple: 1500)
        #expect(Gate.evaluate(baseline: baseline, current: noisy, thresholds: thresholds).findings == [])
        // lockfree 20% more instructions: beyond the default 1.1, whatever apple counts.
        let slower = withInstructions(lockfree: 120, apple: 2000)
        let verdict = Gate.evaluate(baseline: baseline, current: slower, thresholds: thresholds)
        #expect(verdict.regressions.map(\.metric) == ["instructions"])
        #expect(verdict.regressions.map(\.contender) == ["lockfree"])
        #expect(verdict.regressions.first?.old == 100)
        #expect(verdict.regressions.first?.new == 120)
        #expect(verdict.timeSuspects == [])  // counts are not re-measured
        #expect(verdict.exitCode == .regression)
        let loose = Thresholds(instructionTolerances: ["books/toggle/n=10": 1.25])
        #expect(Gate.evaluate(baseline: baseline, current: slower, thresholds: loose).exitCode == .success)
        let better = withInstructions(lockfree: 80, apple: 1000)
        #expect(
            Gate.evaluate(baseline: baseline, current: better, thresholds: thresholds).improvements.map(\.metric)
                == ["instructions"])
        // Without counts on one side the time ratio is gated as before.
        #expect(Gate.evaluate(baseline: sampleSet(), current: slower, thresholds: thresholds).findings == [])
    }

    @Test func callgrindDumpsAreRead() {
        let dump = """
            # callgrind format
            version: 1
            creator: callgrind-3.19.0
            desc: Timerange: Basic block 0 - 3533802
            desc: Trigger: Client Request: bench region 12
            events: Ir
            summary: 23078
            fn=(1) main
            3 5
            totals: 23078
            """
        #expect(InstructionCounter.total(ofDump: dump) == 23078)
        #expect(InstructionCounter.region(ofDump: dump) == 12)
        #expect(InstructionCounter.region(ofDump: "desc: Trigger: Program termination\ntotals: 0") == nil)
        #expect(InstructionCounter.total(ofDump: "events: Ir\n") == nil)
        #expect(InstructionCounter.regionName(12) == "bench region 12")
    }

    @Test func baselineProblemsHaveOneLineReasons() throws {
        let root = temporaryFolder()
        #expect(throws: BaselineError("baseline '\(root)/none.json' does not exist")) {
            try Baseline.load(root + "/none.json")
        }
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: root + "/bad.json"))
        #expect(throws: BaselineError.self) { try Baseline.load(root + "/bad.json") }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: root + "/empty.json"))
        #expect(
            throws: BaselineError("baseline '\(root)/empty.json' is not a results.json: missing key 'schemaVersion'")
        ) {
            try Baseline.load(root + "/empty.json")
        }
        #expect(throws: BaselineError("baseline was measured with Swift 6.3.1, this is Swift 6.4")) {
            try Baseline.checkComparable(sampleSet(), toolchain: "6.4", allocator: "jemalloc 5.3.0")
        }
        #expect(throws: BaselineError("baseline was measured with jemalloc 5.3.0, this build uses system malloc")) {
            try Baseline.checkComparable(sampleSet(), toolchain: "6.3.1", allocator: "system malloc")
        }
        var injected = sampleSet()
        injected.metadata.faultInjections = ["BENCH_SELFCHECK_EXTRA_ALLOCATION"]
        #expect(
            throws: BaselineError(
                "baseline was measured by a build with injected faults (BENCH_SELFCHECK_EXTRA_ALLOCATION), not a real measurement"
            )
        ) {
            try Baseline.checkComparable(injected, toolchain: "6.3.1", allocator: "jemalloc 5.3.0")
        }
        injected.metadata.faultInjections = []
        try Baseline.checkComparable(injected, toolchain: "6.3.1", allocator: "jemalloc 5.3.0")
        #expect(Baseline.path(for: "main") == "results/baselines/main.json")
        #expect(Baseline.path(for: "x/y.json") == "x/y.json")
    }

    @Test func nondeterministicCountsAreNotGatedExactly() {
        let t = Thresholds(nondeterministicCounts: ["books/threads/"])
        #expect(t.countsAreNondeterministic("books/threads/n=100/threads=2", contender: "apple"))
        #expect(!t.countsAreNondeterministic("books/toggle-available/n=100", contender: "apple"))
        #expect(Thresholds(timeRatioTolerance: 2, timeRatioTolerances: ["a": 5]).timeRatioTolerance(for: "a") == 5)
        #expect(Thresholds(timeRatioTolerance: 2, timeRatioTolerances: ["a": 5]).timeRatioTolerance(for: "b") == 2)
    }

    /// What a benchmark declares of its threads reaches the gate, for that benchmark and
    /// contender only: counts that vary are not gated, and mallocs get the declared tolerance.
    @Test func declaredThreadTimingIsGatedAsDeclared() {
        func run(_ contender: String, _ timing: ThreadTiming) -> PlannedRun {
            let benchmark = Benchmark(
                family: "books/toggle", contender: contender, parameterKinds: ["n": .integer(1...100)]
            ) { _ in
                Toggler()
            }.onThreads { params in params.int("n", default: 0) == 10 ? timing : .oneThread }
            return PlannedRun(benchmark: benchmark, parameters: Parameters([("n", "10")]))
        }
        let changed = sampleSet(invalidations: 3, mallocs: 40)
        let undeclared = Gate.evaluate(baseline: sampleSet(), current: changed, thresholds: Thresholds())
        #expect(
            undeclared.regressions.map(\.metric).sorted() == ["invalidations", "invalidations", "mallocs", "mallocs"])

        let varying = Thresholds().declaring([
            run("lockfree", .timingDependent(countsVary: true, mallocTolerance: 64)), run("apple", .exactOnThreads),
        ])
        let verdict = Gate.evaluate(baseline: sampleSet(), current: changed, thresholds: varying)
        #expect(
            verdict.regressions.map { "\($0.contender) \($0.metric)" }.sorted() == [
                "apple invalidations", "apple mallocs",
            ])
        #expect(varying.mallocTolerance(for: "books/toggle/n=10", contender: "lockfree") == 64)
        #expect(varying.mallocTolerance(for: "books/toggle/n=20", contender: "lockfree") == 0.5)

        // A declared time ratio tolerance: `.infinity` leaves the ratio ungated; the file's
        // applies elsewhere.
        let slower = sampleSet(lockfreeTime: [100, 110, 120, 130, 140, 150, 160])
        #expect(
            Gate.evaluate(baseline: sampleSet(), current: slower, thresholds: Thresholds(timeRatioTolerance: 2))
                .regressions.map(\.metric) == [Gate.timeRatio])
        let wakeUp = Thresholds(timeRatioTolerance: 2).declaring([
            run("lockfree", .timingDependent(countsVary: false, mallocTolerance: 1, timeRatioTolerance: .infinity))
        ])
        #expect(Gate.evaluate(baseline: sampleSet(), current: slower, thresholds: wakeUp).regressions.isEmpty)
        #expect(wakeUp.timeRatioTolerance(for: "books/toggle/n=10") == .infinity)
        #expect(wakeUp.timeRatioTolerance(for: "books/toggle/n=100") == 2)

        let unbounded = Thresholds().declaring([
            run("lockfree", .timingDependent(countsVary: false, mallocTolerance: .infinity))
        ])
        let exactCounts = Gate.evaluate(baseline: sampleSet(), current: changed, thresholds: unbounded)
        #expect(
            exactCounts.regressions.map { "\($0.contender) \($0.metric)" }.sorted()
                == ["apple invalidations", "apple mallocs", "lockfree invalidations"])
    }

    @Test func thresholdsFileIsCreatedWithDefaults() throws {
        let path = temporaryFolder() + "/thresholds/6.3.1.json"
        #expect(try Thresholds.loadOrCreate(path) == Thresholds())
        #expect(
            read(path) == """
                {
                  "instructionTolerance" : 1.1,
                  "instructionTolerances" : {

                  },
                  "mallocTolerance" : 0.5,
                  "mallocTolerances" : {

                  },
                  "nondeterministicCounts" : [

                  ],
                  "timeRatioTolerance" : 5,
                  "timeRatioTolerances" : {

                  }
                }

                """)
        try Data("{\"mallocTolerance\": 2, \"mallocTolerances\": {}, \"timeRatioTolerance\": 1.1}".utf8).write(
            to: URL(fileURLWithPath: path))
        #expect(try Thresholds.loadOrCreate(path) == Thresholds(mallocTolerance: 2, timeRatioTolerance: 1.1))
    }
}
