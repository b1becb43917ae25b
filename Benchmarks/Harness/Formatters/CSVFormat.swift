/// `results.csv`: a header, then one row per benchmark x contender x metric.
///
/// Columns: `benchmark,contender,metric,unit,samples,min,p50,p90,p99,max,mean,p25,p75,ci_low,ci_high,failure`.
/// `min`/`max` are p0/p100; `ci_low`/`ci_high` bound the 95% interval of the median (empty when
/// too few samples); `failure` is empty unless the benchmark failed. Fields are quoted as RFC 4180
/// says; lines end with LF (which RFC 4180 readers accept) so files diff well.
public enum CSVFormat {
    public static let header = [
        "benchmark", "contender", "metric", "unit", "samples", "min", "p50", "p90", "p99", "max", "mean", "p25", "p75",
        "ci_low", "ci_high", "failure",
    ]

    public static func format(_ set: ResultSet) -> String {
        var lines = [row(header)]
        for r in set.results {
            for m in r.metrics {
                let s = m.summary
                let n = NumberFormat.plain
                lines.append(
                    row([
                        r.benchmark, r.contender, m.name, m.unit, String(s.samples), n(s.p0), n(s.p50), n(s.p90),
                        n(s.p99), n(s.p100), n(s.mean), n(s.p25), n(s.p75), s.ciLow.map(n) ?? "",
                        s.ciHigh.map(n) ?? "", r.failure ?? "",
                    ]))
            }
            if r.metrics.isEmpty, let failure = r.failure {
                lines.append(
                    row([r.benchmark, r.contender, "failed", "", "0", "", "", "", "", "", "", "", "", "", "", failure]))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One record, each field quoted when it holds a comma, quote, CR or LF.
    public static func row(_ fields: [String]) -> String {
        fields.map(quote).joined(separator: ",")
    }

    public static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
