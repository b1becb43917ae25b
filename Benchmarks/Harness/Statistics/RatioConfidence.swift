import Foundation

/// The ratio of two medians with a 95% interval: a repeat interval from paired rounds
/// (`init(rounds:_:)`), or from a single process each, a conservative confidence interval.
///
/// Single process: each median gets its distribution-free order-statistic interval at level 97.5%
/// (`MedianConfidence`); the ratio interval is `[lowA / highB, highA / lowB]`. The two samples are
/// independent, and by Bonferroni both medians lie in their intervals with probability at least
/// 1 - 0.025 - 0.025 = 95%, and then the ratio lies in the ratio interval. No resampling: the result
/// is deterministic and checkable by hand.
public struct RatioEstimate: Sendable, Equatable, Codable {
    public var ratio: Double
    /// `nil` when either sample is too small for an interval.
    public var low: Double?
    public var high: Double?

    public init(ratio: Double, low: Double?, high: Double?) {
        self.ratio = ratio
        self.low = low
        self.high = high
    }

    /// The ratio from paired rounds: round k timed `a` and `b` in adjacent processes (the runner
    /// alternates contenders), and `r_k = median(a_k) / median(b_k)`. The estimate is the geometric
    /// mean of the `r_k`. The interval is a 95% *repeat* interval: where the estimate of a repeat
    /// run (as many rounds) falls, a Student t interval on the logarithms (K - 1 degrees of
    /// freedom) for the difference of two such means, `t * s * sqrt(2 / K)`: √2 wider than the
    /// confidence interval of the true ratio, since the repeat's estimate varies too. It carries the
    /// variation between processes, the largest there is on these machines (the runner spreads a
    /// benchmark's rounds over the run, so it includes the machine's speed modes), and pairing
    /// cancels what a round shares. Measured: two default runs of the primitives, 5 rounds each,
    /// held each other's estimates for 74 and 75 of 81 ratios; confidence intervals held 69 and 68.
    /// Two rounds give the ratio without an interval: one degree of freedom makes it 12.7 times
    /// the spread, too wide to read (quick mode's `[0.0052, 64.4]`). `nil` when fewer than 2
    /// rounds have samples on both sides.
    public init?(rounds a: [[Double]], _ b: [[Double]]) {
        let logs = zip(a, b).compactMap { x, y -> Double? in
            guard !x.isEmpty, !y.isEmpty else { return nil }
            let mx = Percentiles.value(50, sorted: x.sorted()), my = Percentiles.value(50, sorted: y.sorted())
            return mx > 0 && my > 0 ? log(mx / my) : nil
        }
        guard logs.count >= 2 else { return nil }
        let k = Double(logs.count)
        let mean = logs.reduce(0, +) / k
        let sd = (logs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (k - 1)).squareRoot()
        ratio = exp(mean)
        guard logs.count >= 3 else {
            low = nil
            high = nil
            return
        }
        let half = Self.t975(degreesOfFreedom: logs.count - 1) * sd * (2 / k).squareRoot()
        low = exp(mean - half)
        high = exp(mean + half)
    }

    /// The 0.975 quantile of Student's t distribution.
    static func t975(degreesOfFreedom df: Int) -> Double {
        let table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]
        return df >= 1 && df <= table.count ? table[df - 1] : df > table.count ? 1.96 + 2.4 / Double(df) : .infinity
    }

    /// The ratio of the medians of `a` and `b` (`a / b`). Both samples must be non-empty.
    public init(numerator a: [Double], denominator b: [Double]) {
        let sa = a.sorted(), sb = b.sorted()
        ratio = Percentiles.value(50, sorted: sa) / Percentiles.value(50, sorted: sb)
        if let ia = MedianConfidence.interval(sorted: sa, level: 0.975),
            let ib = MedianConfidence.interval(sorted: sb, level: 0.975), ib.lowerBound > 0
        {
            low = ia.lowerBound / ib.upperBound
            high = ia.upperBound / ib.lowerBound
        } else {
            low = nil
            high = nil
        }
    }
}
