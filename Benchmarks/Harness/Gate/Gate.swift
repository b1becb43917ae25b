/// The regression gate: a pure decision on two result sets and the thresholds.
///
/// - Count metrics (`Metric.counts`) must equal the baseline's exactly: more is a regression,
///   fewer an improvement. A workload's extra metrics (unit `value`, e.g. the grid's `sum` and
///   `count`) are deterministic results: any change is a regression.
/// - `mallocs` per operation may move by the benchmark's absolute tolerance.
/// - Speed: where both runs counted instructions (callgrind), `lockfree`'s instructions per
///   operation are gated against the baseline's within `instructionTolerance`, and the time ratio
///   is not. A count, not a ratio: the baseline is refused unless it comes from the same toolchain
///   and allocator, and `apple`'s count is no stable denominator. Its registrar finds observers in
///   a dictionary keyed by key paths, whose hashes mix in type-metadata addresses, so whether two
///   key paths of one object collide depends on where metadata landed in that process:
///   `settings/class-fields` counted about 1,990 or 3,037 instructions per operation for the same binary
///   depending on what the measuring process had allocated before. `lockfree`'s counts repeat
///   within 0.2% across such runs. Elsewhere the wall-clock ratio `lockfree p50 / apple p50` is
///   gated within `timeRatioTolerance`: absolute times drift between runs on shared machines; a
///   ratio of two contenders in the same run drifts less, but still enough that its tolerance only
///   catches gross regressions.
public enum Gate {
    public static let ratioNumerator = "lockfree"
    public static let ratioDenominator = "apple"
    /// The contender whose instruction counts are gated: the suite's own registrar.
    public static let gatedContender = ratioNumerator

    public struct Finding: Sendable, Equatable {
        public enum Kind: String, Sendable { case regression, improvement }
        public var kind: Kind
        public var benchmark: String
        public var contender: String
        public var metric: String
        public var old: Double
        public var new: Double
        /// What the tolerance allowed, for the message.
        public var allowed: String
    }

    public struct Verdict: Sendable, Equatable {
        public var findings: [Finding]
        /// Benchmarks whose current run failed (these dominate the exit code).
        public var failures: [String]
        public var regressions: [Finding] { findings.filter { $0.kind == .regression } }
        public var improvements: [Finding] { findings.filter { $0.kind == .improvement } }

        public var exitCode: ExitCode {
            if !failures.isEmpty { return .benchmarkFailed }
            if !regressions.isEmpty { return .regression }
            if !improvements.isEmpty { return .improvementOnly }
            return .success
        }

        /// Benchmarks whose time ratio regressed: re-measure them before believing it.
        public var timeSuspects: [String] {
            regressions.filter { $0.metric == Gate.timeRatio }.map(\.benchmark)
        }
    }

    public static func evaluate(baseline: ResultSet, current: ResultSet, thresholds: Thresholds) -> Verdict {
        var findings: [Finding] = []
        for new in current.results where new.failure == nil {
            guard let old = baseline.result(new.benchmark, new.contender), old.failure == nil else { continue }
            for metric in Metric.counts
            where !thresholds.countsAreNondeterministic(new.benchmark, contender: new.contender) {
                guard let o = old.metric(metric)?.summary.p50, let n = new.metric(metric)?.summary.p50, o != n else {
                    continue
                }
                findings.append(
                    Finding(
                        kind: n > o ? .regression : .improvement, benchmark: new.benchmark,
                        contender: new.contender, metric: metric.name, old: o, new: n, allowed: "exactly equal"))
            }
            // A workload's own values (`Metric.value(named:)`).
            for measured in new.metrics where measured.metric.isExact && !Metric.counts.contains(measured.metric) {
                guard let o = old.metric(measured.metric)?.summary.p50, o != measured.summary.p50 else { continue }
                findings.append(
                    Finding(
                        kind: .regression, benchmark: new.benchmark, contender: new.contender,
                        metric: measured.name, old: o, new: measured.summary.p50, allowed: "exactly equal"))
            }
            if let o = old.metric(Metric.mallocs)?.summary.p50, let n = new.metric(Metric.mallocs)?.summary.p50 {
                let tolerance = thresholds.mallocTolerance(for: new.benchmark, contender: new.contender)
                if abs(n - o) > tolerance {
                    findings.append(
                        Finding(
                            kind: n > o ? .regression : .improvement, benchmark: new.benchmark,
                            contender: new.contender, metric: Metric.mallocs.name, old: o, new: n,
                            allowed: "± \(NumberFormat.plain(tolerance))"))
                }
            }
        }
        for name in current.benchmarkNames {
            if let n = current.result(name, gatedContender)?.metric(Metric.instructions)?.summary.p50,
                let o = baseline.result(name, gatedContender)?.metric(Metric.instructions)?.summary.p50,
                current.result(name, gatedContender)?.failure == nil,
                baseline.result(name, gatedContender)?.failure == nil
            {
                let tolerance = thresholds.instructionTolerance(for: name)
                if let kind = beyond(tolerance, old: o, new: n) {
                    findings.append(
                        Finding(
                            kind: kind, benchmark: name, contender: gatedContender,
                            metric: Metric.instructions.name, old: o, new: n,
                            allowed: "× \(NumberFormat.plain(tolerance))"))
                }
            } else if let n = ratio(current, name), let o = ratio(baseline, name) {
                let tolerance = thresholds.timeRatioTolerance(for: name)
                if let kind = beyond(tolerance, old: o, new: n) {
                    findings.append(
                        Finding(
                            kind: kind, benchmark: name, contender: "\(ratioNumerator)/\(ratioDenominator)",
                            metric: timeRatio, old: o, new: n, allowed: "× \(NumberFormat.plain(tolerance))"))
                }
            }
        }
        let failures = current.results.filter { $0.failure != nil }.map { "\($0.benchmark) on \($0.contender)" }
        return Verdict(findings: findings, failures: failures)
    }

    /// What the baseline gates that `current` did not measure (a pass left out by `--metrics`, or
    /// an instruction pass skipped as too long), as `benchmark on contender: metric`: the gate
    /// cannot vouch for it, so `check` fails with exit 5 rather than pass in silence.
    public static func unchecked(baseline: ResultSet, current: ResultSet) -> [String] {
        var missing: [String] = []
        for new in current.results where new.failure == nil {
            guard let old = baseline.result(new.benchmark, new.contender), old.failure == nil else { continue }
            let counted = countsInstructions(baseline, new.benchmark)
            for metric in old.metrics where reads(metric, of: old, counted: counted) && new.metric(metric.metric) == nil
            {
                missing.append("\(new.benchmark) on \(new.contender): \(metric.name)")
            }
        }
        return missing
    }

    /// Whether the gate reads `metric` of `result` (`evaluate`): counts, mallocs and a workload's
    /// values of every run; `lockfree`'s instructions; and the time of the ratio's two contenders
    /// in a benchmark where `lockfree`'s instructions are not `counted`. What a baseline keeps.
    public static func reads(_ metric: MetricResult, of result: BenchmarkResult, counted: Bool) -> Bool {
        switch metric.metric {
        case .time: !counted && [ratioNumerator, ratioDenominator].contains(result.contender)
        case .instructions: result.contender == gatedContender
        case .mallocs: true
        default: metric.metric.isExact
        }
    }

    /// Whether `set` counted `lockfree`'s instructions in `benchmark` (then speed is gated on them).
    static func countsInstructions(_ set: ResultSet, _ benchmark: String) -> Bool {
        set.result(benchmark, gatedContender)?.metric(Metric.instructions) != nil
    }

    /// The name of the time-ratio finding.
    public static let timeRatio = "time ratio"

    /// A regression when `new` is more than `tolerance` times `old`, an improvement when less than
    /// `old / tolerance`.
    static func beyond(_ tolerance: Double, old: Double, new: Double) -> Finding.Kind? {
        new > old * tolerance ? .regression : new < old / tolerance ? .improvement : nil
    }

    /// `lockfree p50 / apple p50` of `metric` (time by default) in `name`, when both ran without
    /// failing and measured it.
    public static func ratio(_ set: ResultSet, _ name: String, of metric: Metric = .time) -> Double? {
        guard let a = set.result(name, ratioNumerator), a.failure == nil, let b = set.result(name, ratioDenominator),
            b.failure == nil, let ta = a.metric(metric)?.summary.p50,
            let tb = b.metric(metric)?.summary.p50, tb > 0
        else { return nil }
        return ta / tb
    }

    /// The verdict as Markdown for the terminal or a CI summary.
    public static func format(_ verdict: Verdict) -> String {
        var out = ""
        for f in verdict.failures { out += "FAILED: \(f)\n" }
        if verdict.findings.isEmpty { return out + "No change beyond tolerance.\n" }
        let rows = verdict.findings.map {
            [
                $0.kind.rawValue, $0.benchmark, $0.contender, $0.metric, NumberFormat.readable($0.old),
                NumberFormat.readable($0.new), $0.allowed,
            ]
        }
        return out
            + MarkdownTable(
                header: ["verdict", "benchmark", "contender", "metric", "baseline", "now", "allowed"],
                rows: rows, rightAligned: [4, 5]
            ).text
    }
}
