/// What `--metrics` selects: each group is one measuring pass's share of the metrics.
public enum MetricGroup: String, Sendable, CaseIterable, Comparable {
    /// The timing pass: `time` (sampled), `setup-time`, and what a workload measured itself while
    /// timed (`BenchmarkInstance.measuredMetrics`: a stream's latency per write, sampled).
    case time
    /// The counting pass's allocation figures: `mallocs`, `bytes`, `retained-bytes`.
    case allocations
    /// The instruction pass (callgrind): `instructions`.
    case instructions
    /// The counting pass's invalidation counts and a workload's extra values (the grid's `sum`).
    case counts

    /// The group a measured metric belongs to (`Metric.group`).
    public static func of(_ metric: MetricResult) -> MetricGroup { metric.metric.group }

    /// The counting pass runs when either of its groups is selected; it also checks the oracle
    /// and the benchmark's declared counts.
    static func needsCountingPass(_ groups: Set<MetricGroup>) -> Bool {
        groups.contains(.counts) || groups.contains(.allocations)
    }

    public static func < (a: MetricGroup, b: MetricGroup) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
