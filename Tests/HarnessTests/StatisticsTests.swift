import Foundation
import Testing

@testable import Harness

@Suite struct PercentilesTests {
    @Test func interpolatesBetweenClosestRanks() {
        let x: [Double] = [1, 2, 3, 4, 5]
        #expect(Percentiles.value(0, sorted: x) == 1)
        #expect(Percentiles.value(25, sorted: x) == 2)
        #expect(Percentiles.value(50, sorted: x) == 3)
        #expect(abs(Percentiles.value(90, sorted: x) - 4.6) < 1e-12)  // h = 3.6
        #expect(abs(Percentiles.value(99, sorted: x) - 4.96) < 1e-12)  // h = 3.96
        #expect(Percentiles.value(100, sorted: x) == 5)
    }

    @Test func medianOfEvenCountIsMidpoint() {
        #expect(Percentiles.value(50, sorted: [10, 20, 30, 40]) == 25)
        #expect(Percentiles.value(25, sorted: [10, 20, 30, 40]) == 17.5)  // h = 0.75
    }

    @Test func summaryOfUnsortedSample() {
        let s = Summary([5, 1, 4, 2, 3])
        #expect(s.samples == 5)
        #expect(s.p0 == 1 && s.p25 == 2 && s.p50 == 3 && s.p75 == 4 && s.p100 == 5)
        #expect(s.mean == 3)
        #expect(s.ciLow == nil && s.ciHigh == nil)  // 5 samples: no pair reaches 95%
    }

    @Test func singleValue() {
        let s = Summary(single: 7)
        #expect(s.samples == 1 && s.p0 == 7 && s.p99 == 7 && s.mean == 7)
    }
}

@Suite struct MedianConfidenceTests {
    // Coverage of [x(j), x(n+1-j)] is P(j <= B <= n-j), B ~ Binomial(n, 1/2).
    @Test func ranksForSmallSamples() {
        #expect(MedianConfidence.ranks(count: 5) == nil)  // (1,5): 1 - 2/32 = 0.9375
        #expect(MedianConfidence.ranks(count: 6)! == (1, 6))  // 1 - 2/64 = 0.96875
        #expect(MedianConfidence.ranks(count: 10)! == (2, 9))  // 0.9785; (3,8) is 0.8906
        #expect(MedianConfidence.ranks(count: 20)! == (6, 15))  // 0.9586; (7,14) is 0.8847
    }

    @Test func ranksAtOtherLevels() {
        #expect(MedianConfidence.ranks(count: 10, level: 0.975)! == (2, 9))  // 0.9785 >= 0.975
        #expect(MedianConfidence.ranks(count: 10, level: 0.98)! == (1, 10))  // 0.998
        #expect(MedianConfidence.ranks(count: 10, level: 0.8)! == (3, 8))
    }

    @Test func largeSampleDoesNotOverflow() {
        let r = MedianConfidence.ranks(count: 10_000)!
        // Normal approximation: n/2 -/+ 1.96 * sqrt(n)/2 = 5000 -/+ 98.
        #expect(abs(r.lower - 4902) <= 1)
        #expect(r.lower + r.upper == 10_001)
    }

    @Test func intervalPicksOrderStatistics() {
        let sorted = (1...10).map(Double.init)
        #expect(MedianConfidence.interval(sorted: sorted) == 2...9)
    }
}

@Suite struct RatioEstimateTests {
    @Test func ratioOfMediansWithBonferroniInterval() {
        let a = (1...10).map(Double.init)  // median 5.5, 97.5% interval [2, 9]
        let b = (1...10).map { Double($0 * 2) }  // median 11, 97.5% interval [4, 18]
        let r = RatioEstimate(numerator: a, denominator: b)
        #expect(r.ratio == 0.5)
        #expect(r.low == 2.0 / 18.0)
        #expect(r.high == 9.0 / 4.0)
    }

    @Test func tooFewSamplesHaveNoInterval() {
        let r = RatioEstimate(numerator: [2, 4, 6], denominator: [1, 2, 3])
        #expect(r.ratio == 2)
        #expect(r.low == nil && r.high == nil)
    }
}

@Suite struct PairedRatioTests {
    @Test func roundsArePairedAndTheirSpreadIsTheInterval() throws {
        // Rounds 2 and 3 ran in modes 2 and 1.5 times as slow for both: each round's ratio is 2.
        let same = try #require(
            RatioEstimate(rounds: [[2, 2, 3], [4, 4, 6], [3, 3, 4.5]], [[1, 1, 2], [2, 2, 4], [1.5, 1.5, 3]]))
        #expect(same.ratio == 2 && same.low == 2 && same.high == 2)
        // Rounds at 1.8, 2.0 and 2.2: geometric mean, t interval with 2 degrees of freedom (4.303),
        // for the difference between this run's mean of 3 rounds and a repeat's: s * sqrt(2 / 3).
        let spread = try #require(RatioEstimate(rounds: [[1.8], [2.0], [2.2]], [[1], [1], [1]]))
        let logs = [log(1.8), log(2.0), log(2.2)]
        let mean = logs.reduce(0, +) / 3
        let sd = (logs.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 2).squareRoot()
        #expect(abs(spread.ratio - exp(mean)) < 1e-12)
        #expect(abs(try #require(spread.high) - exp(mean + 4.303 * sd * (2.0 / 3).squareRoot())) < 1e-9)
        #expect(abs(try #require(spread.low) - exp(mean - 4.303 * sd * (2.0 / 3).squareRoot())) < 1e-9)
        // Two rounds: the paired ratio, no interval.
        let two = try #require(RatioEstimate(rounds: [[1.8], [2.2]], [[1], [1]]))
        #expect(abs(two.ratio - (1.8 * 2.2).squareRoot()) < 1e-12 && two.low == nil && two.high == nil)
        #expect(RatioEstimate(rounds: [[1]], [[1]]) == nil)  // one round: no interval to give
        #expect(RatioEstimate.t975(degreesOfFreedom: 2) == 4.303)
    }

    @Test func thePooledVarianceModeratesTheRoundsOwn() throws {
        // Rounds at 1.8, 2.0 and 2.2 (2 degrees of freedom of their own) and a pooled variance of
        // 0.01 with 4 prior degrees: s² = (2 s_own² + 4 * 0.01) / 6, t with 6 degrees (2.447).
        let logs = [log(1.8), log(2.0), log(2.2)]
        let mean = logs.reduce(0, +) / 3
        let own = logs.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 2
        let moderated = try #require(
            RatioEstimate(rounds: [[1.8], [2.0], [2.2]], [[1], [1], [1]], pooledVariance: 0.01))
        let half = 2.447 * ((2 * own + 4 * 0.01) / 6).squareRoot() * (2.0 / 3).squareRoot()
        #expect(abs(moderated.ratio - exp(mean)) < 1e-12)
        #expect(abs(try #require(moderated.low) - exp(mean - half)) < 1e-9)
        #expect(abs(try #require(moderated.high) - exp(mean + half)) < 1e-9)
        // Rounds that agree exactly keep an interval as wide as the pool says a round moves.
        let same = try #require(RatioEstimate(rounds: [[2], [2], [2]], [[1], [1], [1]], pooledVariance: 0.01))
        let width = 2.447 * (4 * 0.01 / 6).squareRoot() * (2.0 / 3).squareRoot()
        #expect(abs(try #require(same.high) - 2 * exp(width)) < 1e-9 && same.low! < 2)
        // Two rounds: still no interval.
        #expect(try #require(RatioEstimate(rounds: [[1.8], [2.2]], [[1], [1]], pooledVariance: 0.01)).low == nil)
    }

    @Test func thePoolIsTheMeanVarianceOfTheRunsPairedRatios() throws {
        var set = sampleSet()
        for i in set.results.indices {
            let j = try #require(set.results[i].metrics.firstIndex { $0.metric == .time })
            set.results[i].metrics[j].processes = [2, 2, 3]
        }
        // lockfree [10, 11] [12, 13] [14, 15, 16]; apple [20, 21] [22, 23] [24, 25, 26].
        let logs = [log(10.5 / 20.5), log(12.5 / 22.5), log(15.0 / 25)]
        let pooled = try #require(set.pooledRoundVariance(reference: "lockfree"))
        #expect(abs(pooled - RatioEstimate.variance(logs)) < 1e-12)
        #expect(set.pooledRoundVariance(reference: nil) == nil)
        #expect(sampleSet().pooledRoundVariance(reference: "lockfree") == nil)  // one process each: no rounds
    }

    @Test func pooledTimesKeepTheirProcessesAndTheRatioUsesThem() throws {
        var set = sampleSet()
        for i in set.results.indices {
            let j = try #require(set.results[i].metrics.firstIndex { $0.metric == .time })
            set.results[i].metrics[j].processes = [3, 4]
        }
        let paired = try #require(set.timeRatio("books/toggle/n=10", "lockfree", "apple"))
        // lockfree [10, 11, 12] and [13, ..., 16]; apple [20, 21, 22] and [23, ..., 26].
        #expect(abs(paired.ratio - exp((log(11.0 / 21) + log(14.5 / 24.5)) / 2)) < 1e-12)
        #expect(set.results[0].metric(.time)?.samplesByProcess == [[10, 11, 12], [13, 14, 15, 16]])
    }
}
