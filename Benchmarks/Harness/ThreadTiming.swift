/// What the threads a benchmark runs do to the figures the gate reads: its invalidation counts
/// (gated exactly unless they vary), its allocations per operation (gated within a tolerance) and
/// its time ratio (gated within a tolerance).
///
/// Every benchmark that runs a thread of its own declares which case it is, where it is declared
/// (`Benchmark.threads`); `WorkloadsTests` runs each benchmark's setup and fails when one that
/// starts a thread declares `oneThread`, or one that starts none declares otherwise.
public enum ThreadTiming: Sendable, Equatable {
    /// It runs on the calling thread alone (the harness's idle companion aside): counts and
    /// allocations repeat exactly.
    case oneThread
    /// It runs other threads, and yet its counts and allocations repeat exactly: each thread's
    /// work per operation is fixed, whatever the interleaving.
    case exactOnThreads
    /// How its threads interleave changes what it counts: its counts are not gated when
    /// `countsVary` (the oracle still checks every operation for missed updates), and its mallocs
    /// per operation may differ from the baseline by up to `mallocTolerance` (`.infinity`: not
    /// gated, when nothing bounds what the threads allocate during the counted operations). Its
    /// time ratio may move by up to the factor `timeRatioTolerance` (`nil`: the thresholds file's;
    /// `.infinity`: not gated, when the time is a wake-up's, which the scheduler sets).
    case timingDependent(countsVary: Bool, mallocTolerance: Double, timeRatioTolerance: Double? = nil)

    /// Whether it runs threads of its own.
    public var runsThreads: Bool { self != .oneThread }
}
