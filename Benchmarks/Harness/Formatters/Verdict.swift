/// How one contender's time compares with the others' on one benchmark, read from the 95%
/// intervals of the time ratios (`ResultSet.timeRatio`): an interval wholly below 1 is a win,
/// wholly above 1 a loss, one that holds 1 is within noise. A ratio without an interval (two
/// rounds, as in `--quick`) decides nothing.
public struct Verdict: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// `contender` is faster: the interval of contender ÷ other lies below 1.
        case faster
        /// `contender` is slower: the interval lies above 1.
        case slower
        /// The interval holds 1.
        case withinNoise
        /// A ratio without an interval.
        case undecided
        /// The other contender failed on this benchmark.
        case failed
    }

    /// The outcome against one other contender.
    public struct Versus: Sendable, Equatable {
        public var other: String
        public var outcome: Outcome

        public init(_ other: String, _ outcome: Outcome) {
            self.other = other
            self.outcome = outcome
        }
    }

    public var contender: String
    /// Each other contender with the outcome against it, in the order given.
    public var outcomes: [Versus]

    public init(contender: String, outcomes: [Versus]) {
        self.contender = contender
        self.outcomes = outcomes
    }

    /// The outcome of `contender ÷ other` with interval `ratio`.
    public static func outcome(_ ratio: RatioEstimate) -> Outcome {
        guard let low = ratio.low, let high = ratio.high else { return .undecided }
        if high < 1 { return .faster }
        if low > 1 { return .slower }
        return .withinNoise
    }

    /// `contender` against each of `others` on `benchmark`; `nil` when `contender` did not run
    /// or failed, or none of `others` ran.
    public static func of(
        _ contender: String, against others: [String], on benchmark: String, in set: ResultSet,
        pooledVariance: Double? = nil
    ) -> Verdict? {
        guard let own = set.result(benchmark, contender), own.failure == nil else { return nil }
        var outcomes: [Versus] = []
        for other in others where other != contender {
            guard let result = set.result(benchmark, other) else { continue }
            if result.failure != nil {
                outcomes.append(Versus(other, .failed))
            } else if let ratio = set.timeRatio(benchmark, contender, other, pooledVariance: pooledVariance) {
                outcomes.append(Versus(other, outcome(ratio)))
            }
        }
        return outcomes.isEmpty ? nil : Verdict(contender: contender, outcomes: outcomes)
    }

    /// `lockfree fastest`, `lockfree slowest`, `within noise` when every comparison agrees;
    /// otherwise one clause per other contender: `beats apple; naive faster`,
    /// `beats apple; within noise of naive`.
    public var text: String {
        let kinds = outcomes.map(\.outcome)
        if kinds.allSatisfy({ $0 == .faster }) { return "\(contender) fastest" }
        if kinds.allSatisfy({ $0 == .slower }) { return "\(contender) slowest" }
        if kinds.allSatisfy({ $0 == .withinNoise }) { return "within noise" }
        if kinds.allSatisfy({ $0 == .undecided }) { return "no interval" }
        return outcomes.map { versus in
            let other = versus.other
            return switch versus.outcome {
            case .faster: "beats \(other)"
            case .slower: "\(other) faster"
            case .withinNoise: "within noise of \(other)"
            case .undecided: "\(other): no interval"
            case .failed: "\(other) failed"
            }
        }.joined(separator: "; ")
    }
}
