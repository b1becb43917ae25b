/// Why `bench` stops early: a one-line message and its documented exit code. Every subcommand
/// throws it; `Bench.main` prints it once, as `bench: MESSAGE`, and returns the code.
public struct BenchError: Error, Equatable, CustomStringConvertible {
    public var code: ExitCode
    public var message: String

    public init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    init(_ error: UsageError) { self.init(.usage, error.message) }
    init(_ error: BaselineError) { self.init(.baselineUnusable, error.message) }
    init(_ error: WriteError) { self.init(.cannotWrite, error.message) }
}
