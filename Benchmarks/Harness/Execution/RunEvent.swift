/// What the runner reports as it goes, for progress lines.
public enum RunEvent: Sendable {
    /// Timing round `round` (0-based) of `rounds` began: every benchmark is timed once more.
    case roundBegan(round: Int, rounds: Int)
    /// A pass of run `index` (0-based) of `total` began: `"timing 2/3"`, `"counting"`; `done` is
    /// the share of the suite's timing and counting already done (0 to 1), for the time left.
    case passBegan(index: Int, total: Int, run: PlannedRun, pass: String, done: Double)
    /// Run `index` of `total` has its timing and counting results.
    case runEnded(index: Int, total: Int, result: BenchmarkResult)
    /// The instruction pass began for `runs` runs, expected to take about `estimate` seconds.
    case instructionsBegan(runs: Int, estimate: Double)
    /// Something the user should know, one line (a skipped pass, say).
    case note(String)
}
