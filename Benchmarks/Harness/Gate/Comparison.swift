import Foundation

/// `bench compare A B`: what the two result sets are, what changed (every kind of figure, each by
/// its own rule), failures that appeared or disappeared, benchmarks on one side only, how changes
/// are called and what this comparison could detect, then every figure both have.
public enum Comparison {
    /// How a kind of figure is judged.
    enum Kind: Int, CaseIterable {
        /// Invalidation counts and a workload's values: any difference.
        case counts
        /// Mallocs per operation: beyond the gate's tolerance.
        case allocations
        /// Bytes per operation, retained bytes, bytes per consumer: beyond `memoryFactor` and
        /// `memoryBytes`.
        case memory
        /// Instructions per operation: beyond the gate's factor.
        case instructions
        /// Sampled times (`time`, `latency`): `ChangeTest`.
        case times
        /// One timing value per run (`setup-time`, `latency-p99.9`, `probe-time`,
        /// `delivered-per-write`): beyond `singleTimingFactor` (`deliveredTolerance`).
        case singleTimings

        var title: String {
            switch self {
            case .counts: "Counts (held exactly)"
            case .allocations: "Allocations"
            case .memory: "Memory"
            case .instructions: "Instructions"
            case .times: "Times"
            case .singleTimings: "Single timing values"
            }
        }

        var noun: String {
            switch self {
            case .counts: "count"
            case .allocations: "allocation figure"
            case .memory: "memory figure"
            case .instructions: "instruction count"
            case .times: "time"
            case .singleTimings: "single timing value"
            }
        }

        static func of(_ metric: Metric) -> Kind {
            if metric.isExact { return .counts }
            if metric == .mallocs || metric == .probeMallocs { return .allocations }
            if metric.unit == "bytes" { return .memory }
            if metric == .instructions { return .instructions }
            if metric.aggregation == .samples { return .times }
            return .singleTimings
        }
    }

    /// A memory figure changes when it moves by more than this factor and by more than `memoryBytes`.
    static let memoryFactor = 1.1
    static let memoryBytes = 64.0
    /// A timing value measured once per run (no process spread to judge it by) changes beyond this
    /// factor: between two runs of the same code on a machine left alone, setup times moved by up
    /// to 1.63x. `delivered-per-write`, a ratio near 1, beyond `deliveredTolerance`.
    static let singleTimingFactor = 2.0
    static let deliveredTolerance = 0.1

    /// One figure that changed: `ratio` is new / old, `interval` the simultaneous interval of a
    /// time (`nil` for the others, `why` then says the rule).
    struct Change {
        var benchmark: String
        var contender: String
        var metric: Metric
        var old: Double
        var new: Double
        var ratio: Double
        var interval: ClosedRange<Double>?
        var why: String

        /// How far the change goes, either way: what each list is sorted by.
        var size: Double { ratio > 0 && ratio.isFinite ? abs(log(ratio)) : .infinity }
    }

    /// The comparison of `old` and `new`, judged with `thresholds` (the gate's tolerances, with what
    /// the suite's benchmarks declare of their threads: `Thresholds.declaring`).
    public static func format(
        old: ResultSet, new: ResultSet, oldName: String = "old", newName: String = "new",
        thresholds: Thresholds = Thresholds()
    ) -> String {
        var rows: [[String]] = []
        var changes: [Kind: [Change]] = [:]
        var compared: [Kind: Int] = [:]
        var timeFigures: [(Change, ChangeTest.Figure)] = []
        var notJudged = 0
        var failures: [[String]] = []
        for n in new.results {
            guard let o = old.result(n.benchmark, n.contender) else { continue }
            if o.failure != n.failure {
                let state =
                    o.failure == nil ? "appeared" : n.failure == nil ? "disappeared" : "changed"
                failures.append([n.benchmark, n.contender, state, o.failure ?? "", n.failure ?? ""])
            }
            for nm in n.metrics {
                guard let om = o.metric(nm.metric) else { continue }
                rows.append(row(n.benchmark, n.contender, old: om, new: nm))
                guard o.failure == nil && n.failure == nil else { continue }
                let a = om.summary.p50
                let b = nm.summary.p50
                guard a.isFinite, b.isFinite else { continue }
                let kind = Kind.of(nm.metric)
                // A benchmark that runs threads of its own (it declares so) has its times and memory
                // set by how the scheduler places them on these 2 cores, and by the machine's load:
                // a process whose threads share one core is thousands of times slower. Not judged.
                if let timing = thresholds.declared["\(n.benchmark)@\(n.contender)"], timing.runsThreads,
                    [.times, .singleTimings, .memory].contains(kind)
                {
                    notJudged += 1
                    continue
                }
                compared[kind, default: 0] += 1
                let ratio = a == 0 ? (b == 0 ? 1 : .infinity) : b / a
                let change = Change(
                    benchmark: n.benchmark, contender: n.contender, metric: nm.metric, old: a, new: b, ratio: ratio,
                    interval: nil, why: "")
                if kind == .times {
                    timeFigures.append(
                        (change, ChangeTest.Figure(old: ChangeTest.logMedians(om), new: ChangeTest.logMedians(nm))))
                } else if let why = beyondRule(
                    kind, nm.metric, old: a, new: b, benchmark: n.benchmark, contender: n.contender,
                    thresholds: thresholds)
                {
                    var called = change
                    called.why = why
                    changes[kind, default: []].append(called)
                }
            }
        }
        let (verdicts, noise) = ChangeTest().evaluate(timeFigures.map(\.1))
        for ((change, _), verdict) in zip(timeFigures, verdicts) {
            guard let verdict, verdict.changed else { continue }
            var called = change
            called.ratio = verdict.ratio
            called.interval = verdict.interval
            changes[.times, default: []].append(called)
        }
        let onlyOld = only(old, notIn: new)
        let onlyNew = only(new, notIn: old)

        var out = "# bench compare\n\n"
        out += describe(oldName, old, as: "Old") + describe(newName, new, as: "New")
        out += machineNote(old.metadata, new.metadata)
        out += "\n" + headline(changes, compared: compared, failures: failures, onlyOld: onlyOld, onlyNew: onlyNew)
        out += "\n## Changed\n\n"
        if changes.values.allSatisfy(\.isEmpty) {
            out += "Nothing changed beyond noise or tolerance (\(rows.count) figures compared).\n"
        }
        for kind in Kind.allCases {
            guard var list = changes[kind], !list.isEmpty else { continue }
            list.sort { $0.size > $1.size }
            out += "\n### \(kind.title): \(list.count) of \(compared[kind] ?? 0), largest change first\n\n"
            out += changeTable(list, kind: kind)
        }
        if !failures.isEmpty {
            out += "\n## Failures\n\n"
            out +=
                MarkdownTable(header: ["benchmark", "contender", "failure", "old", "new"], rows: failures).text
        }
        if !onlyOld.isEmpty || !onlyNew.isEmpty {
            out += "\n## On one side only\n\n"
            if !onlyOld.isEmpty { out += "Only in old (\(onlyOld.count)): " + listed(onlyOld) + "\n" }
            if !onlyNew.isEmpty { out += "Only in new (\(onlyNew.count)): " + listed(onlyNew) + "\n" }
        }
        out += "\n" + rules(noise, thresholds: thresholds, notJudged: notJudged)
        let all = MarkdownTable(
            header: ["benchmark", "contender", "metric", "old", "new", "delta", "ratio"], rows: rows,
            rightAligned: [3, 4, 5, 6]
        ).text
        return out + "\n## Every figure\n\n" + all
            + "\nValues are p50. \"(?)\" marks sampled metrics whose p25..p75 ranges overlap.\n"
    }

    /// One line about a result set: where it comes from, and whether it is whole.
    static func describe(_ name: String, _ set: ResultSet, as label: String) -> String {
        let m = set.metadata
        var line =
            "\(label): \(name): commit \(m.gitCommit), \(m.date), \(m.host ?? m.machine) (\(m.cpu), \(m.cores) cores), "
            + "mode \(m.mode), \(set.results.count) results"
        if let interrupted = m.interrupted {
            line +=
                "; **interrupted by \(interrupted.signal)** (\(interrupted.notMeasured.count) benchmark(s) not measured, "
                + "\(interrupted.partial.count) in fewer rounds)"
        }
        if let resumed = m.resumed, !resumed.isEmpty { line += "; completed by \(resumed.count) resume(s)" }
        return line + "\n"
    }

    /// A warning where the two sets come from different machines: their times and instruction counts
    /// compare the machines as much as the code.
    static func machineNote(_ a: RunMetadata, _ b: RunMetadata) -> String {
        guard a.host != b.host || a.cpu != b.cpu || a.cores != b.cores || a.machine != b.machine else { return "" }
        return "\n**Measured on different machines**: times (and instruction counts, where the toolchain or "
            + "libraries differ) compare the machines as much as the code; counts and allocations compare the code.\n"
    }

    /// The first lines after the header: what changed, in one sentence.
    static func headline(
        _ changes: [Kind: [Change]], compared: [Kind: Int], failures: [[String]], onlyOld: [String], onlyNew: [String]
    ) -> String {
        var parts = Kind.allCases.compactMap { kind -> String? in
            guard let count = changes[kind]?.count, count > 0 else { return nil }
            return "\(count) \(kind.noun)\(count == 1 ? "" : "s")"
        }
        let total = changes.values.reduce(0) { $0 + $1.count }
        var line =
            total == 0
            ? "**Nothing changed** beyond noise or tolerance" : "**Changed**: " + parts.joined(separator: ", ")
        parts = []
        let appeared = failures.filter { $0[2] == "appeared" }.count
        let disappeared = failures.filter { $0[2] == "disappeared" }.count
        if appeared > 0 { parts.append("\(appeared) failure(s) appeared") }
        if disappeared > 0 { parts.append("\(disappeared) failure(s) disappeared") }
        if !onlyOld.isEmpty { parts.append("\(onlyOld.count) result(s) only in old") }
        if !onlyNew.isEmpty { parts.append("\(onlyNew.count) only in new") }
        if !parts.isEmpty { line += "; " + parts.joined(separator: ", ") }
        return line + " (\(compared.values.reduce(0, +)) figures compared).\n"
    }

    /// Why a figure of `kind` (not a time) changed, or `nil` within its rule.
    static func beyondRule(
        _ kind: Kind, _ metric: Metric, old a: Double, new b: Double, benchmark: String, contender: String,
        thresholds: Thresholds
    ) -> String? {
        switch kind {
        case .counts:
            // Counts that vary with thread timing by design are not held (as the gate does not).
            if thresholds.countsAreNondeterministic(benchmark, contender: contender) { return nil }
            return a == b ? nil : "exact"
        case .allocations:
            let tolerance = thresholds.mallocTolerance(for: benchmark, contender: contender)
            return abs(b - a) > tolerance ? "beyond ±\(NumberFormat.plain(tolerance))" : nil
        case .memory:
            let ratio = a > 0 ? b / a : (b > 0 ? .infinity : 1)
            return abs(b - a) > memoryBytes && (ratio > memoryFactor || ratio < 1 / memoryFactor)
                ? "beyond ×\(NumberFormat.plain(memoryFactor)) and \(Int(memoryBytes)) B" : nil
        case .instructions:
            let factor = thresholds.instructionTolerance(for: benchmark)
            let ratio = a > 0 ? b / a : 1
            return a > 0 && (ratio > factor || ratio < 1 / factor) ? "beyond ×\(NumberFormat.plain(factor))" : nil
        case .singleTimings:
            if metric == .deliveredPerWrite {
                return abs(b - a) > deliveredTolerance ? "beyond ±\(NumberFormat.plain(deliveredTolerance))" : nil
            }
            let ratio = a > 0 ? b / a : 1
            return a > 0 && (ratio > singleTimingFactor || ratio < 1 / singleTimingFactor)
                ? "beyond ×\(NumberFormat.plain(singleTimingFactor))" : nil
        case .times:
            return nil
        }
    }

    static func changeTable(_ list: [Change], kind: Kind) -> String {
        let rows = list.map { c -> [String] in
            let value = value(c.metric)
            let rule = c.interval.map { "\(ratioText($0.lowerBound)) … \(ratioText($0.upperBound))" } ?? c.why
            return [c.benchmark, c.contender, c.metric.name, value(c.old), value(c.new), ratioText(c.ratio), rule]
        }
        let last = kind == .times ? "simultaneous 95% interval" : "rule"
        return MarkdownTable(
            header: ["benchmark", "contender", "metric", "old", "new", "new ÷ old", last], rows: rows,
            rightAligned: [3, 4, 5]
        ).text
    }

    /// How each kind is called, with what this comparison's time figures could detect.
    static func rules(_ noise: ChangeTest.Noise, thresholds: Thresholds, notJudged: Int) -> String {
        var out = "## How changes are called\n\n"
        out += "- Counts and a workload's values: any difference (but where a benchmark declares that its counts "
        out += "vary with thread timing). Mallocs: beyond ±\(NumberFormat.plain(thresholds.mallocTolerance)) per "
        out += "operation, or the benchmark's own tolerance (the gate's). Memory: "
        out += "beyond ×\(NumberFormat.plain(memoryFactor)) and \(Int(memoryBytes)) bytes. Instructions: beyond ×"
        out += "\(NumberFormat.plain(thresholds.instructionTolerance)).\n"
        let percent = { (x: Double) in String(format: "%.0f%%", x * 100) }
        out += "- A timing value measured once per run (setup time, a latency's 99.9th percentile, the probe's "
        out +=
            "time), which has no spread of its own to be judged by: beyond ×\(NumberFormat.plain(singleTimingFactor)); "
        out += "values delivered per write: beyond ±\(NumberFormat.plain(deliveredTolerance)).\n"
        if noise.figures > 0 {
            out += "- Times (\(noise.figures) figures, a median of \(NumberFormat.plain(noise.processesPerSide)) "
            out += "timing process(es) a side): the median log of each process's median, against a noise model "
            out += "fitted to this comparison: spread between processes \(percent(noise.withinRun.squareRoot())), "
            out += "between runs \(percent(noise.betweenRuns.squareRoot())) (standard deviations of the log). One is "
            out += "called changed when its simultaneous 95% interval (Bonferroni over the \(noise.figures): two runs "
            out += "of the same code list one in at most 1 comparison in 20) excludes 1 and it moved by at least 5%. "
            out += "Here a typical one is called from a change of \(percent(noise.smallestCalled)), and 8 times in 10 "
            out += "from \(percent(noise.calledMostly)); a smaller change reads as noise.\n"
        }
        if notJudged > 0 {
            out += "- Not judged: \(notJudged) times and memory figures of benchmarks that run threads of their own "
            out += "(they move with where the scheduler puts the threads and with the machine's load); listed "
            out += "under Every figure.\n"
        }
        return out + "- Instruction counts, where counted, see far smaller changes than times.\n"
    }

    /// `benchmark on contender` of each result of `a` that `b` lacks.
    static func only(_ a: ResultSet, notIn b: ResultSet) -> [String] {
        a.results.filter { b.result($0.benchmark, $0.contender) == nil }.map { "\($0.benchmark) on \($0.contender)" }
    }

    static func listed(_ names: [String]) -> String {
        names.prefix(10).joined(separator: ", ") + (names.count > 10 ? ", and \(names.count - 10) more" : "")
    }

    static func row(_ benchmark: String, _ contender: String, old om: MetricResult, new nm: MetricResult) -> [String] {
        let a = om.summary
        let b = nm.summary
        let overlap = a.samples > 1 && b.samples > 1 && a.p25 <= b.p75 && b.p25 <= a.p75
        let value = value(nm.metric)
        let delta = b.p50 - a.p50
        let ratio = a.p50 == 0 ? (b.p50 == 0 ? "1.00" : "∞") : String(format: "%.2f", b.p50 / a.p50)
        return [
            benchmark, contender, nm.name, value(a.p50), value(b.p50), (delta > 0 ? "+" : "") + value(delta),
            ratio + (overlap ? " (?)" : ""),
        ]
    }

    static func value(_ metric: Metric) -> (Double) -> String {
        if metric.unit == "ns" { return { NumberFormat.duration($0) } }
        return { NumberFormat.readable($0) }
    }

    static func ratioText(_ ratio: Double) -> String {
        ratio.isFinite ? String(format: "%.2f", ratio) : "∞"
    }
}
