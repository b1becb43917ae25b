import Foundation

/// Latency percentile plots: one per benchmark that records `latency` (the stream family), with
/// latency on a log scale against the percentile on a "nines" scale (p90, p99 and p99.9 equally
/// apart, where a tail shows), one line per contender, the floor included.
enum LatencyPercentiles {
    /// The per-write latency samples, and the 99.9th percentile recorded beside them (`Summary`
    /// stops at p99).
    static let metric = Metric.latency
    static let tailMetric = Metric.latencyTail

    /// `fraction` (below 1) on the nines scale, `-log10(1 - fraction)`: p90 is 1, p99 is 2, p99.9 is 3.
    static func nines(_ fraction: Double) -> Double { -log10(1 - fraction) }

    /// The percentile at `nines` on that scale, as a tick label: `p0`, `p90`, `p99`, `p99.9`.
    static func label(_ nines: Double) -> String {
        "p" + NumberFormat.plain(((1 - pow(10, -nines)) * 1000).rounded() / 10)
    }

    static func charts(_ set: ResultSet) -> [ChartSet.Chart] {
        set.benchmarkNames.compactMap { name in
            let series = set.contenders.compactMap { contender -> SVGChart.Series? in
                guard let result = set.result(name, contender), result.failure == nil,
                    let summary = result.metric(metric)?.summary
                else { return nil }
                var points = [(0.25, summary.p25), (0.5, summary.p50), (0.75, summary.p75), (0.9, summary.p90)]
                    .map { (x: nines($0.0), y: $0.1) }
                points.append((x: nines(0.99), y: summary.p99))
                if let tail = result.metric(tailMetric)?.summary.p50 { points.append((x: 3, y: tail)) }
                return SVGChart.Series(name: contender, points: points)
            }
            guard !series.isEmpty else { return nil }
            let svg = SVGChart.lines(
                title: "\(name): latency percentiles", xLabel: "percentile (nines scale)",
                yLabel: "latency (log scale)", series: series, yTick: NumberFormat.duration, linearX: true,
                xTick: label)
            return ChartSet.Chart(
                group: ReportFormat.groupName(name), title: "\(name): latency percentiles",
                fileName: name.replacingOccurrences(of: "/", with: "-") + "-latency.svg", svg: svg)
        }
    }
}
