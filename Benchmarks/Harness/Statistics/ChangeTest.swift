import Foundation

/// The rule `bench compare` uses to call a sampled time figure (`time`, `latency`) changed between
/// two runs, from a model of this suite's noise (Documentation/RunningBenchmarks.md, "Comparing
/// two runs").
///
/// The unit of evidence is the process: each timing process gives one median, and samples inside a
/// process (its heap layout, code placement, frequency state) are not independent. For a figure
/// with `na` processes in the old run and `nb` in the new, `d` is the difference of the median log
/// medians (new ÷ old is `exp(d)`; a process that stalled moves a median of 5 less than a mean),
/// and its variance is
///
///     v = τ² + s̃² (c(na)/na + c(nb)/nb)
///
/// with `c(n)` the median's `π/2` from three processes on, 1 below.
///
/// - `s̃²`, the spread between processes of one run: the figure's own (the pooled sample variance
///   of its log medians, `na + nb - 2` degrees of freedom: a time whose processes fall into two
///   modes must not read as steady), moderated toward the median of all figures' own with
///   `priorDegrees` (Smyth's empirical Bayes, as `RatioEstimate` does): two processes a side
///   cannot say alone how noisy a figure is.
/// - `τ²`, the spread between runs that processes of one run share (the machine's state over the
///   minutes of a run): what is left of the figures' spread around no change once the processes'
///   share is taken out, estimated robustly (1.4826 × the median |d|, squared, less the median
///   `s̃² (1/na + 1/nb)`), so that the few figures a real change moves do not inflate it, and
///   moderated toward the suite's measured value (`priorBetweenRuns`, weighing `priorFigures`
///   figures). A shift that most figures share reads as the machine's; instruction counts, not
///   times, show a change of everything.
///
/// A figure is called changed when `|d| / √v` exceeds the two-sided normal quantile at `alpha / m`
/// (Bonferroni over the `m` time figures compared: the chance that two runs of the same code list
/// any time figure is at most `alpha`), and the change is at least `minimumEffect` (a change
/// smaller than that is not worth a reader's attention on these machines, whatever the evidence).
/// Its interval is the same simultaneous one: `exp(d ± z √v)`.
public struct ChangeTest: Sendable {
    /// One figure's evidence: the log of each timing process's median, old and new.
    public struct Figure: Sendable {
        public var old: [Double]
        public var new: [Double]
        public init(old: [Double], new: [Double]) {
            self.old = old
            self.new = new
        }
    }

    /// The verdict on one figure.
    public struct Verdict: Sendable, Equatable {
        /// new ÷ old, from the mean log medians.
        public var ratio: Double
        /// The simultaneous interval of new ÷ old.
        public var interval: ClosedRange<Double>
        public var changed: Bool
    }

    /// The family-wise rate of false calls among the time figures of one comparison.
    public var alpha = 0.05
    /// The smallest change called, as a fraction (0.05: 5%).
    public var minimumEffect = 0.05
    /// The weight of the pooled spread between processes, in degrees of freedom.
    public var priorDegrees = 4.0
    /// The spread between two runs of the same code on this suite's machines, as the standard
    /// deviation of a time's log (measured: Documentation/RunningBenchmarks.md, "Comparing two
    /// runs"), and how many figures it weighs as against a comparison's own estimate.
    public var priorBetweenRuns = 0.05
    public var priorFigures = 10.0

    public init(alpha: Double = 0.05, minimumEffect: Double = 0.05) {
        self.alpha = alpha
        self.minimumEffect = minimumEffect
    }

    /// What the model made of one comparison's noise.
    public struct Noise: Sendable, Equatable {
        /// Time figures tested (`m`).
        public var figures: Int
        /// The pooled variance of log process medians within a run (`s²`), or 0 without any.
        public var withinRun: Double
        /// The variance between runs (`τ²`).
        public var betweenRuns: Double
        /// The median number of processes per side.
        public var processesPerSide: Double
        /// The quantile a figure's `|d| / √v` must exceed.
        public var threshold: Double
        /// For a figure with the median variance: the smallest change called (at the threshold), and
        /// the change called 80% of the time (the threshold plus 0.84 standard errors), as
        /// fractions.
        public var smallestCalled: Double
        public var calledMostly: Double
    }

    /// The verdict on each figure, in order, and the noise they were judged against.
    public func evaluate(_ figures: [Figure]) -> (verdicts: [Verdict?], noise: Noise) {
        let usable = figures.filter { !$0.old.isEmpty && !$0.new.isEmpty }
        // The pooled spread: the median of the figures' own (a few figures whose processes stalled
        // must not set every figure's).
        let pooled = Self.median(usable.compactMap { Self.ownVariance($0)?.variance })
        // Each usable figure's difference and process share, once.
        let differences = usable.map { Self.location($0.new) - Self.location($0.old) }
        let within = usable.map { withinVariance($0, pooled: pooled) }
        let spread = 1.4826 * Self.median(differences.map(abs))
        let estimated = max(0, spread * spread - Self.median(within))
        // Moderated toward this suite's measured spread between runs, as much as `priorFigures`
        // figures weigh: a comparison of a few figures cannot say alone how runs differ.
        let n = Double(usable.count)
        let between =
            (n * estimated + priorFigures * priorBetweenRuns * priorBetweenRuns) / (n + priorFigures)
        let threshold = Self.normalQuantile(1 - alpha / (2 * Double(max(1, usable.count))))
        var judged = zip(differences, within).map { d, w -> Verdict in
            let half = threshold * (between + w).squareRoot()
            let changed = abs(d) > half && abs(exp(d) - 1) >= minimumEffect && abs(exp(-d) - 1) >= minimumEffect
            return Verdict(ratio: exp(d), interval: exp(d - half)...exp(d + half), changed: changed)
        }.makeIterator()
        let verdicts = figures.map { !$0.old.isEmpty && !$0.new.isEmpty ? judged.next() : nil }
        let typical = (between + Self.median(within)).squareRoot()
        let sides = Self.median(usable.flatMap { [Double($0.old.count), Double($0.new.count)] })
        let floor = log(1 + minimumEffect)
        let noise = Noise(
            figures: usable.count, withinRun: pooled, betweenRuns: between, processesPerSide: sides,
            threshold: threshold, smallestCalled: exp(max(floor, threshold * typical)) - 1,
            calledMostly: exp(max(floor, (threshold + 0.84) * typical)) - 1)
        return (verdicts, noise)
    }

    /// The variance of `location(x)` for one process's worth of spread `variance`: the mean's
    /// `1 / n`, the median's `π / 2n` from three values on.
    static func varianceOfLocation(_ variance: Double, count n: Int) -> Double {
        variance * (n >= 3 ? Double.pi / 2 : 1) / Double(n)
    }

    /// `s̃²` spread over both sides' locations: the figure's own spread, moderated toward `pooled`.
    func withinVariance(_ figure: Figure, pooled: Double) -> Double {
        let own = Self.ownVariance(figure)
        let df = own?.degrees ?? 0
        let moderated = (df * (own?.variance ?? 0) + priorDegrees * pooled) / (df + priorDegrees)
        return Self.varianceOfLocation(moderated, count: figure.old.count)
            + Self.varianceOfLocation(moderated, count: figure.new.count)
    }

    /// The spread of one process's log median, from both sides: the pooled sample variance about
    /// each side's mean, and its degrees of freedom; `nil` with a single value a side. Not a
    /// robust spread: a time whose processes fall into two modes (a layout that is fast, one that
    /// is slow) has most of its processes in one of them, and a median absolute deviation would
    /// read it as steady while its median flips between runs.
    static func ownVariance(_ figure: Figure) -> (variance: Double, degrees: Double)? {
        let degrees = Double(figure.old.count + figure.new.count - 2)
        guard degrees > 0 else { return nil }
        return ((sumOfSquares(figure.old) + sumOfSquares(figure.new)) / degrees, degrees)
    }

    /// Where a side's log medians lie: their median (the mean of two).
    static func location(_ x: [Double]) -> Double { median(x) }

    static func mean(_ x: [Double]) -> Double { x.reduce(0, +) / Double(x.count) }

    static func sumOfSquares(_ x: [Double]) -> Double {
        let m = mean(x)
        return x.reduce(0) { $0 + ($1 - m) * ($1 - m) }
    }

    static func median(_ x: [Double]) -> Double {
        guard !x.isEmpty else { return 0 }
        return Percentiles.value(50, sorted: x.sorted())
    }

    /// The standard normal distribution function.
    static func normalCDF(_ z: Double) -> Double { 0.5 * erfc(-z / 2.0.squareRoot()) }

    /// The `p` quantile of the standard normal distribution (bisection on `normalCDF`: exact to
    /// 1e-10, and no table to get wrong).
    static func normalQuantile(_ p: Double) -> Double {
        var low = -40.0
        var high = 40.0
        for _ in 0..<200 {
            let middle = (low + high) / 2
            if normalCDF(middle) < p { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// The logs of the timing processes' medians of `metric`: each process's where they are known,
    /// else the one median of a run's samples, else its p50 (a baseline that kept no more).
    public static func logMedians(_ metric: MetricResult) -> [Double] {
        let medians: [Double]
        if let processes = metric.samplesByProcess, !processes.isEmpty {
            medians = processes.filter { !$0.isEmpty }.map { Percentiles.value(50, sorted: $0.sorted()) }
        } else if let samples = metric.samples, !samples.isEmpty {
            medians = [Percentiles.value(50, sorted: samples.sorted())]
        } else {
            medians = [metric.summary.p50]
        }
        return medians.filter { $0 > 0 && $0.isFinite }.map { log($0) }
    }
}
