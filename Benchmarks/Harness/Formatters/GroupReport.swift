/// `report-<group>.md`: one page per benchmark group (a name's first path component:
/// `primitives`, `trees`, `books`, ...), written beside `report.md` and linked from it. An overview
/// table with every contender side by side (p50 / p99, mallocs, invalidations, instructions, the
/// reference against each other contender), the group's charts, then every benchmark's percentiles
/// of every metric, folded.
public enum GroupReport {
    /// The page of `group`: `report-<group>.md`, with any character but letters, digits, `-` and
    /// `_` replaced by `-`.
    public static func fileName(_ group: String) -> String {
        let safe = group.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "-" }
        return "report-\(String(safe)).md"
    }

    /// Every group's page, in run order.
    public static func pages(_ set: ResultSet, charts: [ChartSet.Chart] = []) -> [(name: String, contents: String)] {
        ReportFormat.groups(set).map { (fileName($0), format(set, group: $0, charts: charts)) }
    }

    public static func format(_ set: ResultSet, group: String, charts: [ChartSet.Chart] = []) -> String {
        let results = set.results.filter { ReportFormat.groupName($0.benchmark) == group }
        let own = ResultSet(schemaVersion: set.schemaVersion, metadata: set.metadata, results: results)
        var out = "# Benchmark results: \(group)\n\n"
        out += "[Summary and the run](\(ReportFormat.fileName)). " + ReportFormat.measured(set.metadata)
        out += ReportFormat.failures(results)
        out +=
            "## Overview\n\n"
            + overview(own, pooledVariance: set.pooledRoundVariance(reference: set.referenceContender))
        out += "\nTimes are per operation: p50 / p99; `–`: not run for that contender. " + ReportFormat.ratioNote
        out += " Below ratio 1 the reference is faster.\n"
        if let note = set.metadata.allocationNote { out += "\nAllocation metrics are unavailable: \(note).\n" }
        if results.contains(where: { $0.metric(Metric.instructions) != nil }) {
            out +=
                "\nInstructions per operation are counted by \(set.metadata.instructionCounter ?? "callgrind") over the"
            out += " measured region only, for the benchmarks that declare an instruction pass: a count, not a"
            out += " time, that repeats exactly from run to run. The gate holds lockfree's.\n"
        } else if let note = set.metadata.instructionNote {
            out += "\nInstruction counts are unavailable: \(note).\n"
        }
        let pictures = charts.filter { $0.group == group }
        if !pictures.isEmpty {
            out += "\n## Charts\n\n" + pictures.map { "![\($0.title)](\($0.fileName))\n\n" }.joined()
        }
        out += "\n## Benchmarks\n\n" + own.benchmarkNames.map { details(own, $0) }.joined()
        return out
    }

    /// Every contender of `set` (one group's results) side by side: p50 / p99 time, then mallocs,
    /// invalidations and (where counted) instructions per operation, then the reference against
    /// each other contender (`ResultSet.comparison`), moderated by the whole run's
    /// `pooledVariance`.
    static func overview(_ set: ResultSet, pooledVariance pooled: Double?) -> String {
        let names = set.benchmarkNames
        let contenders = set.contenders
        let reference = set.referenceContender
        let others = set.compared(with: reference)
        let list = contenders.joined(separator: " / ")
        let counted = set.hasInstructions ? [Metric.instructions] : []
        var header = ["benchmark"] + contenders.map { "\($0) p50 / p99" }
        header +=
            ["mallocs/op (\(list))", "invalidations/op (\(list))"] + counted.map { _ in "instructions/op (\(list))" }
        if let reference { header += others.map { "\(reference) ÷ \($0) (instructions; p50 time, 95% interval)" } }
        let rows = names.map { name -> [String] in
            var row = [name]
            for c in contenders {
                guard let r = set.result(name, c) else {
                    row.append("–")
                    continue
                }
                if r.failure != nil {
                    row.append("FAILED")
                    continue
                }
                row.append(
                    r.metric(Metric.time).map {
                        NumberFormat.duration($0.summary.p50) + " / " + NumberFormat.duration($0.summary.p99)
                    } ?? "n/a")
            }
            for metric in [Metric.mallocs, Metric.invalidations] + counted {
                if metric == Metric.instructions
                    && !contenders.contains(where: { set.result(name, $0)?.metric(metric) != nil })
                {
                    row.append("")
                    continue
                }
                row.append(
                    contenders.map { c in
                        guard let r = set.result(name, c) else { return "–" }
                        return r.metric(metric).map { NumberFormat.readable($0.summary.p50) } ?? "n/a"
                    }.joined(separator: " / "))
            }
            if let reference {
                row += others.map { set.comparison(name, reference, $0, pooledVariance: pooled) }
            }
            return row
        }
        return MarkdownTable(header: header, rows: rows, rightAligned: Set(1..<header.count)).text
    }

    /// One benchmark's percentiles of every metric on every contender, folded.
    static func details(_ set: ResultSet, _ name: String) -> String {
        let header = [
            "contender", "metric", "unit", "samples", "p0", "p25", "p50", "p75", "p90", "p99", "p100", "mean",
            "95% CI of p50",
        ]
        var rows: [[String]] = []
        for r in set.results where r.benchmark == name {
            for m in r.metrics {
                let s = m.summary
                let n = NumberFormat.readable
                let ci = s.ciLow.flatMap { low in s.ciHigh.map { "\(n(low)) … \(n($0))" } } ?? ""
                rows.append([
                    r.contender, m.name, m.unit, String(s.samples), n(s.p0), n(s.p25), n(s.p50), n(s.p75), n(s.p90),
                    n(s.p99), n(s.p100), n(s.mean), ci,
                ])
            }
            if let failure = r.failure {
                rows.append([r.contender, "FAILED", "", "", "", "", "", "", "", "", "", "", failure])
            }
        }
        let table = MarkdownTable(header: header, rows: rows, rightAligned: Set(3..<header.count - 1)).text
        return "<details><summary><code>\(name)</code></summary>\n\n" + table + "\n</details>\n\n"
    }
}
