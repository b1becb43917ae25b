import Dispatch
import Foundation
import Synchronization

/// How much time a run of the suite may take.
public enum RunMode: String, Sendable, Codable {
    case quick
    case standard = "default"
    case full

    /// Seconds for the whole suite, process start-up and setup included, and the per-run sampling
    /// budget bounds. The instruction pass comes on top (about 50 s for quick, 1.5 minutes for
    /// default, on a 2-core machine): quick stays under 3 minutes and default under 10.
    var totalSeconds: Double { self == .quick ? 60 : self == .standard ? 420 : 1800 }
    /// The most one run's instruction pass may be expected to take (`Runner.instructionEstimate`);
    /// a run expected to take longer is not counted, with a note. The default suite's slowest run
    /// is expected to take a few seconds.
    var instructionRunSeconds: Double { self == .quick ? 30 : self == .standard ? 60 : 300 }
    var budgetBounds: ClosedRange<Double> { self == .quick ? 0.03...0.5 : self == .standard ? 0.1...3 : 0.2...10 }
    var defaultMaxSamples: Int { self == .quick ? 200 : self == .standard ? 2000 : 10_000 }
    /// Processes whose timing samples are pooled for one run, in as many rounds over the suite
    /// (see `Runner.run`): 5, so that a ratio's repeat interval rests on 4 degrees of freedom.
    var timingProcesses: Int { self == .quick ? 2 : 5 }

    /// The sampling plan when `runs` benchmark x contender runs share the time.
    public func timingPlan(runs: Int, maxSamples: Int? = nil) -> TimingPlan {
        let share = totalSeconds / Double(max(runs, 1))
        let seconds = min(max(share, budgetBounds.lowerBound), budgetBounds.upperBound)
        return TimingPlan(budgetNanoseconds: UInt64(seconds * 1e9), maxSamples: maxSamples ?? defaultMaxSamples)
    }
}

/// Measures planned runs one after another, each pass through an executor, and merges the passes.
public struct Runner: Sendable {
    public var executor: any PassExecutor
    /// Told as passes begin and runs end (see `RunEvent`).
    public var events: (@Sendable (RunEvent) -> Void)?
    /// The metrics to measure: the passes of unselected groups do not run.
    public var metrics: Set<MetricGroup>
    /// The clock a deadline is kept by, in nanoseconds: the monotonic clock, or a test's own.
    public var clock: @Sendable () -> UInt64
    /// Stops the run between passes (`run`); the executor stops its children.
    public var interruption: Interruption

    public init(
        executor: any PassExecutor, metrics: Set<MetricGroup> = Set(MetricGroup.allCases),
        clock: @escaping @Sendable () -> UInt64 = monotonicNanoseconds, interruption: Interruption = Interruption(),
        events: (@Sendable (RunEvent) -> Void)? = nil
    ) {
        self.executor = executor.interruptible(by: interruption)
        self.metrics = metrics
        self.clock = clock
        self.interruption = interruption
        self.events = events
    }

    /// The timing rounds one run of a benchmark had when its run was interrupted before the
    /// benchmark's last round: what `bench run --resume` goes on from (`resume.json`).
    public struct RoundsMeasured: Sendable, Codable, Equatable {
        public var benchmark: String
        public var contender: String
        /// The rounds the benchmark was visited in (a run whose timing failed has fewer reports).
        public var rounds: Int
        /// Its timing reports, one a round.
        public var timings: [Measurer.PassReport]

        public init(benchmark: String, contender: String, rounds: Int, timings: [Measurer.PassReport]) {
            self.benchmark = benchmark
            self.contender = contender
            self.rounds = rounds
            self.timings = timings
        }
    }

    /// What `measureSuite` measured.
    public struct SuiteOutcome: Sendable {
        /// The results of the benchmarks finished (every round, counted) and, when interrupted, of
        /// those timed in fewer rounds (`partial`), in the order of the runs.
        public var results: [BenchmarkResult]
        /// The rounds the suite is timed in.
        public var rounds: Int
        /// Benchmarks timed in fewer than `rounds` rounds (interrupted), with the rounds they had.
        public var partial: [PartialBenchmark]
        /// The timing rounds of the `partial` benchmarks' runs.
        public var unfinished: [RoundsMeasured]
    }

    /// `measureSuite`'s results.
    public func run(
        _ runs: [PlannedRun], plan: TimingPlan, deadline: Double? = nil, mode: RunMode = .standard,
        measured: [BenchmarkResult] = []
    ) -> [BenchmarkResult] {
        measureSuite(runs, plan: plan, deadline: deadline, mode: mode, measured: measured).results
    }

    /// Measures `runs` with `plan` in rounds: each round times every benchmark once, its
    /// contenders in adjacent processes (`timeRound`), so that a benchmark's rounds lie minutes
    /// apart, spread over the whole run, and its paired ratios sample every speed mode the run saw
    /// (rounds of one benchmark a few seconds apart shared one mode: two runs of the primitives
    /// then disagreed beyond their intervals, `track-once-threads/threads=2`'s apple ratio 0.148
    /// against 0.086). The last round also counts each run (`finish`). With a `deadline` (seconds
    /// for all runs), each visit's sampling budget is re-planned from the time left, less the
    /// overhead (process start, setup, counting) seen so far, within the mode's bounds: the suite
    /// ends near its deadline whatever it holds.
    ///
    /// `measured` and `resumed` come from an earlier, interrupted run of the same `runs` (`bench
    /// run --resume`): the benchmarks `measured` has on every contender are not measured again;
    /// those `resumed` has rounds of are timed in the rounds they lack (each round's contenders
    /// still adjacent) and counted; every run's instructions are counted where they lack them;
    /// what is left gets its share of `deadline`, the whole run's.
    ///
    /// When `interruption` stops the run, the visit in flight is dropped whole (a round's
    /// contenders are measured together or not at all); a benchmark timed in some rounds is
    /// returned as `partial`, its rounds as `unfinished`; the instruction pass is not run.
    public func measureSuite(
        _ runs: [PlannedRun], plan: TimingPlan, deadline: Double? = nil, mode: RunMode = .standard,
        measured: [BenchmarkResult] = [], resumed: [RoundsMeasured] = []
    ) -> SuiteOutcome {
        let start = clock()
        var results = runs.map { run in measured.first { $0.benchmark == run.name && $0.contender == run.contender } }
        let groups = Self.byBenchmark(runs)
        var firsts: [Int] = []  // each group's first index in `runs`
        var next = 0
        for group in groups {
            firsts.append(next)
            next += group.count
        }
        let indices = { (g: Int) in firsts[g]..<firsts[g] + groups[g].count }
        // Never more processes than samples: `--samples N` caps the pooled samples.
        let rounds = metrics.contains(.time) ? min(mode.timingProcesses, max(plan.maxSamples, 1)) : 1
        var timings = Array(repeating: [Measurer.PassReport](), count: runs.count)
        var roundsDone = Array(repeating: 0, count: groups.count)
        // A benchmark is measured unless every contender of it has a result; it goes on from the
        // rounds it had.
        let todo = groups.indices.filter { g in indices(g).contains { results[$0] == nil } }
        for g in todo {
            for i in indices(g) {
                results[i] = nil
                if let had = resumed.first(where: { $0.benchmark == runs[i].name && $0.contender == runs[i].contender }
                ) {
                    timings[i] = had.timings
                    roundsDone[g] = min(max(roundsDone[g], had.rounds), rounds - 1)
                }
            }
        }
        let visits = todo.reduce(0) { $0 + (rounds - roundsDone[$1]) * groups[$1].count }
        // A resumed run's share of the whole run's deadline.
        let deadline = deadline.map { $0 * Double(visits) / Double(max(runs.count * rounds, 1)) }
        var overhead = 0.0  // seconds per run and round beyond its sampling budget, averaged
        var visited = 0  // runs x rounds done
        rounds: for round in 0..<rounds {
            let due = todo.filter { roundsDone[$0] <= round }
            if due.isEmpty { continue }
            if rounds > 1 { events?(.roundBegan(round: round, rounds: rounds)) }
            for g in due {
                let group = groups[g]
                let first = firsts[g]
                var current = plan
                if let deadline {
                    let left = deadline - Double(clock() - start) / 1e9
                    let share = left / Double(visits - visited) - overhead
                    let seconds = min(
                        max(share * Double(rounds), mode.budgetBounds.lowerBound), mode.budgetBounds.upperBound)
                    current.budgetNanoseconds = UInt64(seconds * 1e9)
                    current.warmupNanoseconds = current.budgetNanoseconds / 10
                }
                let began = clock()
                let done = Double(visited) / Double(visits)
                let announce = { (offset: Int, pass: String) -> Void in
                    events?(
                        .passBegan(index: first + offset, total: runs.count, run: group[offset], pass: pass, done: done)
                    )
                }
                var groupTimings = Array(timings[first..<first + group.count])
                if metrics.contains(.time) {
                    timeRound(group, plan: current, round: round, rounds: rounds, into: &groupTimings, began: announce)
                }
                var finished: [BenchmarkResult] = []
                if round == rounds - 1 && !interruption.isInterrupted {
                    finished = finish(group, timings: groupTimings, began: announce)
                }
                // A visit the interruption cut short is dropped whole.
                if interruption.isInterrupted { break rounds }
                timings.replaceSubrange(first..<first + group.count, with: groupTimings)
                roundsDone[g] = round + 1
                for (offset, result) in finished.enumerated() {
                    results[first + offset] = result
                    events?(.runEnded(index: first + offset, total: runs.count, result: result))
                }
                let spent = Double(clock() - began) / 1e9 / Double(group.count)
                let budget = Double(current.budgetNanoseconds + current.warmupNanoseconds) / 1e9 / Double(rounds)
                overhead =
                    (overhead * Double(visited) + max(0, spent - budget) * Double(group.count))
                    / Double(visited + group.count)
                visited += group.count
            }
        }
        // Interrupted: what was timed in some rounds, pooled, and kept to go on from.
        var partial: [PartialBenchmark] = []
        var unfinished: [RoundsMeasured] = []
        for g in todo where roundsDone[g] > 0 && roundsDone[g] < rounds {
            let group = groups[g]
            let pooled = finish(group, timings: Array(timings[indices(g)]), counting: false) { _, _ in }
            partial.append(PartialBenchmark(benchmark: group[0].name, rounds: roundsDone[g]))
            for (offset, i) in indices(g).enumerated() {
                results[i] = pooled[offset]
                unfinished.append(
                    RoundsMeasured(
                        benchmark: runs[i].name, contender: runs[i].contender, rounds: roundsDone[g],
                        timings: timings[i]))
            }
        }
        if metrics.contains(.instructions) && !interruption.isInterrupted {
            countInstructions(runs, into: &results, mode: mode)
        }
        return SuiteOutcome(
            results: results.compactMap { $0 }, rounds: rounds, partial: partial, unfinished: unfinished)
    }

    /// `benchmark on contender` of the runs of `results` whose instructions a run measuring
    /// `metrics` counts and has not counted yet: what an interrupted run left to `--resume`.
    static func instructionsWanted(
        _ runs: [PlannedRun], results: [BenchmarkResult], metrics: Set<MetricGroup>, mode: RunMode
    ) -> [String] {
        guard metrics.contains(.instructions), InstructionCounter.unavailableReason == nil else { return [] }
        return runs.compactMap { run in
            guard let result = results.first(where: { $0.benchmark == run.name && $0.contender == run.contender }),
                result.failure == nil, result.metric(Metric.instructions) == nil,
                let operations = run.benchmark.instructionOperations(run.parameters)
            else { return nil }
            if let estimate = instructionEstimate(result, operations: operations), estimate > mode.instructionRunSeconds
            {
                return nil
            }
            return "\(run.name) on \(run.contender)"
        }
    }

    /// `runs` cut into consecutive runs of one benchmark (its contenders; `Selection.plan` keeps
    /// them together).
    static func byBenchmark(_ runs: [PlannedRun]) -> [[PlannedRun]] {
        var groups: [[PlannedRun]] = []
        for run in runs {
            if let last = groups.last?.last, last.name == run.name {
                groups[groups.count - 1].append(run)
            } else {
                groups.append([run])
            }
        }
        return groups
    }

    /// How many times slower a run is under callgrind than natively (measured here: 40 to 90 for
    /// the suite's workloads), and what starting valgrind costs.
    static let callgrindSlowdown = 80.0
    static let valgrindStartSeconds = 2.0

    /// Seconds the instruction pass of `run` is expected to take under callgrind: a warm-up and the
    /// counted operations at the p50 time the timing pass measured, plus one setup; `nil` without
    /// a timing.
    static func instructionEstimate(_ result: BenchmarkResult, operations: Int) -> Double? {
        guard let p50 = result.metric(Metric.time)?.summary.p50 else { return nil }
        let setup = result.metric(Metric.setupTime)?.summary.p50 ?? 0
        return (2 * Double(operations) * p50 + setup) / 1e9 * callgrindSlowdown
    }

    /// Seconds the counting pass of a run is expected to take: its setup and three rounds of
    /// `operations` (warm-up, counted, verified) at the p50 time of `timing`; `nil` without a timing.
    static func countingEstimate(_ timing: Measurer.PassReport, operations: Int) -> Double? {
        guard let p50 = timing.metrics.first(where: { $0.name == Metric.time.name })?.summary.p50 else { return nil }
        let setup = timing.metrics.first { $0.name == Metric.setupTime.name }?.summary.p50 ?? 0
        return (3 * Double(operations) * p50 + setup) / 1e9
    }

    /// The instruction pass of every run that declares one, has not failed and lacks its count:
    /// one child per contender, its runs in order, the children side by side (as many at once as there are
    /// cores). A count under callgrind moves a little with what ran before it in the same process
    /// (what the allocator and the caches of the runtime hold), so a contender's counts do not
    /// depend on which other contenders were selected (`instructionGroups`). A run expected to
    /// take longer than the mode allows (`RunMode.instructionRunSeconds`) is left out, with a note.
    func countInstructions(_ runs: [PlannedRun], into results: inout [BenchmarkResult?], mode: RunMode = .standard) {
        var skipped: [String] = []
        var seconds: [Int: Double] = [:]
        let wanted = runs.indices.compactMap { i -> (index: Int, operations: Int)? in
            guard let result = results[i], result.failure == nil, result.metric(Metric.instructions) == nil,
                let ops = runs[i].benchmark.instructionOperations(runs[i].parameters)
            else { return nil }
            if let estimate = Self.instructionEstimate(result, operations: ops) {
                if estimate > mode.instructionRunSeconds {
                    skipped.append("\(runs[i].name) on \(runs[i].contender) (~\(Int(estimate)) s)")
                    return nil
                }
                seconds[i] = estimate
            }
            return (i, ops)
        }
        if !skipped.isEmpty {
            events?(
                .note(
                    "instructions not counted for \(skipped.count) run(s) expected to take over \(Int(mode.instructionRunSeconds)) s "
                        + "under callgrind: " + skipped.prefix(3).joined(separator: ", ")
                        + (skipped.count > 3 ? ", ..." : "")))
        }
        guard !wanted.isEmpty else { return }
        let groups = Self.instructionGroups(wanted, contender: { runs[$0].contender })
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let groupSeconds = groups.map { group in
            group.reduce(Self.valgrindStartSeconds) { $0 + (seconds[$1.index] ?? 0) }
        }
        let estimate = max(groupSeconds.max() ?? 0, groupSeconds.reduce(0, +) / Double(min(cores, groups.count)))
        events?(.instructionsBegan(runs: wanted.count, estimate: estimate))
        let reports = Mutex<[[Measurer.PassReport]?]>(Array(repeating: nil, count: groups.count))
        let executor = self.executor
        // Each child's deadline: a run without an estimate (not timed) is given a minute.
        let expected = groups.map { group in
            group.reduce(Self.valgrindStartSeconds) { $0 + (seconds[$1.index] ?? 60) }
        }
        // (`concurrentPerform` runs at most as many iterations at once as there are cores.)
        DispatchQueue.concurrentPerform(iterations: groups.count) { g in
            let counted = executor.instructions(
                groups[g].map { (runs[$0.index], $0.operations) }, expectedSeconds: expected[g])
            reports.withLock { $0[g] = counted }
        }
        var unreached: [String] = []
        var stoppedAt: String?
        for (group, counted) in zip(groups, reports.withLock { $0 }) {
            guard let counted else { continue }
            for (want, report) in zip(group, counted) {
                // What an interrupted child did not count is left out, not failed: a resumed run counts it.
                if report.failure == ChildProcessExecutor.interruptedFailure { continue }
                // A run after the one its child died in is left uncounted, not failed: its times
                // and counts stand (the gate says what it could not check).
                if let failure = report.failure, failure.hasPrefix(ChildProcessExecutor.notReached) {
                    unreached.append("\(runs[want.index].name) on \(runs[want.index].contender)")
                    stoppedAt = stoppedAt ?? String(failure.dropFirst(ChildProcessExecutor.notReached.count))
                    continue
                }
                results[want.index]?.metrics += report.metrics
                if let failure = report.failure { results[want.index]?.failure = failure }
            }
        }
        if let stoppedAt {
            events?(
                .note(
                    "instructions not counted for \(unreached.count) run(s) after their callgrind child stopped at "
                        + stoppedAt + ": " + unreached.prefix(3).joined(separator: ", ")
                        + (unreached.count > 3 ? ", ..." : "")))
        }
    }

    /// `wanted` cut into one group per contender, in the order the contenders first appear, each
    /// group's runs in their order.
    static func instructionGroups(
        _ wanted: [(index: Int, operations: Int)], contender: (Int) -> String
    ) -> [[(index: Int, operations: Int)]] {
        var order: [String] = []
        var groups: [String: [(index: Int, operations: Int)]] = [:]
        for want in wanted {
            let name = contender(want.index)
            if groups[name] == nil { order.append(name) }
            groups[name, default: []].append(want)
        }
        return order.map { groups[$0]! }
    }

    /// Times `run` in `processes` fresh child processes, each with its share of `plan`, and pools
    /// their samples (one process's memory layout can move a time by 1.5x or more: apple's
    /// `track-objects-fire/objects=8` took 5.9 to 10.8 µs in different processes); then counts in
    /// one more process. `run(_:plan:)` does the same for a suite, in rounds over it.
    public func measure(_ run: PlannedRun, plan: TimingPlan, processes: Int = 1) -> BenchmarkResult {
        // Never more processes than samples: `--samples N` caps the pooled samples.
        let processes = min(max(processes, 1), max(plan.maxSamples, 1))
        var timings = [[Measurer.PassReport]()]
        if metrics.contains(.time) {
            for round in 0..<processes {
                timeRound([run], plan: plan, round: round, rounds: processes, into: &timings) { _, _ in }
            }
        }
        return finish([run], timings: timings) { _, _ in }[0]
    }

    /// Round `round` of `rounds`: one timing process per contender of one benchmark, one after
    /// another, each with its share of `plan` (the whole plan when there is one round). A run
    /// whose timing failed is not timed again.
    func timeRound(
        _ group: [PlannedRun], plan: TimingPlan, round: Int, rounds: Int,
        into timings: inout [[Measurer.PassReport]], began: (_ offset: Int, _ pass: String) -> Void
    ) {
        for (j, run) in group.enumerated() where timings[j].last?.failure == nil && !interruption.isInterrupted {
            began(j, rounds > 1 ? "timing \(round + 1)/\(rounds)" : "timing")
            timings[j].append(executor.timing(run, plan: rounds > 1 ? plan.share(rounds, index: round) : plan))
        }
    }

    /// Each run's result: its rounds' samples pooled, then, when `counting`, its counting pass (in
    /// one more process) when `counts` or `allocations` is selected and the timing did not fail. Only the metrics of
    /// the selected groups are kept (`metrics`).
    func finish(
        _ group: [PlannedRun], timings: [[Measurer.PassReport]], counting: Bool = true,
        began: (_ offset: Int, _ pass: String) -> Void
    ) -> [BenchmarkResult] {
        group.enumerated().map { j, run in
            let reports = timings[j]
            let timing: Measurer.PassReport =
                if let failed = reports.first(where: { $0.failure != nil }) { failed } else if reports.count > 1 {
                    Measurer.PassReport(pooling: reports)
                } else { reports.first ?? Measurer.PassReport(metrics: [], failure: nil, batch: 1) }
            var counted: Measurer.PassReport?
            if counting && timing.failure == nil && MetricGroup.needsCountingPass(metrics) {
                began(j, "counting")
                let operations = run.benchmark.countingOperations ?? 1
                counted = executor.counting(
                    run, operations: operations, expectedSeconds: Self.countingEstimate(timing, operations: operations))
            }
            let kept = (timing.metrics + (counted?.metrics ?? [])).filter { metrics.contains(MetricGroup.of($0)) }
            return BenchmarkResult(
                benchmark: run.name, family: run.benchmark.family, parameters: run.parameters,
                contender: run.contender, metrics: kept, failure: timing.failure ?? counted?.failure)
        }
    }
}
