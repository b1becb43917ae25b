import Foundation

/// The compact form of `results.json`, for baselines and committed results: summaries only, one
/// line per benchmark and contender (in run order, which the suite keeps stable), so that a diff
/// of a re-measured file shows which figures moved, line by line. A metric measured once (a count,
/// mallocs, instructions) is a bare number; a sampled one (time) is its summary, rounded to four
/// significant digits (timings do not repeat to more), with the median of each timing process
/// (`processMedians`), from which the paired time ratios and their intervals are computed again.
/// Raw samples are not kept.
///
/// ```
/// {
///   "form" : "summary",
///   "metadata" : { ... },
///   "schemaVersion" : 2,
///   "units" : { "instructions" : "instructions", "mallocs" : "count", "time" : "ns", ... },
///   "results" : [
/// {"benchmark":"primitives/tracked-read","contender":"apple","metrics":{"instructions":1360.2,"mallocs":0,"time":{"p50":97.39,...}}},
///   ...
///   ]
/// }
/// ```
/// `JSONFormat.decode` reads both forms; what the compact form leaves out reads as `nan`.
public enum SummaryJSON {
    public static let form = "summary"

    /// The fields kept of a sampled metric's summary: all (`full`), or what `check` and `compare`
    /// read (`gated`: the median, its quartiles and interval, the sample count).
    public enum Detail: Sendable { case full, gated }

    /// `set` in the compact form; `keep` chooses the metrics of each result (all by default).
    public static func encode(
        _ set: ResultSet, detail: Detail = .full, keep: (BenchmarkResult, MetricResult) -> Bool = { _, _ in true }
    ) -> String {
        let pretty = JSONEncoder()
        pretty.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let line = JSONEncoder()
        line.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func indented(_ data: Data) -> String {
            String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\n", with: "\n  ")
        }
        var units: [String: String] = [:]
        let rows = set.results.map { result -> String in
            var metrics: [String: Value] = [:]
            var medians: [String: [Double]] = [:]
            for m in result.metrics where keep(result, m) {
                units[m.name] = m.unit
                metrics[m.name] = Value(m.summary, detail: detail)
                // Kept in baselines too: `compare` reads a time's evidence process by process.
                if let processes = m.samplesByProcess?.filter({ !$0.isEmpty }), !processes.isEmpty {
                    medians[m.name] = processes.map { rounded(Percentiles.value(50, sorted: $0.sorted()), digits: 4) }
                }
            }
            let row = Row(
                benchmark: result.benchmark, contender: result.contender, failure: result.failure, metrics: metrics,
                processMedians: medians.isEmpty ? nil : medians)
            return String(decoding: try! line.encode(row), as: UTF8.self)
        }
        return """
            {
              "form" : "\(form)",
              "metadata" : \(indented(try! pretty.encode(set.metadata))),
              "schemaVersion" : 2,
              "units" : \(indented(try! pretty.encode(units))),
              "results" : [
            \(rows.joined(separator: ",\n"))
              ]
            }

            """
    }

    /// Whether `data` is in the compact form.
    static func isCompact(_ data: Data) -> Bool {
        (try? JSONDecoder().decode(FormProbe.self, from: data))?.form == form
    }

    /// A compact file as a `ResultSet`: each benchmark's family and parameters are read back from
    /// its name (`family/key=value/...`), metrics come in `Metric.all`'s order.
    static func decode(_ data: Data) throws -> ResultSet {
        let file = try JSONDecoder().decode(File.self, from: data)
        let results = file.results.map { row in
            let parts = row.benchmark.split(separator: "/").map(String.init)
            let family = parts.filter { !$0.contains("=") }.joined(separator: "/")
            let parameters = Parameters(
                parts.filter { $0.contains("=") }.map { part in
                    let eq = part.firstIndex(of: "=")!
                    return (String(part[..<eq]), String(part[part.index(after: eq)...]))
                })
            let metrics = row.metrics.keys.sorted(by: canonicalOrder).map { name in
                MetricResult(
                    name: name, unit: file.units[name] ?? "value", summary: row.metrics[name]!.summary,
                    processMedians: row.processMedians?[name])
            }
            return BenchmarkResult(
                benchmark: row.benchmark, family: family, parameters: parameters, contender: row.contender,
                metrics: metrics, failure: row.failure)
        }
        return ResultSet(schemaVersion: file.schemaVersion, metadata: file.metadata, results: results)
    }

    static let order = ([Metric.time, .setupTime, .retainedBytes, .mallocs, .bytes] + Metric.counts + [.instructions])
        .map(\.name)

    static func canonicalOrder(_ a: String, _ b: String) -> Bool {
        let ia = order.firstIndex(of: a) ?? order.count
        let ib = order.firstIndex(of: b) ?? order.count
        return ia != ib ? ia < ib : a < b
    }

    struct FormProbe: Decodable { var form: String? }

    struct File: Decodable {
        var schemaVersion: Int
        var metadata: RunMetadata
        var units: [String: String]
        var results: [Row]
    }

    struct Row: Codable {
        var benchmark: String
        var contender: String
        var failure: String?
        var metrics: [String: Value]
        /// Each timing process's median, by metric (`MetricResult.processMedians`).
        var processMedians: [String: [Double]]?
    }

    /// A bare number (a metric measured once) or a summary's fields.
    enum Value: Codable {
        case single(Double)
        case summary([String: Double])

        init(_ s: Summary, detail: Detail) {
            if s.samples <= 1 && s.p0 == s.p100 {
                self = .single(s.p50)
                return
            }
            var fields: [String: Double] = ["samples": Double(s.samples), "p25": s.p25, "p50": s.p50, "p75": s.p75]
            if detail == .full {
                fields.merge(["p0": s.p0, "p90": s.p90, "p99": s.p99, "p100": s.p100, "mean": s.mean]) { $1 }
            }
            if let low = s.ciLow, let high = s.ciHigh {
                fields["ciLow"] = low
                fields["ciHigh"] = high
            }
            self = .summary(fields.mapValues { $0.isFinite ? SummaryJSON.rounded($0, digits: 4) : $0 })
        }

        var summary: Summary {
            switch self {
            case .single(let value): return Summary(single: value)
            case .summary(let f):
                let nan = Double.nan
                return Summary(
                    samples: Int(f["samples"] ?? 0), p0: f["p0"] ?? nan, p25: f["p25"] ?? nan, p50: f["p50"] ?? nan,
                    p75: f["p75"] ?? nan, p90: f["p90"] ?? nan, p99: f["p99"] ?? nan, p100: f["p100"] ?? nan,
                    mean: f["mean"] ?? nan, ciLow: f["ciLow"], ciHigh: f["ciHigh"])
            }
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let value = try? c.decode(Double.self) {
                self = .single(value)
            } else {
                self = .summary(try c.decode([String: Double].self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .single(let value): try c.encode(value)
            case .summary(let fields): try c.encode(fields)
            }
        }
    }

    /// `value` to `digits` significant digits.
    static func rounded(_ value: Double, digits: Int) -> Double {
        guard value != 0 else { return 0 }
        return Double(String(format: "%.\(digits)g", value)) ?? value
    }
}
