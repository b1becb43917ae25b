/// The statistics of one metric of one benchmark: percentiles, mean, and a 95% confidence interval
/// for the median (see `MedianConfidence`). A metric measured once (a count) has one sample.
public struct Summary: Sendable, Equatable, Codable {
    public var samples: Int
    public var p0: Double
    public var p25: Double
    public var p50: Double
    public var p75: Double
    public var p90: Double
    public var p99: Double
    public var p100: Double
    public var mean: Double
    /// The 95% interval for the median; `nil` when there are too few samples (fewer than 6).
    public var ciLow: Double?
    public var ciHigh: Double?

    /// Summarises `values`, which must not be empty.
    public init(_ values: [Double]) {
        let sorted = values.sorted()
        samples = sorted.count
        p0 = sorted[0]
        p25 = Percentiles.value(25, sorted: sorted)
        p50 = Percentiles.value(50, sorted: sorted)
        p75 = Percentiles.value(75, sorted: sorted)
        p90 = Percentiles.value(90, sorted: sorted)
        p99 = Percentiles.value(99, sorted: sorted)
        p100 = sorted[sorted.count - 1]
        mean = sorted.reduce(0, +) / Double(sorted.count)
        let ci = MedianConfidence.interval(sorted: sorted)
        ciLow = ci?.lowerBound
        ciHigh = ci?.upperBound
    }

    /// A single exact value, e.g. a count per operation.
    public init(single value: Double) { self.init([value]) }

    /// Given fields, as read back from a file (`SummaryJSON`); `nan` for a field it left out.
    public init(
        samples: Int, p0: Double, p25: Double, p50: Double, p75: Double, p90: Double, p99: Double, p100: Double,
        mean: Double, ciLow: Double?, ciHigh: Double?
    ) {
        self.samples = samples
        self.p0 = p0
        self.p25 = p25
        self.p50 = p50
        self.p75 = p75
        self.p90 = p90
        self.p99 = p99
        self.p100 = p100
        self.mean = mean
        self.ciLow = ciLow
        self.ciHigh = ciHigh
    }
}
