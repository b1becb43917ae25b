/// The exit codes of `bench`: the one list, from which `bench --help` prints its table.
public enum ExitCode: Int32, CaseIterable, Sendable {
    case success = 0
    /// A benchmark failed (a missed update, a count mismatch, a thrown failure, a child past its
    /// deadline or dead of a signal, a failed self-test), or the build is one `bench` refuses to
    /// measure.
    case benchmarkFailed = 1
    /// The gate found a regression.
    case regression = 2
    /// The gate found only improvements beyond tolerance: commit the new baseline.
    case improvementOnly = 4
    /// A baseline or results file is missing or unreadable; the gate's baseline is from another
    /// toolchain or allocator, from a build with injected faults, gates what cannot be counted here,
    /// or gates what this run did not measure.
    case baselineUnusable = 5
    /// Bad command line: unknown flag or subcommand, bad number, unknown contender, bad parameter.
    case usage = 64
    /// The results folder cannot be written.
    case cannotWrite = 73
    /// SIGINT, SIGTERM or SIGHUP stopped a run: what it measured is written, the results marked
    /// interrupted; `check` gives no verdict. The `bench` command then dies of that signal (a
    /// shell sees 128 + the signal's number: 130, 143, 129); 130 is what `Bench.main` returns.
    case interrupted = 130

    /// One line of the help's table.
    public var meaning: String {
        switch self {
        case .success: "success"
        case .benchmarkFailed:
            "a benchmark failed (missed update, count mismatch, thrown failure, a child timed out or killed by a\n"
                + "      signal) or the allocation self-test failed;\n"
                + "      or a build bench refuses to measure (debug, or with the registrar's schedule points)"
        case .regression: "check: regression beyond tolerance"
        case .improvementOnly: "check: only improvements beyond tolerance (commit a new baseline)"
        case .baselineUnusable:
            "baseline (or report/compare/--resume input) missing or unreadable; run --resume: measured by other\n"
                + "      code (commit, toolchain, allocator); check: from another toolchain or allocator,\n"
                + "      from a build with injected faults, with instruction counts that cannot be counted here,\n"
                + "      or gating figures this run did not measure (--metrics, an instruction pass skipped as too long)"
        case .usage:
            "usage error (unknown flag or subcommand, bad number, unknown contender, bad parameter, an option\n"
                + "      --resume takes from DIR);\n"
                + "      baseline save: results measured with uncommitted changes (without --allow-dirty), or interrupted"
        case .cannotWrite: "the results folder cannot be written"
        case .interrupted:
            "interrupted (SIGINT, SIGTERM, SIGHUP): what was measured is written, marked interrupted (finish\n"
                + "      with run --resume DIR), then bench dies of the signal (130, 143, 129); check: no verdict.\n"
                + "      A second signal ends bench at once"
        }
    }

    /// The help's table, generated from the cases.
    public static var table: String {
        "Exit codes:\n"
            + allCases.map { "  " + String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0) + $0.meaning }
            .joined(separator: "\n")
    }
}
