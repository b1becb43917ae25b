/// A benchmark after its setup: the harness times `run`, counts allocations around it in a separate
/// pass, and reads `counts` around it.
public protocol BenchmarkInstance: AnyObject {
    /// Performs `operations` operations; this is the measured region. Returns a checksum that the
    /// harness keeps alive so the work cannot be optimised away. Throws `BenchmarkFailure` on a
    /// correctness failure (e.g. the oracle found a missed update).
    func run(operations: Int) throws -> Int
    /// Counts accumulated since the instance was made.
    var counts: InvalidationCounts { get }
    /// Extra named results recorded as metrics (e.g. the grid's `sum` and `count`).
    var extraMetrics: [String: Double] { get }
    /// Turns on checks that are too slow to time (the view graph's oracle re-renders every mounted
    /// view after every frame). The harness turns them on for the counting pass, never while timing.
    func enableVerification()
}

extension BenchmarkInstance {
    public var counts: InvalidationCounts { InvalidationCounts() }
    public var extraMetrics: [String: Double] { [:] }
    public func enableVerification() {}
}
