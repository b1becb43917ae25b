/// Percentiles of a sample, by linear interpolation between closest ranks (Hyndman & Fan type 7, the
/// default of R and NumPy): for a sorted sample `x[0..<n]` the p-th percentile is
/// `x[h] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)])` with `h = (n - 1) * p / 100`.
public enum Percentiles {
    /// The `p`-th percentile (0...100) of `sorted`, which must be sorted ascending and not empty.
    public static func value(_ p: Double, sorted: [Double]) -> Double {
        precondition(!sorted.isEmpty, "percentile of an empty sample")
        precondition((0...100).contains(p), "percentile out of 0...100")
        let h = Double(sorted.count - 1) * p / 100
        let lower = Int(h.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (h - Double(lower)) * (sorted[upper] - sorted[lower])
    }
}
