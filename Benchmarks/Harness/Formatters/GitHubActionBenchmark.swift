import Foundation

/// `github-action-benchmark.json`: the input of github-action-benchmark's `customSmallerIsBetter`
/// tool (benchmark-action/github-action-benchmark), which charts each entry's name across commits
/// and alerts when a value grows. A JSON array, one entry per benchmark x contender x metric where
/// less is better, in run order:
///
/// ```
/// [
///   {
///     "extra" : "95% CI of p50: 15.03 … 15.18\np25 … p75: 14.54 … 15.92\nsamples: 1639",
///     "name" : "primitives/retrack-unchanged/objects=1 · lockfree · time p50",
///     "range" : "± 0.08",
///     "unit" : "ns/op",
///     "value" : 15.1
///   },
///   ...
/// ]
/// ```
/// `name` is `benchmark · contender · metric`, unique in a file and stable from run to run (a
/// benchmark keeps its name). `range` (sampled metrics only) is the wider half of the p50's 95%
/// interval; `extra` the interval itself, the quartiles and the sample count. Failed runs are left
/// out, as are the counts (`Metric.counts`): those are exact, the regression gate (`bench
/// check`) holds them to the baseline's, and a chart of them is a flat line.
public enum GitHubActionBenchmark {
    public static let fileName = "github-action-benchmark.json"

    /// One benchmark figure, as the action reads it.
    public struct Entry: Codable, Sendable, Equatable {
        public var name: String
        public var unit: String
        public var value: Double
        public var range: String?
        public var extra: String?

        public init(name: String, unit: String, value: Double, range: String? = nil, extra: String? = nil) {
            self.name = name
            self.unit = unit
            self.value = value
            self.range = range
            self.extra = extra
        }
    }

    /// The metrics exported, in this order: the name's metric label, the unit.
    static let metrics: [(metric: Metric, label: String, unit: String)] = [
        (Metric.time, "time p50", "ns/op"),
        (Metric.instructions, "instructions", "instructions/op"),
        (Metric.mallocs, "mallocs", "mallocs/op"),
        (Metric.bytes, "bytes allocated", "bytes/op"),
        (Metric.retainedBytes, "retained bytes", "bytes"),
    ]

    public static func entries(_ set: ResultSet) -> [Entry] {
        var seen = Set<String>()
        var entries: [Entry] = []
        for result in set.results where result.failure == nil {
            for (metric, label, unit) in metrics {
                guard let m = result.metric(metric), m.summary.p50.isFinite else { continue }
                let name = "\(result.benchmark) · \(result.contender) · \(label)"
                guard seen.insert(name).inserted else { continue }
                entries.append(entry(name: name, unit: unit, m.summary))
            }
        }
        return entries
    }

    static func entry(name: String, unit: String, _ s: Summary) -> Entry {
        let n = NumberFormat.plain
        guard s.samples > 1 else { return Entry(name: name, unit: unit, value: s.p50) }
        var extra: [String] = []
        var range: String?
        if let low = s.ciLow, let high = s.ciHigh, low.isFinite, high.isFinite {
            range = "± " + n(max(s.p50 - low, high - s.p50))
            extra.append("95% CI of p50: \(n(low)) … \(n(high))")
        }
        if s.p25.isFinite, s.p75.isFinite { extra.append("p25 … p75: \(n(s.p25)) … \(n(s.p75))") }
        extra.append("samples: \(s.samples)")
        return Entry(name: name, unit: unit, value: s.p50, range: range, extra: extra.joined(separator: "\n"))
    }

    public static func encode(_ set: ResultSet) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(entries(set)), as: UTF8.self) + "\n"
    }
}
