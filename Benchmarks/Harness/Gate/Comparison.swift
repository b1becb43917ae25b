import Foundation

/// `bench compare A B`: every metric both result sets have, old against new.
public enum Comparison {
    public static func format(old: ResultSet, new: ResultSet) -> String {
        var rows: [[String]] = []
        for n in new.results {
            guard let o = old.result(n.benchmark, n.contender) else { continue }
            for nm in n.metrics {
                guard let om = o.metric(nm.metric) else { continue }
                let a = om.summary
                let b = nm.summary
                let overlap = a.samples > 1 && b.samples > 1 && a.p25 <= b.p75 && b.p25 <= a.p75
                let value = nm.metric.unit == "ns" ? NumberFormat.duration : NumberFormat.readable
                let delta = b.p50 - a.p50
                let ratio = a.p50 == 0 ? (b.p50 == 0 ? "1.00" : "∞") : String(format: "%.2f", b.p50 / a.p50)
                rows.append([
                    n.benchmark, n.contender, nm.name, value(a.p50), value(b.p50),
                    (delta > 0 ? "+" : "") + value(delta), ratio + (overlap ? " (?)" : ""),
                ])
            }
        }
        return MarkdownTable(
            header: ["benchmark", "contender", "metric", "old", "new", "delta", "ratio"], rows: rows,
            rightAligned: [3, 4, 5, 6]
        ).text
            + "\nValues are p50. \"(?)\" marks sampled metrics whose p25..p75 ranges overlap: within noise.\n"
    }
}
