/// The `bench` command: parses the command line and dispatches. Returns the exit status.
public struct Bench: Sendable {
    public var suite: [Benchmark]
    public var executor: any PassExecutor
    public var console: Console
    /// The command line recorded in result metadata.
    public var commandLine: [String]
    /// Faults compiled into this build for the gate's self-check, recorded in every result set.
    public var faultInjections: [String]

    /// Why this build must not measure (a debug build, or one with the registrar's schedule points);
    /// `nil` for a build whose figures mean something. `run`, `check` and measuring children refuse
    /// with exit 1.
    public var buildRefusal: String?
    /// The outside measurement's executable (`Probe`), run beside the suite's `apple` primitives.
    public var probe: String?
    /// Stops `run` and `check` (SIGINT, SIGTERM once `trap`ped): they write what finished.
    public var interruption: Interruption

    public init(
        suite: [Benchmark], executor: any PassExecutor = ChildProcessExecutor(), console: Console = .standard,
        commandLine: [String] = CommandLine.arguments, faultInjections: [String] = [], buildRefusal: String? = nil,
        probe: String? = nil, interruption: Interruption = .process
    ) {
        self.interruption = interruption
        self.probe = probe
        self.faultInjections = faultInjections
        self.suite = suite
        self.executor = executor
        self.console = console
        self.commandLine = commandLine
        self.buildRefusal = buildRefusal
    }

    /// Runs the command line and returns the exit status. Every early stop is a `BenchError`,
    /// printed here once.
    public func main(_ arguments: [String]) -> Int32 {
        do { return try dispatch(arguments).rawValue } catch {
            console.err("bench: \(error.message)\n")
            return error.code.rawValue
        }
    }

    func dispatch(_ arguments: [String]) throws(BenchError) -> ExitCode {
        let command: Command
        do { command = try Parser.parse(arguments) } catch { throw BenchError(error) }
        if let buildRefusal, command.measures { throw BenchError(.benchmarkFailed, buildRefusal) }
        switch command {
        case .help(let topic):
            console.out(Usage.text(for: topic))
            return .success
        case .list(let filter):
            try list(filter: filter)
            return .success
        case .run(let options):
            return try run(options).exitCode
        case .check(let baseline, let options):
            return try check(baseline: baseline, options)
        case .report(let input, let output, let formats):
            try report(input: input, output: output, formats: formats)
            return .success
        case .baselineSave(let name, let input, let allowDirty):
            try saveBaseline(name: name, input: input, allowDirty: allowDirty)
            return .success
        case .compare(let a, let b):
            try compare(a, b)
            return .success
        case .measure(let request):
            return try ChildProcessExecutor.serve(request, suite: suite)
        }
    }

    func list(filter: String?) throws(BenchError) {
        let runs: [PlannedRun]
        do { runs = try Selection(filter: filter).plan(suite) } catch { throw BenchError(error) }
        var seen = Set<String>()
        for run in runs where seen.insert(run.name).inserted { console.out(run.name + "\n") }
    }
}
