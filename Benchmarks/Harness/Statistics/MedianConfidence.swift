import Foundation

/// Distribution-free confidence intervals for a median from order statistics.
///
/// The number of sample values below the true median is Binomial(n, 1/2). The interval
/// `[x(j), x(k)]` (1-based order statistics) covers the median with probability
/// `P(j <= B < k)`, B ~ Binomial(n, 1/2). We take the symmetric pair `k = n + 1 - j` with the largest
/// `j` whose coverage is still at least `level`. Exact: no normal approximation, no resampling.
public enum MedianConfidence {
    /// The 1-based ranks `(j, k)` of the interval, or `nil` when `n` is too small for any pair of
    /// order statistics to reach `level` (then the honest interval is unbounded).
    public static func ranks(count n: Int, level: Double = 0.95) -> (lower: Int, upper: Int)? {
        guard n > 0 else { return nil }
        // cdf[i] = P(B <= i), computed in log space so large n does not overflow.
        let logHalfN = Double(n) * log(0.5)
        var cdf = [Double](repeating: 0, count: n + 1)
        var running = 0.0
        for i in 0...n {
            running += exp(logChoose(n, i) + logHalfN)
            cdf[i] = running
        }
        // Coverage of [x(j), x(n+1-j)] is P(j <= B <= n - j) = cdf[n-j] - cdf[j-1].
        var best: Int?
        var j = 1
        while j <= (n + 1) / 2 {
            let coverage = cdf[n - j] - cdf[j - 1]
            if coverage >= level { best = j } else { break }
            j += 1
        }
        return best.map { ($0, n + 1 - $0) }
    }

    /// The interval for the median of `sorted` (ascending), or `nil` when the sample is too small.
    public static func interval(sorted: [Double], level: Double = 0.95) -> ClosedRange<Double>? {
        guard let r = ranks(count: sorted.count, level: level) else { return nil }
        return sorted[r.lower - 1]...sorted[r.upper - 1]
    }

    private static func logChoose(_ n: Int, _ k: Int) -> Double {
        lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))
    }
}
