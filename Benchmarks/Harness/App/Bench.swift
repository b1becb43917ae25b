/// The `bench` command: parses the command line and dispatches. Returns the exit status.
public struct Bench: Sendable {
    public var suite: [Benchmark]
    public var executor: any PassExecutor
    public var console: Console
    /// The command line recorded in result metadata.
    public var commandLine: [String]
    /// Faults compiled into this build for the gate's self-check, recorded in every result set.
    public var faultInjections: [String]

    public init(
        suite: [Benchmark], executor: any PassExecutor = ChildProcessExecutor(), console: Console = .standard,
        commandLine: [String] = CommandLine.arguments, faultInjections: [String] = []
    ) {
        self.faultInjections = faultInjections
        self.suite = suite
        self.executor = executor
        self.console = console
        self.commandLine = commandLine
    }

    public func main(_ arguments: [String]) -> Int32 {
        let command: Command
        do { command = try Parser.parse(arguments) } catch {
            console.err("bench: \(error.message)\n")
            return ExitCode.usage
        }
        switch command {
        case .help(let topic):
            console.out(Usage.text(for: topic))
            return ExitCode.success
        case .list(let filter):
            return list(filter: filter)
        case .run(let options):
            return run(options).exitCode
        case .check(let baseline, let options):
            return check(baseline: baseline, options)
        case .report(let input, let output):
            return report(input: input, output: output)
        case .baselineSave(let name, let input):
            return saveBaseline(name: name, input: input)
        case .compare(let a, let b):
            return compare(a, b)
        case .measure(let request):
            return ChildProcessExecutor.serve(request, suite: suite)
        }
    }

    /// Whether `arguments` ask to measure (run or check): debug builds are refused for those.
    public static func measures(_ arguments: [String]) -> Bool {
        switch try? Parser.parse(arguments) {
        case .run?, .check?, .measure?: true
        default: false
        }
    }

    func list(filter: String?) -> Int32 {
        do {
            let runs = try Selection(filter: filter).plan(suite)
            var seen = Set<String>()
            for run in runs where seen.insert(run.name).inserted { console.out(run.name + "\n") }
            return ExitCode.success
        } catch {
            console.err("bench: \(error.message)\n")
            return ExitCode.usage
        }
    }
}
