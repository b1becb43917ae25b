/// The exit codes of `bench`, documented in `bench --help`.
public enum ExitCode {
    public static let success: Int32 = 0
    /// A benchmark failed: a missed update, a count mismatch, a thrown failure, a failed self-test.
    public static let benchmarkFailed: Int32 = 1
    /// The gate found a regression.
    public static let regression: Int32 = 2
    /// The gate found only improvements beyond tolerance: commit the new baseline.
    public static let improvementOnly: Int32 = 4
    /// The gate's baseline is missing, unreadable, or from another toolchain or allocator.
    public static let baselineUnusable: Int32 = 5
    /// Bad command line: unknown flag or subcommand, bad number, unknown contender, bad parameter.
    public static let usage: Int32 = 64
    /// The results folder cannot be written.
    public static let cannotWrite: Int32 = 73
}
