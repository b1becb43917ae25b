/// A quantity the harness records for each benchmark and contender: its name in the results files,
/// its unit, which way is better, how its measurements become one figure, and the pass that
/// measures it. Every metric is per operation but `retainedBytes` and `setupTime`, which describe
/// the setup (`make`) once.
///
/// The harness's own metrics are the static members below; a workload adds its own through
/// `BenchmarkInstance.measuredMetrics` (a stream's latency, sampled while timed) or
/// `extraMetrics` (deterministic values, held exactly: `Metric.value(named:)`).
public struct Metric: Hashable, Sendable, CustomStringConvertible {
    /// Which way is better.
    public enum Direction: Sendable {
        case lowerIsBetter
        /// Neither: the figure is the workload's behaviour, which must not change (the invalidation
        /// counts, a workload's values).
        case exact
        /// Closest to 1 (delivered values per write).
        case nearOne
    }

    /// How a run's measurements become its figure.
    public enum Aggregation: Sendable {
        /// Many samples, summarised by percentiles (the samples are kept).
        case samples
        /// One value per run (the median of the processes' values when timing passes are pooled).
        case single
    }

    /// The name in results.json, results.csv and the reports.
    public let name: String
    public let unit: String
    public let direction: Direction
    public let aggregation: Aggregation
    /// The pass that measures it, which `--metrics` selects.
    public let group: MetricGroup

    public init(name: String, unit: String, direction: Direction, aggregation: Aggregation, group: MetricGroup) {
        self.name = name
        self.unit = unit
        self.direction = direction
        self.aggregation = aggregation
        self.group = group
    }

    public var description: String { name }

    /// Whether the gate holds the figure exactly (a count, a workload's value).
    public var isExact: Bool { direction == .exact }
}

extension Metric {
    /// Nanoseconds per operation, sampled.
    public static let time = Metric(
        name: "time", unit: "ns", direction: .lowerIsBetter, aggregation: .samples, group: .time)
    /// Nanoseconds for one `make`.
    public static let setupTime = Metric(
        name: "setup-time", unit: "ns", direction: .lowerIsBetter, aggregation: .single, group: .time)
    /// Calls to malloc per operation (jemalloc's counters).
    public static let mallocs = Metric(
        name: "mallocs", unit: "count", direction: .lowerIsBetter, aggregation: .single, group: .allocations)
    /// Bytes allocated per operation.
    public static let bytes = Metric(
        name: "bytes", unit: "bytes", direction: .lowerIsBetter, aggregation: .single, group: .allocations)
    /// Bytes live after setup, minus before.
    public static let retainedBytes = Metric(
        name: "retained-bytes", unit: "bytes", direction: .lowerIsBetter, aggregation: .single, group: .allocations)
    /// Instructions per operation (callgrind).
    public static let instructions = Metric(
        name: "instructions", unit: "instructions", direction: .lowerIsBetter, aggregation: .single,
        group: .instructions)

    /// An invalidation count per operation (`InvalidationCounts`), held exactly.
    private static func count(_ name: String) -> Metric {
        Metric(name: name, unit: "count", direction: .exact, aggregation: .single, group: .counts)
    }
    public static let notifications = count("notifications")
    public static let invalidations = count("invalidations")
    public static let evaluations = count("evaluations")
    public static let unnecessary = count("unnecessary")
    public static let missed = count("missed")
    /// The invalidation counts, in `InvalidationCounts`' order.
    public static let counts = [notifications, invalidations, evaluations, unnecessary, missed]

    /// A stream's latency from a write to the consumer's wake-up, sampled while timed.
    public static let latency = Metric(
        name: "latency", unit: "ns", direction: .lowerIsBetter, aggregation: .samples, group: .time)
    /// The 99.9th percentile of `latency`, over every write of a run.
    public static let latencyTail = Metric(
        name: "latency-p99.9", unit: "ns", direction: .lowerIsBetter, aggregation: .single, group: .time)
    /// Values a stream's consumer received per write.
    public static let deliveredPerWrite = Metric(
        name: "delivered-per-write", unit: "ratio", direction: .nearOne, aggregation: .single, group: .time)
    /// A fan-out's memory per consumer (`stream/fan-out`).
    public static let bytesPerConsumer = Metric(
        name: "bytes-per-consumer", unit: "bytes", direction: .lowerIsBetter, aggregation: .single, group: .time)

    /// `apple`'s time per operation measured by the outside probe (`Probe`), beside the suite's.
    public static let probeTime = Metric(
        name: "probe-time", unit: "ns", direction: .lowerIsBetter, aggregation: .single, group: .time)
    /// `apple`'s mallocs per operation counted by the outside probe.
    public static let probeMallocs = Metric(
        name: "probe-mallocs", unit: "count", direction: .lowerIsBetter, aggregation: .single, group: .allocations)

    /// A workload's own deterministic value (`BenchmarkInstance.extraMetrics`: the grid's `sum`),
    /// measured by the counting pass and held exactly.
    public static func value(named name: String) -> Metric {
        Metric(name: name, unit: "value", direction: .exact, aggregation: .single, group: .counts)
    }

    /// Every metric the harness names, in the order results list them.
    public static let all: [Metric] =
        [time, setupTime, retainedBytes, mallocs, bytes] + counts
        + [instructions, latency, latencyTail, deliveredPerWrite, bytesPerConsumer, probeTime, probeMallocs]

    /// The metric a result file names `name` with `unit`: one of `all`, or a workload's value.
    public static func named(_ name: String, unit: String) -> Metric {
        if let known = all.first(where: { $0.name == name }) { return known }
        return unit == "value"
            ? value(named: name)
            : Metric(name: name, unit: unit, direction: .lowerIsBetter, aggregation: .single, group: .time)
    }
}
