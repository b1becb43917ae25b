import Foundation

/// `bench compare A B`: what changed beyond noise, largest change first, then every metric both
/// result sets have, old against new.
public enum Comparison {
    /// One figure that changed beyond noise: `ratio` is new / old, `interval` the 95% interval
    /// that says so (`nil` for a figure held exactly or to a tolerance, `why` then says which).
    struct Change {
        var benchmark: String
        var contender: String
        var metric: Metric
        var old: Double
        var new: Double
        var ratio: Double
        var interval: ClosedRange<Double>?
        var why: String

        /// How far the change goes, either way: what the list is sorted by.
        var size: Double { ratio > 0 && ratio.isFinite ? abs(log(ratio)) : .infinity }
    }

    public static func format(old: ResultSet, new: ResultSet) -> String {
        var rows: [[String]] = []
        var changes: [Change] = []
        for n in new.results {
            guard let o = old.result(n.benchmark, n.contender) else { continue }
            for nm in n.metrics {
                guard let om = o.metric(nm.metric) else { continue }
                let a = om.summary
                let b = nm.summary
                let overlap = a.samples > 1 && b.samples > 1 && a.p25 <= b.p75 && b.p25 <= a.p75
                let value = value(nm.metric)
                let delta = b.p50 - a.p50
                let ratio = a.p50 == 0 ? (b.p50 == 0 ? "1.00" : "∞") : String(format: "%.2f", b.p50 / a.p50)
                rows.append([
                    n.benchmark, n.contender, nm.name, value(a.p50), value(b.p50),
                    (delta > 0 ? "+" : "") + value(delta), ratio + (overlap ? " (?)" : ""),
                ])
                if o.failure == nil && n.failure == nil,
                    let change = change(n.benchmark, n.contender, old: om, new: nm)
                {
                    changes.append(change)
                }
            }
        }
        changes.sort { $0.size > $1.size }
        let all = MarkdownTable(
            header: ["benchmark", "contender", "metric", "old", "new", "delta", "ratio"], rows: rows,
            rightAligned: [3, 4, 5, 6]
        ).text
        return beyondNoise(changes, compared: rows.count) + "\n## Every figure\n\n" + all
            + "\nValues are p50. \"(?)\" marks sampled metrics whose p25..p75 ranges overlap: within noise.\n"
    }

    /// The lead section: the changes, or that there is none.
    static func beyondNoise(_ changes: [Change], compared: Int) -> String {
        var out = "## Changed beyond noise\n\n"
        guard !changes.isEmpty else { return out + "Nothing changed beyond noise (\(compared) figures compared).\n" }
        out += "\(changes.count) of \(compared) figures, largest change first.\n\n"
        let rows = changes.map { c -> [String] in
            let value = value(c.metric)
            let interval = c.interval.map { "\(ratioText($0.lowerBound)) … \(ratioText($0.upperBound))" } ?? c.why
            return [c.benchmark, c.contender, c.metric.name, value(c.old), value(c.new), ratioText(c.ratio), interval]
        }
        out +=
            MarkdownTable(
                header: ["benchmark", "contender", "metric", "old", "new", "new ÷ old", "95% interval"], rows: rows,
                rightAligned: [3, 4, 5]
            ).text
        out += "\nA sampled figure (time, latency) changed where the 95% interval of new ÷ old excludes 1: a"
        out += " Welch t interval on the logarithms of each timing process's median, or, where either side has"
        out += " a single process, the ratio of the medians' 95% intervals. Counts and a workload's values are"
        out += " held exactly; mallocs and instructions to the gate's default tolerances.\n"
        return out
    }

    /// How `old` and `new` of one metric differ beyond noise, or `nil`.
    static func change(_ benchmark: String, _ contender: String, old: MetricResult, new: MetricResult) -> Change? {
        let a = old.summary.p50
        let b = new.summary.p50
        guard a.isFinite, b.isFinite else { return nil }
        let ratio = a == 0 ? (b == 0 ? 1 : .infinity) : b / a
        func made(_ interval: ClosedRange<Double>?, _ why: String) -> Change {
            Change(
                benchmark: benchmark, contender: contender, metric: new.metric, old: a, new: b, ratio: ratio,
                interval: interval, why: why)
        }
        let defaults = Thresholds()
        if new.metric.isExact { return a == b ? nil : made(nil, "exact") }
        switch new.metric {
        case .mallocs:
            return abs(b - a) > defaults.mallocTolerance
                ? made(nil, "beyond ±\(NumberFormat.plain(defaults.mallocTolerance))") : nil
        case .instructions:
            let factor = defaults.instructionTolerance
            return a > 0 && (ratio > factor || ratio < 1 / factor)
                ? made(nil, "beyond ×\(NumberFormat.plain(factor))") : nil
        default:
            guard new.metric.aggregation == .samples, let interval = interval(old: old, new: new),
                interval.lowerBound > 1 || interval.upperBound < 1
            else { return nil }
            return made(interval, "")
        }
    }

    /// The 95% interval of new ÷ old for a sampled metric: Welch's t interval on the logarithms of
    /// the timing processes' medians when both sides have two or more, else the ratio of the
    /// medians' own 95% intervals; `nil` without either.
    static func interval(old: MetricResult, new: MetricResult) -> ClosedRange<Double>? {
        func logMedians(_ m: MetricResult) -> [Double] {
            (m.samplesByProcess ?? []).compactMap { samples in
                guard !samples.isEmpty else { return nil }
                let median = Percentiles.value(50, sorted: samples.sorted())
                return median > 0 ? log(median) : nil
            }
        }
        let a = logMedians(old)
        let b = logMedians(new)
        if a.count >= 2 && b.count >= 2 {
            let mean = { (x: [Double]) in x.reduce(0, +) / Double(x.count) }
            let va = RatioEstimate.variance(a) / Double(a.count)
            let vb = RatioEstimate.variance(b) / Double(b.count)
            let difference = mean(b) - mean(a)
            guard va + vb > 0 else { return exp(difference)...exp(difference) }
            // Welch-Satterthwaite degrees of freedom, rounded down.
            let degrees = (va + vb) * (va + vb) / (va * va / Double(a.count - 1) + vb * vb / Double(b.count - 1))
            let half = RatioEstimate.t975(degreesOfFreedom: max(1, Int(degrees))) * (va + vb).squareRoot()
            return exp(difference - half)...exp(difference + half)
        }
        guard let oldLow = old.summary.ciLow, let oldHigh = old.summary.ciHigh, let newLow = new.summary.ciLow,
            let newHigh = new.summary.ciHigh, oldLow > 0, oldHigh > 0, newLow <= newHigh
        else { return nil }
        return (newLow / oldHigh)...(newHigh / oldLow)
    }

    static func value(_ metric: Metric) -> (Double) -> String {
        if metric.unit == "ns" { return { NumberFormat.duration($0) } }
        return { NumberFormat.readable($0) }
    }

    static func ratioText(_ ratio: Double) -> String {
        ratio.isFinite ? String(format: "%.2f", ratio) : "∞"
    }
}
