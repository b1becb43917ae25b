/// `report.md`, the page a reviewer reads in one sitting: a summary table of at most eight columns
/// (`summary`), the charts, the render-cost crossover, thread scaling, the outside probe, what
/// bridging to Observation costs (`BridgeCost`), allocations, and the run's metadata with the command that reproduces it. Every benchmark's full
/// figures (each contender, metric and percentile) are on its group's page (`GroupReport`),
/// linked from the top. Charts are referenced by file name (see `ChartSet`); pass the names that
/// were written.
public enum ReportFormat {
    public static let fileName = "report.md"

    /// The contenders the summary shows, where they ran: the suite's registrar, Apple's, and the
    /// one that invalidates every view on every change.
    public static let featured = [Crossover.fineGrained, Gate.ratioDenominator, Crossover.publishEverything]

    /// The summary's ratio columns, numerator first: how many times faster `lockfree` is than
    /// Apple's registrar, and what fine-grained observation costs or saves against `naive`.
    public static let ratios = [
        (numerator: Gate.ratioDenominator, denominator: Crossover.fineGrained),
        (numerator: Crossover.fineGrained, denominator: Crossover.publishEverything),
    ]

    public static func format(_ set: ResultSet, charts: [ChartSet.Chart] = []) -> String {
        var out = "# Benchmark results\n\n" + measured(set.metadata) + completeness(set.metadata)
        let groups = groups(set)
        out += "Every benchmark's figures on every contender (each percentile, allocations, instructions): "
        out += groups.map { "[\($0)](\(GroupReport.fileName($0)))" }.joined(separator: " · ") + ".\n\n"
        out += failures(set.results)
        out += "## Summary\n\n" + summary(set) + "\n" + summaryNotes(set)
        out += chartSection(charts, groups: groups)
        out += Crossover.section(set)
        out += ThreadScaling.section(set)
        out += Probe.section(set)
        out += BridgeCost.section(set)
        out += allocations(set)
        out += "\n## Run\n\n" + metadata(set.metadata)
        return out
    }

    /// The line under a page's title: when, where, with what.
    static func measured(_ m: RunMetadata) -> String {
        "Measured \(m.date) on \(m.cpu) (\(m.cores) cores), Swift \(m.toolchain), \(m.allocator), mode `\(m.mode)`.\n\n"
    }

    /// Whether the run was interrupted, and what it left out; each `--resume` that completed it.
    static func completeness(_ m: RunMetadata) -> String {
        var out = ""
        if let interrupted = m.interrupted {
            var parts: [String] = []
            if !interrupted.partial.isEmpty {
                parts.append(
                    "\(interrupted.partial.count) benchmark(s) timed in fewer than its \(interrupted.rounds) rounds, "
                        + "their figures from those rounds alone and not counted: "
                        + interrupted.partial.map { "`\($0.benchmark)` (\($0.rounds))" }.joined(separator: ", "))
            }
            if !interrupted.notMeasured.isEmpty {
                parts.append(
                    "\(interrupted.notMeasured.count) benchmark(s) not measured: "
                        + interrupted.notMeasured.map { "`\($0)`" }.joined(separator: ", "))
            }
            let instructions = interrupted.instructionsNotCounted
            if !instructions.isEmpty {
                parts.append(
                    "instructions not counted for \(instructions.count) run(s): "
                        + instructions.map { "`\($0)`" }.joined(separator: ", "))
            }
            out += "**Interrupted by \(interrupted.signal)**: "
            out += parts.isEmpty ? "every benchmark was measured" : parts.joined(separator: "; ")
            out += ". Complete it with `bench run --resume` and this folder.\n\n"
        }
        for resume in m.resumed ?? [] {
            out += "Resumed \(resume.date) (`\(resume.command.map(shellQuoted).joined(separator: " "))`): measured "
            out += "\(resume.measured.count) benchmark(s) in the rounds they lacked, each round's contenders together"
            if let counted = resume.instructionsCounted {
                out += ", and counted the instructions of \(counted.count) run(s) measured before"
            }
            out += ".\n\n"
        }
        return out
    }

    static func failures(_ results: [BenchmarkResult]) -> String {
        let failed = results.filter { $0.failure != nil }
        guard !failed.isEmpty else { return "" }
        return "**\(failed.count) failed:**\n\n"
            + failed.map { "- `\($0.benchmark)` on `\($0.contender)`: \($0.failure!)\n" }.joined() + "\n"
    }

    static func groupName(_ benchmark: String) -> String {
        String(benchmark.split(separator: "/", maxSplits: 1).first ?? Substring(benchmark))
    }

    static func groups(_ set: ResultSet) -> [String] {
        var seen = Set<String>()
        return set.benchmarkNames.map(groupName).filter { seen.insert($0).inserted }
    }

    /// The contenders the summary shows: `featured` where they ran, else the first three observing
    /// contenders.
    static func summaryContenders(_ set: ResultSet) -> [String] {
        let ran = set.contenders
        let shown = featured.filter(ran.contains)
        return shown.isEmpty ? Array(ran.filter { $0 != Benchmark.floorContender }.prefix(3)) : shown
    }

    /// The summary table: per benchmark that a shown contender ran, invalidations per operation,
    /// each shown contender's p50 time, the `ratios` whose contenders both ran, and the verdict of
    /// the reference against the others. The verdict column is left out when no ratio has an
    /// interval to read it from (`hasVerdicts`).
    public static func summary(_ set: ResultSet) -> String {
        let shown = summaryContenders(set)
        let ratios = Self.ratios.filter { shown.contains($0.numerator) && shown.contains($0.denominator) }
        let pooled = set.pooledRoundVariance(reference: set.referenceContender)
        let verdicts = verdicts(set)
        let withVerdict = hasVerdicts(set)
        let header =
            ["benchmark", "invalidations/op (\(shown.joined(separator: " / ")))"]
            + shown.map { "\($0) p50" } + ratios.map { "\($0.numerator) ÷ \($0.denominator)" }
            + (withVerdict ? ["verdict"] : [])
        let rows = summarized(set).map { name -> [String] in
            func cell(_ c: String, _ metric: Metric, _ text: (Double) -> String) -> String {
                guard let r = set.result(name, c) else { return "–" }
                if r.failure != nil { return "FAILED" }
                return r.metric(metric).map { text($0.summary.p50) } ?? "n/a"
            }
            let invalidations = shown.map { cell($0, Metric.invalidations, NumberFormat.readable) }
            let ratioCells = ratios.map { pair in
                set.timeRatio(name, pair.numerator, pair.denominator, pooledVariance: pooled).map(NumberFormat.ratio)
                    ?? ""
            }
            return [name, Set(invalidations).count == 1 ? invalidations[0] : invalidations.joined(separator: " / ")]
                + shown.map { cell($0, Metric.time, NumberFormat.duration) } + ratioCells
                + (withVerdict ? [verdicts[name]?.text ?? ""] : [])
        }
        let textColumns = withVerdict ? [0, header.count - 1] : [0]
        return MarkdownTable(header: header, rows: rows, rightAligned: Set(header.indices).subtracting(textColumns))
            .text
    }

    /// The reference's verdict against the other summary contenders, per benchmark.
    static func verdicts(_ set: ResultSet) -> [String: Verdict] {
        let shown = summaryContenders(set)
        guard let reference = set.referenceContender.flatMap({ shown.contains($0) ? $0 : nil }) ?? shown.first else {
            return [:]
        }
        let pooled = set.pooledRoundVariance(reference: set.referenceContender)
        var verdicts: [String: Verdict] = [:]
        for name in summarized(set) {
            verdicts[name] = Verdict.of(reference, against: shown, on: name, in: set, pooledVariance: pooled)
        }
        return verdicts
    }

    /// Whether the summary has a verdict column: some ratio has an interval.
    static func hasVerdicts(_ set: ResultSet) -> Bool {
        verdicts(set).values.contains { $0.outcomes.contains { $0.outcome != .undecided } }
    }

    /// The benchmarks the summary has a row for: those a summary contender ran.
    static func summarized(_ set: ResultSet) -> [String] {
        let shown = summaryContenders(set)
        return set.benchmarkNames.filter { name in shown.contains { set.result(name, $0) != nil } }
    }

    static func summaryNotes(_ set: ResultSet) -> String {
        let shown = summaryContenders(set)
        var out = "Times are per operation, p50; `–`: not run for that contender. One invalidation figure where the"
        out += " contenders agree. "
        out += ratioNote
        if hasVerdicts(set) {
            out += " The verdict reads those intervals: a contender is faster where its ratio's interval lies wholly"
            out += " below 1, within noise where it holds 1.\n"
        } else if !verdicts(set).isEmpty {
            out += " No verdict: no ratio here has an interval (a results.json keeps summaries, not the samples of each"
            out += " process; render from the samples.json of a run with --keep-samples, or from a run of more than two"
            out += " rounds, for intervals and verdicts).\n"
        } else {
            out += "\n"
        }
        let hidden = set.contenders.filter { !shown.contains($0) }
        if !hidden.isEmpty {
            let listed = Set(summarized(set))
            let left = set.benchmarkNames.filter { !listed.contains($0) }
            out +=
                "\nThe other contenders (" + hidden.map { "`\($0)`" }.joined(separator: ", ")
                + ") are on the group pages"
            out +=
                left.isEmpty
                ? ".\n"
                : ", as are the benchmarks only they ran (" + left.map { "`\($0)`" }.joined(separator: ", ") + ").\n"
        }
        if let note = set.metadata.allocationNote { out += "\nAllocation metrics are unavailable: \(note).\n" }
        return out
    }

    /// How the time ratios and their intervals are computed.
    static var ratioNote: String {
        "Ratios pair the contenders' timing processes round by round (they alternate): the geometric mean of the"
            + " rounds' ratios of medians, with a 95% repeat interval (where a repeat run's ratio falls: a t interval"
            + " over the rounds, √2 wider than a confidence interval, its variance moderated by the run's pooled"
            + " variance of round ratios with \(RatioEstimate.priorDegrees) degrees of freedom; none from two rounds,"
            + " as in --quick); with a single process, the ratio of the medians with a conservative 95% interval"
            + " (order-statistic intervals of both at 97.5%, by Bonferroni)."
    }

    /// Each group's charts, folded, so that the page stays short.
    static func chartSection(_ charts: [ChartSet.Chart], groups: [String]) -> String {
        guard !charts.isEmpty else { return "" }
        var out = "\n## Charts\n"
        for group in groups {
            let own = charts.filter { $0.group == group }
            guard !own.isEmpty else { continue }
            out += "\n<details><summary>\(group): \(own.count) chart\(own.count == 1 ? "" : "s")</summary>\n\n"
            out += own.map { "![\($0.title)](\($0.fileName))\n\n" }.joined() + "</details>\n"
        }
        return out
    }

    /// Mallocs per operation of the summary's contenders, for the benchmarks where one allocates;
    /// empty when allocations were not counted.
    static func allocations(_ set: ResultSet) -> String {
        let shown = summaryContenders(set)
        let names = set.benchmarkNames.filter { name in
            shown.contains { set.result(name, $0)?.metric(Metric.mallocs) != nil }
        }
        guard !names.isEmpty else { return "" }
        func mallocs(_ name: String, _ c: String) -> Double? {
            set.result(name, c).flatMap { $0.failure == nil ? $0.metric(Metric.mallocs)?.summary.p50 : nil }
        }
        let allocating = names.filter { name in shown.contains { (mallocs(name, $0) ?? 0) > 0 } }
        let counts = shown.map { c in
            "`\(c)` in \(names.filter { (mallocs($0, c) ?? 0) > 0 }.count)"
        }
        var out = "\n## Allocations\n\n"
        out +=
            "Benchmarks that allocate per operation, of the \(names.count) counted: " + counts.joined(separator: ", ")
            + ".\n"
        guard !allocating.isEmpty else { return out }
        let rows = allocating.map { name in
            [name]
                + shown.map { c in
                    guard let r = set.result(name, c) else { return "–" }
                    if r.failure != nil { return "FAILED" }
                    return r.metric(Metric.mallocs).map { NumberFormat.readable($0.summary.p50) } ?? "n/a"
                }
        }
        out += "\n<details><summary>mallocs per operation (p50) where a contender allocates</summary>\n\n"
        out += MarkdownTable(header: ["benchmark"] + shown, rows: rows, rightAligned: Set(1...shown.count)).text
        return out + "\n</details>\n"
    }

    static func metadata(_ m: RunMetadata) -> String {
        var rows = [
            ["date", m.date], ["machine", m.machine], ["cpu", m.cpu], ["cores", String(m.cores)],
            ["toolchain", m.toolchain], ["swift on PATH", m.toolchainOnPath], ["allocator", m.allocator],
            ["instructions", m.instructionCounter ?? "unavailable: \(m.instructionNote ?? "not counted")"],
            ["git commit", m.gitCommit], ["mode", m.mode], ["command", m.commandLine],
        ]
        let interrupted = m.interrupted.map {
            [["interrupted", "by \($0.signal), \($0.notMeasured.count) benchmark(s) not measured"]]
        }
        let resumed = (m.resumed ?? []).map { ["resumed", "\($0.date), \($0.measured.count) benchmark(s)"] }
        rows += (interrupted ?? []) + resumed
        // `command` is already as a user reruns it (`MetadataCollector.reproducible`).
        let reproduce = m.command.map(shellQuoted)
        return MarkdownTable(header: ["", ""], rows: rows).text
            + "\nReproduce with:\n\n```sh\n\(reproduce.joined(separator: " "))\n```\n"
    }
}
