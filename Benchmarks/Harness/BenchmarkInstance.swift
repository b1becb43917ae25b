/// A benchmark after its setup: the harness times `run`, counts allocations around it in a separate
/// pass, and reads `counts` around it.
public protocol BenchmarkInstance: AnyObject {
    /// Performs `operations` operations; this is the measured region. Returns a checksum that the
    /// harness keeps alive so the work cannot be optimised away. Throws `BenchmarkFailure` on a
    /// correctness failure (e.g. the oracle found a missed update).
    func run(operations: Int) throws -> Int
    /// Counts accumulated since the instance was made.
    var counts: InvalidationCounts { get }
    /// Extra named results recorded as metrics (e.g. the grid's `sum` and `count`): deterministic,
    /// gated exactly.
    var extraMetrics: [String: Double] { get }
    /// What the workload measured itself while it was timed, read after the timing pass: per-event
    /// distributions (a stream's latency from a write to its consumer, one sample per write) and
    /// figures that depend on thread timing (values delivered per write). Recorded, never gated.
    var measuredMetrics: [MeasuredMetric] { get }
    /// Turns on checks that are too slow to time (the view graph's oracle re-renders every mounted
    /// view after every frame). The harness turns them on for the counting pass, never while timing.
    func enableVerification()
}

extension BenchmarkInstance {
    public var counts: InvalidationCounts { InvalidationCounts() }
    public var extraMetrics: [String: Double] { [:] }
    public var measuredMetrics: [MeasuredMetric] { [] }
    public func enableVerification() {}
}

/// A metric a workload measures itself (`BenchmarkInstance.measuredMetrics`): one value, or one
/// sample per event, summarised like `time` (p0...p100) and pooled across timing processes.
public struct MeasuredMetric: Sendable, Equatable {
    /// A metric of the timing pass (`Metric.latency`, ...): not an exact one, which is
    /// `extraMetrics`' (a workload's deterministic results, held exactly by the gate).
    public var metric: Metric
    public var values: [Double]

    public init(_ metric: Metric, values: [Double]) {
        precondition(!metric.isExact && metric.group == .time, "\(metric) is not measured while timed")
        self.metric = metric
        self.values = values
    }
}
