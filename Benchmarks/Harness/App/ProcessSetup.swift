import Foundation
import Glibc

/// Process-wide guards `bench` applies before doing anything.
public enum ProcessSetup {
    /// Re-executes this process with `SWIFT_DETERMINISTIC_HASHING=1` when it is not set: the runtime
    /// reads it once at start-up, and randomly seeded hashing makes Set and Dictionary costs vary
    /// from run to run. Returns only when the variable was already set (or exec failed).
    public static func ensureDeterministicHashing() {
        guard ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"] != "1" else { return }
        setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1)
        let arguments = CommandLine.arguments
        let argv = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", argv)
        // exec failed: carry on, non-deterministic hashing is still measurable.
        FileHandle.standardError.write(
            Data("bench: warning: could not re-exec with SWIFT_DETERMINISTIC_HASHING=1\n".utf8))
    }

    /// A debug build's numbers mean nothing: `bench` refuses to measure unless
    /// `BENCH_ALLOW_DEBUG=1` (for tests of the command itself).
    public static var refusesDebugBuild: Bool {
        _isDebugAssertConfiguration() && ProcessInfo.processInfo.environment["BENCH_ALLOW_DEBUG"] != "1"
    }
}
