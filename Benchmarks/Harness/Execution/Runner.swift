/// How much time a run of the suite may take.
public enum RunMode: String, Sendable, Codable {
    case quick, standard = "default", full

    /// Seconds for the whole suite, process start-up and setup included, and the per-run sampling
    /// budget bounds. The instruction pass comes on top (about 1.5 minutes on a 2-core machine): quick
    /// stays under 4 minutes and default under 10.
    var totalSeconds: Double { self == .quick ? 90 : self == .standard ? 420 : 1800 }
    var budgetBounds: ClosedRange<Double> { self == .quick ? 0.03...0.5 : self == .standard ? 0.1...3 : 0.2...10 }
    var defaultMaxSamples: Int { self == .quick ? 200 : self == .standard ? 2000 : 10_000 }
    /// Processes whose timing samples are pooled for one run (see `Runner.measure`).
    var timingProcesses: Int { self == .quick ? 2 : 3 }

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
    /// Called before each run with a progress line (`[3/40] books/... on lockfree`).
    public var progress: (@Sendable (String) -> Void)?

    public init(executor: any PassExecutor, progress: (@Sendable (String) -> Void)? = nil) {
        self.executor = executor
        self.progress = progress
    }

    /// Measures `runs` with `plan`. With a `deadline` (seconds for all runs), each run's sampling
    /// budget is re-planned from the time left, less the overhead (process start, setup, counting)
    /// seen so far, within the mode's bounds: the suite ends near its deadline whatever it holds.
    public func run(_ runs: [PlannedRun], plan: TimingPlan, deadline: Double? = nil, mode: RunMode = .standard) -> [BenchmarkResult] {
        let start = monotonicNanoseconds()
        var overhead = 0.0  // seconds per run beyond its sampling budget, averaged
        var results = runs.enumerated().map { index, run in
            progress?("[\(index + 1)/\(runs.count)] \(run.name) on \(run.contender)")
            var current = plan
            if let deadline {
                let left = deadline - Double(monotonicNanoseconds() - start) / 1e9
                let share = left / Double(runs.count - index) - overhead
                let seconds = min(max(share, mode.budgetBounds.lowerBound), mode.budgetBounds.upperBound)
                current.budgetNanoseconds = UInt64(seconds * 1e9)
                current.warmupNanoseconds = current.budgetNanoseconds / 10
            }
            let began = monotonicNanoseconds()
            let result = measure(run, plan: current, processes: mode.timingProcesses)
            let spent = Double(monotonicNanoseconds() - began) / 1e9
            let extra = max(0, spent - Double(current.budgetNanoseconds + current.warmupNanoseconds) / 1e9)
            overhead = (overhead * Double(index) + extra) / Double(index + 1)
            return result
        }
        countInstructions(runs, into: &results)
        return results
    }

    /// The instruction pass of every run that declares one and has not failed, all in one child.
    func countInstructions(_ runs: [PlannedRun], into results: inout [BenchmarkResult]) {
        let wanted = runs.indices.compactMap { i -> (index: Int, operations: Int)? in
            guard results[i].failure == nil, let ops = runs[i].benchmark.instructionOperations(runs[i].parameters)
            else { return nil }
            return (i, ops)
        }
        guard !wanted.isEmpty else { return }
        progress?("counting instructions of \(wanted.count) runs under callgrind")
        guard let reports = executor.instructions(wanted.map { (runs[$0.index], $0.operations) }) else { return }
        for (want, report) in zip(wanted, reports) {
            results[want.index].metrics += report.metrics
            if let failure = report.failure { results[want.index].failure = failure }
        }
    }

    /// Times `run` in `processes` child processes, each with its share of `plan`, and pools their
    /// samples: one process's memory layout can move a time by 1.5x or more (apple's
    /// `track-objects-fire/objects=8` took 5.9 to 10.8 µs in different processes), and a ratio of
    /// two contenders should not hang on it. Then counts in one more process.
    public func measure(_ run: PlannedRun, plan: TimingPlan, processes: Int = 1) -> BenchmarkResult {
        let timing = pooledTiming(run, plan: plan, processes: max(processes, 1))
        let counting =
            timing.failure == nil ? executor.counting(run, operations: run.benchmark.countingOperations ?? 1) : nil
        return BenchmarkResult(
            benchmark: run.name, family: run.benchmark.family,
            parameters: run.parameters,
            contender: run.contender, metrics: timing.metrics + (counting?.metrics ?? []),
            failure: timing.failure ?? counting?.failure)
    }

    func pooledTiming(_ run: PlannedRun, plan: TimingPlan, processes: Int) -> Measurer.PassReport {
        // Never more processes than samples: `--samples N` caps the pooled samples.
        let processes = min(processes, max(plan.maxSamples, 1))
        guard processes > 1 else { return executor.timing(run, plan: plan) }
        var reports: [Measurer.PassReport] = []
        for index in 0..<processes {
            let report = executor.timing(run, plan: plan.share(processes, index: index))
            if report.failure != nil { return report }
            reports.append(report)
        }
        return Measurer.PassReport(pooling: reports)
    }
}
