/// How much time a run of the suite may take.
public enum RunMode: String, Sendable, Codable {
    case quick, standard = "default", full

    /// Seconds of sampling shared by all runs, and the per-run budget bounds.
    var totalSeconds: Double { self == .quick ? 40 : self == .standard ? 240 : 1200 }
    var budgetBounds: ClosedRange<Double> { self == .quick ? 0.03...0.5 : self == .standard ? 0.1...3 : 0.2...10 }
    var defaultMaxSamples: Int { self == .quick ? 200 : self == .standard ? 2000 : 10_000 }

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

    public func run(_ runs: [PlannedRun], plan: TimingPlan) -> [BenchmarkResult] {
        runs.enumerated().map { index, run in
            progress?("[\(index + 1)/\(runs.count)] \(run.name) on \(run.contender)")
            return measure(run, plan: plan)
        }
    }

    public func measure(_ run: PlannedRun, plan: TimingPlan) -> BenchmarkResult {
        let timing = executor.timing(run, plan: plan)
        let counting =
            timing.failure == nil ? executor.counting(run, operations: run.benchmark.countingOperations ?? 1) : nil
        return BenchmarkResult(
            benchmark: run.name, family: run.benchmark.family,
            parameters: run.parameters.entries.map { ParameterEntry(key: $0.key, value: $0.value) },
            contender: run.contender, metrics: timing.metrics + (counting?.metrics ?? []),
            failure: timing.failure ?? counting?.failure)
    }
}
