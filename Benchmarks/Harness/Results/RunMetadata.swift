import Foundation

/// Where and how a result set was measured. Recorded in every result set; the gate refuses to
/// compare runs from different toolchains or allocators.
public struct RunMetadata: Sendable, Equatable, Codable {
    /// ISO 8601, UTC.
    public var date: String
    /// The exact command line, argument by argument.
    public var command: [String]
    /// `uname -srm`-style description.
    public var machine: String
    public var cpu: String
    public var cores: Int
    /// The compiler version the suite was built with, e.g. `6.3.1`.
    public var toolchain: String
    /// `swift --version`'s first line when `swift` was on PATH at run time, else `unknown`.
    public var toolchainOnPath: String
    public var allocator: String
    /// Why allocation metrics are missing; `nil` when they were counted.
    public var allocationNote: String?
    /// What counted instructions, e.g. `callgrind (valgrind-3.19.0)`; `nil` when nothing did.
    public var instructionCounter: String?
    /// Why instruction counts are missing; `nil` when they were counted.
    public var instructionNote: String?
    /// `git rev-parse HEAD`, with `-dirty` when the tree had changes; `unknown` outside a checkout.
    public var gitCommit: String
    /// `quick`, `default` or `full`.
    public var mode: String
    /// Faults compiled into the build for the gate's self-check (`BENCH_SELFCHECK_*`); `nil` or
    /// empty for a real measurement. `check` refuses a baseline that has any.
    public var faultInjections: [String]?
    /// Set when the run was interrupted: by what, and what it did not measure (`bench run
    /// --resume` measures that).
    public var interrupted: InterruptedRun?
    /// Each `bench run --resume` that measured part of this result set, in order.
    public var resumed: [ResumedRun]?
    /// The identity of the `bench` executable that measured: a hash of its bytes
    /// (`MetadataCollector.buildIdentity`). `--resume` pools only results of the same build.
    public var build: String?
    /// The machine's host name: with `machine`, `cpu` and `cores`, which machine measured.
    public var host: String?

    public init(
        date: String, command: [String], machine: String, cpu: String, cores: Int, toolchain: String,
        toolchainOnPath: String, allocator: String, allocationNote: String?, gitCommit: String, mode: String,
        instructionCounter: String? = nil, instructionNote: String? = nil, faultInjections: [String]? = nil
    ) {
        self.date = date
        self.command = command
        self.machine = machine
        self.cpu = cpu
        self.cores = cores
        self.toolchain = toolchain
        self.toolchainOnPath = toolchainOnPath
        self.allocator = allocator
        self.allocationNote = allocationNote
        self.instructionCounter = instructionCounter
        self.instructionNote = instructionNote
        self.gitCommit = gitCommit
        self.mode = mode
        self.faultInjections = faultInjections
    }

    /// The command line as a shell would take it back.
    public var commandLine: String { command.map(shellQuoted).joined(separator: " ") }
}

/// What an interrupted run left out.
public struct InterruptedRun: Sendable, Equatable, Codable {
    /// `SIGINT` or `SIGTERM`.
    public var signal: String
    /// The rounds each benchmark is timed in.
    public var rounds: Int
    /// The benchmarks timed in fewer rounds, with the rounds they had, in run order: their
    /// results pool those rounds and have no counting pass; `resume.json` keeps their rounds.
    public var partial: [PartialBenchmark]
    /// The benchmarks not measured, in run order: none of their contenders' results are kept.
    public var notMeasured: [String]
    /// `benchmark on contender` of the runs finished whose instructions were not counted yet.
    public var instructionsNotCounted: [String]

    public init(
        signal: String, rounds: Int, partial: [PartialBenchmark] = [], notMeasured: [String],
        instructionsNotCounted: [String] = []
    ) {
        self.signal = signal
        self.rounds = rounds
        self.partial = partial
        self.notMeasured = notMeasured
        self.instructionsNotCounted = instructionsNotCounted
    }
}

/// A benchmark an interrupted run timed in fewer rounds than the run's.
public struct PartialBenchmark: Sendable, Equatable, Codable {
    public var benchmark: String
    public var rounds: Int

    public init(benchmark: String, rounds: Int) {
        self.benchmark = benchmark
        self.rounds = rounds
    }
}

/// A `bench run --resume` that completed an interrupted result set.
public struct ResumedRun: Sendable, Equatable, Codable {
    /// ISO 8601, UTC.
    public var date: String
    /// The resuming command, as a user reruns it.
    public var command: [String]
    /// The benchmarks it measured (in the rounds they lacked), in run order.
    public var measured: [String]
    /// `benchmark on contender` of the runs of the earlier part whose instructions it counted;
    /// `nil` for none.
    public var instructionsCounted: [String]?

    public init(date: String, command: [String], measured: [String], instructionsCounted: [String]? = nil) {
        self.date = date
        self.command = command
        self.measured = measured
        self.instructionsCounted = instructionsCounted
    }
}

/// `word` quoted for a POSIX shell when it needs quoting.
public func shellQuoted(_ word: String) -> String {
    let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%")
    if !word.isEmpty && word.allSatisfy({ safe.contains($0) }) { return word }
    return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
