/// `report.md`: a headline table, a section per workload group with every percentile and count,
/// then the run's metadata and the command that reproduces it. Charts are referenced by file name
/// (see `ChartSet`); pass the names that were written.
public enum ReportFormat {
    public static func format(_ set: ResultSet, charts: [ChartSet.Chart] = []) -> String {
        var out = "# Benchmark results\n\n"
        out += "Measured \(set.metadata.date) on \(set.metadata.cpu) (\(set.metadata.cores) cores), "
        out += "Swift \(set.metadata.toolchain), \(set.metadata.allocator), mode `\(set.metadata.mode)`.\n\n"
        let failures = set.results.filter { $0.failure != nil }
        if !failures.isEmpty {
            out += "**\(failures.count) failed:**\n\n"
            for f in failures { out += "- `\(f.benchmark)` on `\(f.contender)`: \(f.failure!)\n" }
            out += "\n"
        }
        out += "## Headline\n\n" + headline(set)
        out += "\nTimes are per operation: p50 / p99; `–`: not run for that contender. Ratios pair the contenders'"
        out += " timing processes round by round (they alternate): the geometric mean of the rounds' ratios of"
        out += " medians, with a 95% repeat interval (where a repeat run's ratio falls: a t interval over the rounds,"
        out += " √2 wider than a confidence interval, its variance moderated by the run's pooled variance of round ratios"
        out += " with \(RatioEstimate.priorDegrees) degrees of freedom; none from two rounds, as in --quick); with a single process, the ratio of the medians"
        out += " with a conservative 95% interval (order-statistic intervals of both at 97.5%, by Bonferroni)."
        out += " Below ratio 1 the reference is faster.\n"
        if let note = set.metadata.allocationNote { out += "\nAllocation metrics are unavailable: \(note).\n" }
        if set.hasInstructions {
            out += "\nInstructions per operation are counted by \(set.metadata.instructionCounter ?? "callgrind") over the"
            out += " measured region only, for the benchmarks that declare an instruction pass: a count, not a"
            out += " time, that repeats exactly from run to run. The gate holds lockfree's.\n"
        } else if let note = set.metadata.instructionNote {
            out += "\nInstruction counts are unavailable: \(note).\n"
        }

        for group in groups(set) {
            out += "\n## \(group)\n\n"
            for chart in charts where chart.group == group {
                out += "![\(chart.title)](\(chart.fileName))\n\n"
            }
            for name in set.benchmarkNames where groupName(name) == group {
                out += details(set, name)
            }
        }
        out += Crossover.section(set)
        out += ThreadScaling.section(set)
        out += Probe.section(set)
        out += "\n## Run\n\n" + metadata(set.metadata)
        return out
    }

    static func groupName(_ benchmark: String) -> String {
        String(benchmark.split(separator: "/", maxSplits: 1).first ?? Substring(benchmark))
    }

    static func groups(_ set: ResultSet) -> [String] {
        var seen = Set<String>()
        return set.benchmarkNames.map(groupName).filter { seen.insert($0).inserted }
    }

    static func headline(_ set: ResultSet) -> String {
        let contenders = set.contenders
        let reference = set.referenceContender
        // Ratio columns only for contenders that share a benchmark with the reference.
        let others = set.compared(with: reference)
        let pooled = set.pooledRoundVariance(reference: reference)
        let list = contenders.joined(separator: " / ")
        var header = ["benchmark"] + contenders.map { "\($0) p50 / p99" }
        let counted = set.hasInstructions ? [MetricName.instructions] : []
        header += ["mallocs/op (\(list))", "invalidations/op (\(list))"] + counted.map { _ in "instructions/op (\(list))" }
        if let reference { header += others.map { "\(reference) ÷ \($0) (instructions; p50 time, 95% interval)" } }
        let rows = set.benchmarkNames.map { name -> [String] in
            var row = [name]
            for c in contenders {
                guard let r = set.result(name, c) else { row.append("–"); continue }
                if r.failure != nil { row.append("FAILED"); continue }
                row.append(
                    r.metric(MetricName.time).map {
                        NumberFormat.duration($0.summary.p50) + " / " + NumberFormat.duration($0.summary.p99)
                    } ?? "n/a")
            }
            for metric in [MetricName.mallocs, MetricName.invalidations] + counted {
                if !contenders.contains(where: { set.result(name, $0)?.metric(metric) != nil }) && metric == MetricName.instructions {
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

    static func details(_ set: ResultSet, _ name: String) -> String {
        let header = ["contender", "metric", "unit", "samples", "p0", "p25", "p50", "p75", "p90", "p99", "p100", "mean", "95% CI of p50"]
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
            if let failure = r.failure { rows.append([r.contender, "FAILED", "", "", "", "", "", "", "", "", "", "", failure]) }
        }
        let table = MarkdownTable(header: header, rows: rows, rightAligned: Set(3..<header.count - 1)).text
        return "<details><summary><code>\(name)</code></summary>\n\n" + table + "\n</details>\n\n"
    }

    static func metadata(_ m: RunMetadata) -> String {
        let rows = [
            ["date", m.date], ["machine", m.machine], ["cpu", m.cpu], ["cores", String(m.cores)],
            ["toolchain", m.toolchain], ["swift on PATH", m.toolchainOnPath], ["allocator", m.allocator],
            ["instructions", m.instructionCounter ?? "unavailable: \(m.instructionNote ?? "not counted")"],
            ["git commit", m.gitCommit], ["mode", m.mode], ["command", m.commandLine],
        ]
        // `command` is already as a user reruns it (`MetadataCollector.reproducible`).
        let reproduce = m.command.map(shellQuoted)
        return MarkdownTable(header: ["", ""], rows: rows).text
            + "\nReproduce with:\n\n```sh\n\(reproduce.joined(separator: " "))\n```\n"
    }
}
