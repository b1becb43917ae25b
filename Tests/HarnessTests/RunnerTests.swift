import Foundation
import Synchronization
import Testing

@testable import Harness

/// Records the plans it is given and reports a fixed result, without measuring.
final class PlanRecorder: PassExecutor {
    let plans = Mutex<[TimingPlan]>([])
    /// `benchmark@contender` of each timing process, in the order they ran.
    let timed = Mutex<[String]>([])
    let countingOperations = Mutex<[Int]>([])
    func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
        plans.withLock { $0.append(plan) }
        timed.withLock { $0.append("\(run.name)@\(run.contender)") }
        return Measurer.PassReport(metrics: [MetricResult(.time, value: 1)], failure: nil, batch: 64)
    }
    func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
        countingOperations.withLock { $0.append(operations) }
        return Measurer.PassReport(
            metrics: [MetricResult(name: "mallocs", unit: "count", value: 2)],
            failure: run.contender == "apple" ? "missed" : nil, batch: operations)
    }
    let instructionRequests = Mutex<[String]>([])
    func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]? {
        instructionRequests.withLock { $0 += runs.map { "\($0.run.name)@\($0.run.contender)x\($0.operations)" } }
        return runs.map {
            Measurer.PassReport(
                metrics: [MetricResult(name: "instructions", unit: "instructions", value: Double($0.operations))],
                failure: nil, batch: $0.operations)
        }
    }
}

@Suite struct RunnerTests {
    func runs() throws -> [PlannedRun] {
        let suite = ["lockfree", "apple"].flatMap { c in
            [
                Benchmark(family: "a", contender: c, countingOperations: 100) { _ in NoOp() },
                Benchmark(family: "b", contender: c) { _ in NoOp() },
            ]
        }
        return try Selection().plan(suite)
    }

    @Test func mergesPassesAndUsesDeclaredCountingOperations() throws {
        let recorder = PlanRecorder()
        let plan = TimingPlan(budgetNanoseconds: 1_000_000, maxSamples: 10)
        let results = Runner(executor: recorder).run(try runs(), plan: plan)
        #expect(
            results.map { "\($0.benchmark)@\($0.contender)" } == ["a@lockfree", "a@apple", "b@lockfree", "b@apple"])
        #expect(results[0].metrics.map(\.name) == ["time", "mallocs"])
        #expect(results[0].failure == nil)
        #expect(results[1].failure == "missed")
        #expect(recorder.countingOperations.withLock { $0 } == [100, 100, 1, 1])  // not the timing batch (64)
        // The default mode times each run in 5 processes, each with a fifth of the plan, in 5
        // rounds over the whole suite: each round times every benchmark once, its contenders
        // alternating (a lockfree process, then an apple one), so a benchmark's rounds lie apart.
        let rounds = (0..<5).flatMap { k in Array(repeating: plan.share(5, index: k), count: 4) }
        #expect(recorder.plans.withLock { $0 } == rounds)
        #expect(
            recorder.timed.withLock { $0 }
                == Array(repeating: ["a@lockfree", "a@apple", "b@lockfree", "b@apple"], count: 5).flatMap { $0 })
    }

    @Test func timingSamplesOfSeveralProcessesArePooled() throws {
        /// Process i reports samples [10i, 10i + 1] and a setup time of 100 - i.
        final class Numbered: PassExecutor {
            let calls = Mutex(0)
            func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
                let i = Double(
                    calls.withLock { n in
                        defer { n += 1 }
                        return n
                    })
                let samples = [10 * i, 10 * i + 1]
                return Measurer.PassReport(
                    metrics: [
                        MetricResult(.time, summary: Summary(samples), samples: samples),
                        MetricResult(name: "setup_time", unit: "ns", value: 100 - i),
                    ], failure: nil, batch: 8)
            }
            func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
                Measurer.PassReport(metrics: [], failure: nil, batch: operations)
            }
        }
        let executor = Numbered()
        let plan = TimingPlan(budgetNanoseconds: 900, maxSamples: 10, minSamples: 5)
        let result = Runner(executor: executor).measure(try runs()[0], plan: plan, processes: 3)
        let time = try #require(result.metrics.first { $0.metric == .time })
        #expect(time.samples == [0, 1, 10, 11, 20, 21])
        #expect(time.summary == Summary([0, 1, 10, 11, 20, 21]))
        #expect(result.metrics.first { $0.name == "setup_time" }?.summary.p50 == 99)
        #expect(executor.calls.withLock { $0 } == 3)
        // 10 samples at most, 5 at least: 4 + 3 + 3 and 2 + 2 + 1.
        #expect((0..<3).map { plan.share(3, index: $0).maxSamples } == [4, 3, 3])
        #expect((0..<3).map { plan.share(3, index: $0).minSamples } == [2, 2, 1])
        #expect(plan.share(3, index: 2).budgetNanoseconds == 300)
        // Never more processes than samples.
        let two = TimingPlan(budgetNanoseconds: 900, maxSamples: 2)
        _ = Runner(executor: executor).measure(try runs()[0], plan: two, processes: 3)
        #expect(executor.calls.withLock { $0 } == 5)
    }

    @Test func instructionPassesRunOnceForAllRunsThatDeclareThem() throws {
        let suite = ["lockfree", "apple"].flatMap { c in
            [
                Benchmark(family: "a", contender: c, instructionOperations: { _ in 500 }) { _ in NoOp() },
                Benchmark(family: "b", contender: c) { _ in NoOp() },
            ]
        }
        let recorder = PlanRecorder()
        let results = Runner(executor: recorder).run(
            try Selection().plan(suite), plan: TimingPlan(budgetNanoseconds: 1_000_000, maxSamples: 10))
        // apple's counting pass fails ("missed"), so only lockfree's run of `a` is counted.
        #expect(recorder.instructionRequests.withLock { $0 } == ["a@lockfreex500"])
        #expect(results[0].metrics.map(\.name) == ["time", "mallocs", "instructions"])
        #expect(results[0].metric(.instructions)?.summary.p50 == 500)
        #expect(results[2].metric(.instructions) == nil)
        // An executor that cannot count leaves the metric out: unavailable, never 0.
        let none = Runner(executor: InProcessExecutor()).run(
            try Selection(filter: "^a$").plan(suite.filter { $0.contender == "lockfree" }),
            plan: TimingPlan(budgetNanoseconds: 1_000_000, maxSamples: 10))
        #expect(none[0].metric(.instructions) == nil)
    }

    /// Each contender's instruction passes run in a child of their own (so that its counts do not
    /// depend on which other contenders were selected), in the suite's order, and every count
    /// comes back to its own run.
    @Test func instructionsAreCountedInOneChildPerContender() throws {
        final class Children: PassExecutor {
            let children = Mutex<[[String]]>([])
            func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
                Measurer.PassReport(metrics: [MetricResult(.time, value: 1)], failure: nil, batch: 1)
            }
            func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
                Measurer.PassReport(metrics: [], failure: nil, batch: operations)
            }
            func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]? {
                children.withLock { $0.append(runs.map { "\($0.run.name)@\($0.run.contender)" }) }
                return runs.map {
                    let value = Double($0.operations) + ($0.run.contender == "naive" ? 0.5 : 0)
                    return Measurer.PassReport(
                        metrics: [MetricResult(name: "instructions", unit: "instructions", value: value)], failure: nil,
                        batch: 1)
                }
            }
        }
        let suite = ["lockfree", "naive", "apple"].flatMap { c in
            [
                Benchmark(family: "a", contender: c, instructionOperations: { _ in 10 }) { _ in NoOp() },
                Benchmark(family: "b", contender: c, instructionOperations: { _ in 20 }) { _ in NoOp() },
            ]
        }
        let executor = Children()
        let results = Runner(executor: executor).run(
            try Selection().plan(suite), plan: TimingPlan(budgetNanoseconds: 1000, maxSamples: 2))
        let children = executor.children.withLock { $0 }
        #expect(children.count == 3)
        #expect(Set(children) == [["a@lockfree", "b@lockfree"], ["a@naive", "b@naive"], ["a@apple", "b@apple"]])
        for result in results {
            let expected = (result.benchmark == "a" ? 10.0 : 20) + (result.contender == "naive" ? 0.5 : 0)
            #expect(result.metric(.instructions)?.summary.p50 == expected)
        }
    }

    @Test func aRunTooLongForCallgrindIsLeftOutWithANote() throws {
        /// Times every run at 1 ms per operation.
        final class Slow: PassExecutor {
            let counted = Mutex<[String]>([])
            func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
                Measurer.PassReport(
                    metrics: [MetricResult(.time, value: 1_000_000)], failure: nil, batch: 1)
            }
            func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
                Measurer.PassReport(metrics: [], failure: nil, batch: operations)
            }
            func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]? {
                counted.withLock { $0 += runs.map(\.run.name) }
                return runs.map { _ in Measurer.PassReport(metrics: [], failure: nil, batch: 1) }
            }
        }
        // 1 ms x 2 x 10 operations x 80 = 1.6 s: counted; x 1000 operations = 160 s: over quick's 30 s.
        let suite = [
            Benchmark(family: "short", contender: "lockfree", instructionOperations: { _ in 10 }) { _ in NoOp() },
            Benchmark(family: "long", contender: "lockfree", instructionOperations: { _ in 1000 }) { _ in NoOp() },
        ]
        let slow = Slow()
        let notes = Mutex<[String]>([])
        let runner = Runner(
            executor: slow,
            events: { event in
                if case .note(let line) = event { notes.withLock { $0.append(line) } }
            })
        _ = runner.run(
            try Selection().plan(suite), plan: TimingPlan(budgetNanoseconds: 1000, maxSamples: 2), mode: .quick)
        #expect(slow.counted.withLock { $0 } == ["short"])
        #expect(
            notes.withLock { $0 } == [
                "instructions not counted for 1 run(s) expected to take over 30 s under callgrind: long on lockfree (~160 s)"
            ])
        // Not asked for: no pass at all.
        let none = Slow()
        _ = Runner(executor: none, metrics: [.time]).run(
            try Selection().plan(suite), plan: TimingPlan(budgetNanoseconds: 1000, maxSamples: 2), mode: .quick)
        #expect(none.counted.withLock { $0 } == [])
    }

    /// A callgrind child that dies in one run fails that run; the runs after it in the same child
    /// are left uncounted, with a note, not failed: their times and counts stand.
    @Test func runsAfterADeadInstructionChildAreUncountedNotFailed() throws {
        final class Dies: PassExecutor {
            func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
                Measurer.PassReport(metrics: [MetricResult(.time, value: 1)], failure: nil, batch: 1)
            }
            func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
                Measurer.PassReport(metrics: [MetricResult(.invalidations, value: 1)], failure: nil, batch: operations)
            }
            func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]? {
                [
                    Measurer.PassReport(
                        metrics: [MetricResult(name: "instructions", unit: "instructions", value: 5)], failure: nil,
                        batch: 1),
                    .failed("the instruction pass was killed by SIGILL without a result"),
                    .failed(ChildProcessExecutor.notReached + "b (the instruction pass was killed by SIGILL)"),
                ]
            }
        }
        let suite = ["a", "b", "c"].map {
            Benchmark(family: $0, contender: "lockfree", instructionOperations: { _ in 10 }) { _ in NoOp() }
        }
        let notes = Mutex<[String]>([])
        let results = Runner(
            executor: Dies(),
            events: { event in
                if case .note(let line) = event { notes.withLock { $0.append(line) } }
            }
        ).run(try Selection().plan(suite), plan: TimingPlan(budgetNanoseconds: 1000, maxSamples: 2))
        let byName = Dictionary(uniqueKeysWithValues: results.map { ($0.benchmark, $0) })
        #expect(byName["a"]?.failure == nil && byName["a"]?.metric(.instructions)?.summary.p50 == 5)
        #expect(byName["b"]?.failure == "the instruction pass was killed by SIGILL without a result")
        #expect(byName["c"]?.failure == nil)
        #expect(byName["c"]?.metric(.instructions) == nil)
        #expect(byName["c"]?.metric(.time) != nil && byName["c"]?.metric(.invalidations) != nil)
        #expect(
            notes.withLock { $0 } == [
                "instructions not counted for 1 run(s) after their callgrind child stopped at b "
                    + "(the instruction pass was killed by SIGILL): c on lockfree"
            ])
    }

    @Test func deadlineSharesTheTimeLeft() throws {
        let recorder = PlanRecorder()
        let plan = TimingPlan(budgetNanoseconds: 1, maxSamples: 10)
        // A clock that stands still: the recorder spends none of the budget, and no time passes.
        let stopped: @Sendable () -> UInt64 = { 1_000 }
        _ = Runner(executor: recorder, clock: stopped).run(try runs(), plan: plan, deadline: 1, mode: .quick)
        let budgets = recorder.plans.withLock { $0 }.map(\.budgetNanoseconds)
        // Each visit gets the whole second left over the visits (runs x rounds) left, for each of
        // quick's 2 rounds: round 1 gives `a`'s two 1/8 of a second each (1 s over 8 visits, x 2
        // rounds, halved), `b`'s two 1/6; round 2 gives `a`'s 1/4 and `b`'s 1/2, halved to 1/4
        // (quick's cap, 0.5 s a run).
        let expected: [UInt64] =
            [125_000_000, 125_000_000, 166_666_666, 166_666_666] + Array(repeating: 250_000_000, count: 4)
        #expect(budgets == expected)
        let tight = PlanRecorder()
        _ = Runner(executor: tight, clock: stopped).run(try runs(), plan: plan, deadline: 0.01, mode: .quick)
        // The floor, halved.
        #expect(tight.plans.withLock { $0 }.map(\.budgetNanoseconds) == Array(repeating: 15_000_000, count: 8))
    }

    /// The time already passed is taken from the deadline before it is shared.
    @Test func timePassedIsTakenFromTheDeadline() throws {
        let recorder = PlanRecorder()
        let plan = TimingPlan(budgetNanoseconds: 1, maxSamples: 10)
        // Every reading of the clock is 10 ms after the one before.
        let ticks = Atomic<UInt64>(0)
        let ticking: @Sendable () -> UInt64 = { ticks.add(10_000_000, ordering: .relaxed).newValue }
        _ = Runner(executor: recorder, clock: ticking).run(try runs(), plan: plan, deadline: 1, mode: .quick)
        let budgets = recorder.plans.withLock { $0 }.map { Int($0.budgetNanoseconds) }
        #expect(budgets.count == 8)
        // The first visit reads the clock once after the start: 0.99 s over 8 visits, x 2 rounds,
        // halved (truncated to whole nanoseconds).
        #expect(abs(budgets[0] - 123_750_000) <= 1, "\(budgets)")
    }

    @Test func measuringCommandsAreKnown() throws {
        #expect(try Parser.parse([]).measures)
        #expect(try Parser.parse(["run", "--quick"]).measures)
        #expect(try Parser.parse(["check", "--baseline", "x"]).measures)
        #expect(try !Parser.parse(["list"]).measures)
        #expect(try !Parser.parse(["report"]).measures)
    }

    /// A build `bench` refuses to measure stops `run` and `check` with exit 1, and nothing else.
    @Test func aRefusedBuildMeasuresNothing() {
        let recorder = Recorder()
        let bench = Bench(
            suite: testSuite(), executor: InProcessExecutor(), console: recorder.console, commandLine: ["bench"],
            buildRefusal: "refusing to measure this build")
        #expect(bench.main(["run", "--quick"]) == 1)
        #expect(bench.main(["check", "--baseline", "x"]) == 1)
        #expect(
            recorder.err.withLock { $0 }
                == "bench: refusing to measure this build\nbench: refusing to measure this build\n")
        #expect(bench.main(["list"]) == 0)
    }

    @Test func childRequestRoundTripsAndBadRequestsAreUsageErrors() throws {
        let request = ChildRequest(
            family: "a", contender: "lockfree", parameters: Parameters([("n", "3")]),
            pass: .count, plan: nil, operations: 7)
        let json = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        #expect(try JSONDecoder().decode(ChildRequest.self, from: Data(json.utf8)) == request)
        #expect(throws: BenchError(.usage, "malformed __measure request")) {
            try ChildProcessExecutor.serve("{ bad", suite: [])
        }
        // An unknown pass is a malformed request, not a timing pass.
        let unknownPass = json.replacingOccurrences(of: "\"count\"", with: "\"weigh\"")
        #expect(unknownPass != json)
        #expect(throws: BenchError(.usage, "malformed __measure request")) {
            try ChildProcessExecutor.serve(unknownPass, suite: [])
        }
        #expect(throws: BenchError(.usage, "no benchmark \(request.family) on \(request.contender)")) {
            try ChildProcessExecutor.serve(json, suite: [])
        }
    }
}
