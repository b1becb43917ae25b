/// The ratio of two medians with a conservative 95% confidence interval.
///
/// Method: each median gets its distribution-free order-statistic interval at level 97.5%
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
