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
    /// run (as many rounds) falls, a Student t interval on the logarithms for the difference of two
    /// such means, `t * s * sqrt(2 / K)`: √2 wider than the confidence interval of the true ratio,
    /// since the repeat's estimate varies too. It carries the variation between processes, the
    /// largest there is on these machines (the runner spreads a benchmark's rounds over the run, so
    /// it includes the machine's speed modes), and pairing cancels what a round shares.
    ///
    /// With `pooledVariance` (the run's mean variance of the log round ratios, `ResultSet.
    /// pooledRoundVariance`), the variance is *moderated* (Smyth's empirical Bayes, as limma does
    /// for few replicates): `s² = ((K - 1) s_own² + ν₀ s_pool²) / (K - 1 + ν₀)` with `ν₀ =
    /// priorDegrees` (4: the pool weighs as much as 5 rounds' own spread), and `K - 1 + ν₀` degrees
    /// of freedom. Five rounds that happen to agree to 0.1% no longer claim that precision (the
    /// machine's speed modes hit some benchmarks' rounds and not others'), and one round far out
    /// no longer makes the interval useless. Measured on three runs of the primitives (`--filter
    /// '^primitives/'`, 78 ratios each): own spread only, each run's intervals held the others'
    /// estimates for 71-90% of ratios; moderated, 91-97%, the median interval 5% wider.
    ///
    /// Two rounds give the ratio without an interval: one degree of freedom of its own is too
    /// little to read. `nil` when fewer than 2 rounds have samples on both sides.
    public init?(rounds a: [[Double]], _ b: [[Double]], pooledVariance: Double? = nil) {
        let logs = Self.roundLogs(a, b)
        guard logs.count >= 2 else { return nil }
        let k = Double(logs.count)
        let mean = logs.reduce(0, +) / k
        ratio = exp(mean)
        guard logs.count >= 3 else {
            low = nil
            high = nil
            return
        }
        var variance = Self.variance(logs)
        var degrees = logs.count - 1
        if let pooledVariance, pooledVariance.isFinite {
            variance =
                (Double(degrees) * variance + Double(Self.priorDegrees) * pooledVariance)
                / Double(degrees + Self.priorDegrees)
            degrees += Self.priorDegrees
        }
        let half = Self.t975(degreesOfFreedom: degrees) * variance.squareRoot() * (2 / k).squareRoot()
        low = exp(mean - half)
        high = exp(mean + half)
    }

    /// The weight of the pooled variance, in degrees of freedom (`init(rounds:_:pooledVariance:)`).
    public static let priorDegrees = 4

    /// `log(median(a_k) / median(b_k))` for each round with samples on both sides.
    public static func roundLogs(_ a: [[Double]], _ b: [[Double]]) -> [Double] {
        zip(a, b).compactMap { x, y -> Double? in
            guard !x.isEmpty, !y.isEmpty else { return nil }
            let mx = Percentiles.value(50, sorted: x.sorted())
            let my = Percentiles.value(50, sorted: y.sorted())
            return mx > 0 && my > 0 ? log(mx / my) : nil
        }
    }

    /// The sample variance of `values` (at least 2).
    public static func variance(_ values: [Double]) -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        return values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
    }

    /// The 0.975 quantile of Student's t distribution.
    static func t975(degreesOfFreedom df: Int) -> Double {
        let table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]
        return df >= 1 && df <= table.count ? table[df - 1] : df > table.count ? 1.96 + 2.4 / Double(df) : .infinity
    }

    /// The ratio of the medians of `a` and `b` (`a / b`). Both samples must be non-empty.
    public init(numerator a: [Double], denominator b: [Double]) {
        let sa = a.sorted()
        let sb = b.sorted()
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
