/// The regression gate: a pure decision on two result sets and the thresholds.
///
/// - Count metrics (`MetricName.counts`) must equal the baseline's exactly: more is a regression,
///   fewer an improvement. A workload's extra metrics (unit `value`, e.g. the grid's `sum` and
///   `count`) are deterministic results: any change is a regression.
/// - `mallocs` per operation may move by the benchmark's absolute tolerance.
/// - Speed is gated as a ratio of the two contenders measured in the same run, `lockfree / apple`,
///   against the baseline's ratio. Where both runs counted instructions (callgrind, deterministic),
///   the instruction ratio is gated within `instructionRatioTolerance` and the time ratio is not.
///   Elsewhere the wall-clock ratio `lockfree p50 / apple p50` is gated within `timeRatioTolerance`:
///   absolute times drift between runs on shared machines; a ratio drifts less, but still enough
///   that its tolerance only catches gross regressions.
public enum Gate {
    public static let ratioNumerator = "lockfree"
    public static let ratioDenominator = "apple"

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
            for metric in MetricName.counts where !thresholds.countsAreNondeterministic(new.benchmark) {
                guard let o = old.metric(metric)?.summary.p50, let n = new.metric(metric)?.summary.p50, o != n else { continue }
                findings.append(Finding(kind: n > o ? .regression : .improvement, benchmark: new.benchmark,
                    contender: new.contender, metric: metric, old: o, new: n, allowed: "exactly equal"))
            }
            for metric in new.metrics where metric.unit == "value" {
                guard let o = old.metric(metric.name)?.summary.p50, o != metric.summary.p50 else { continue }
                findings.append(Finding(kind: .regression, benchmark: new.benchmark, contender: new.contender,
                    metric: metric.name, old: o, new: metric.summary.p50, allowed: "exactly equal"))
            }
            if let o = old.metric(MetricName.mallocs)?.summary.p50, let n = new.metric(MetricName.mallocs)?.summary.p50 {
                let tolerance = thresholds.mallocTolerance(for: new.benchmark)
                if abs(n - o) > tolerance {
                    findings.append(Finding(kind: n > o ? .regression : .improvement, benchmark: new.benchmark,
                        contender: new.contender, metric: MetricName.mallocs, old: o, new: n,
                        allowed: "± \(NumberFormat.plain(tolerance))"))
                }
            }
        }
        for name in current.benchmarkNames {
            let metric: String, tolerance: Double, o: Double, n: Double
            if let ni = ratio(current, name, of: MetricName.instructions),
                let oi = ratio(baseline, name, of: MetricName.instructions)
            {
                (metric, tolerance, o, n) = (instructionRatio, thresholds.instructionRatioTolerance(for: name), oi, ni)
            } else if let nt = ratio(current, name), let ot = ratio(baseline, name) {
                (metric, tolerance, o, n) = (timeRatio, thresholds.timeRatioTolerance(for: name), ot, nt)
            } else {
                continue
            }
            let kind: Finding.Kind? = n > o * tolerance ? .regression : n < o / tolerance ? .improvement : nil
            if let kind {
                findings.append(Finding(kind: kind, benchmark: name, contender: "\(ratioNumerator)/\(ratioDenominator)",
                    metric: metric, old: o, new: n, allowed: "× \(NumberFormat.plain(tolerance))"))
            }
        }
        let failures = current.results.filter { $0.failure != nil }.map { "\($0.benchmark) on \($0.contender)" }
        return Verdict(findings: findings, failures: failures)
    }

    /// The names of the two ratio findings.
    public static let timeRatio = "time ratio"
    public static let instructionRatio = "instruction ratio"

    /// `lockfree p50 / apple p50` of `metric` (time by default) in `name`, when both ran without
    /// failing and measured it.
    static func ratio(_ set: ResultSet, _ name: String, of metric: String = MetricName.time) -> Double? {
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
            [$0.kind.rawValue, $0.benchmark, $0.contender, $0.metric, NumberFormat.readable($0.old),
             NumberFormat.readable($0.new), $0.allowed]
        }
        return out + MarkdownTable(header: ["verdict", "benchmark", "contender", "metric", "baseline", "now", "allowed"],
            rows: rows, rightAligned: [4, 5]).text
    }
}
