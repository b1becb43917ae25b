/// A correctness failure found while running a benchmark. `bench` reports it and exits with 1.
public struct BenchmarkFailure: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
