import Testing

@testable import Harness

@Suite struct MetricTests {
    /// Each metric the harness names has one name, and a result file's name and unit find it again.
    @Test func namesAreUniqueAndFindTheirMetric() {
        #expect(Set(Metric.all.map(\.name)).count == Metric.all.count)
        for metric in Metric.all {
            #expect(Metric.named(metric.name, unit: metric.unit) == metric)
            #expect(MetricResult(metric, value: 1).metric == metric)
        }
    }

    /// The counts and a workload's values are held exactly, in the counting pass; the others are
    /// lower-is-better (but delivered values per write, best at 1).
    @Test func directionsAndPasses() {
        for metric in Metric.counts {
            #expect(metric.isExact && metric.group == .counts && metric.unit == "count")
        }
        let sum = Metric.named("sum", unit: "value")
        #expect(sum == .value(named: "sum") && sum.isExact && sum.group == .counts)
        #expect(Metric.deliveredPerWrite.direction == .nearOne)
        for metric in [Metric.time, .setupTime, .mallocs, .bytes, .retainedBytes, .instructions, .latency] {
            #expect(metric.direction == .lowerIsBetter)
        }
        #expect([Metric.time, .latency].allSatisfy { $0.aggregation == .samples })
        #expect(MetricGroup.of(MetricResult(.instructions, value: 1)) == .instructions)
        #expect(MetricGroup.of(MetricResult(.retainedBytes, value: 1)) == .allocations)
        #expect(MetricGroup.of(MetricResult(.setupTime, value: 1)) == .time)
        // A name no version of the harness wrote: a timing figure, recorded, never held exactly.
        #expect(!Metric.named("future", unit: "ns").isExact)
    }
}
