import Testing

@testable import Harness

/// A workload's own measurements (`BenchmarkInstance.measuredMetrics`): recorded by the timing
/// pass, in the `time` group, summarised and pooled like `time`, and never read by the gate.
@Suite struct MeasuredMetricsTests {
    final class Handoffs: BenchmarkInstance {
        var latencies: [Double] = []
        func run(operations: Int) throws -> Int {
            for i in 0..<operations { latencies.append(Double(100 + i % 7)) }
            return operations
        }
        var measuredMetrics: [MeasuredMetric] {
            [
                MeasuredMetric(.latency, values: latencies),
                MeasuredMetric(.deliveredPerWrite, values: [0.5]),
            ]
        }
    }

    let benchmark = Benchmark(family: "test/handoff", contender: "lockfree") { _ in Handoffs() }
    let plan = TimingPlan(budgetNanoseconds: 5_000_000, maxSamples: 10, targetSampleNanoseconds: 10_000)

    @Test func theTimingPassRecordsThemSampledOrSingle() throws {
        let report = Measurer.timingPass(benchmark, Parameters(), plan: plan)
        #expect(report.failure == nil)
        let latency = try #require(report.metrics.first { $0.metric == .latency })
        #expect(latency.unit == "ns")
        #expect(latency.summary.p0 == 100)
        #expect(latency.summary.p100 == 106)
        #expect((latency.samples?.count ?? 0) > 1)
        let delivered = try #require(report.metrics.first { $0.metric == .deliveredPerWrite })
        #expect(delivered.summary.p50 == 0.5)
        #expect(delivered.samples == nil)
    }

    @Test func theyBelongToTheTimeGroupAndTheGateLeavesThemAlone() throws {
        let report = Measurer.timingPass(benchmark, Parameters(), plan: plan)
        let latency = try #require(report.metrics.first { $0.metric == .latency })
        #expect(MetricGroup.of(latency) == .time)
        let result = BenchmarkResult(
            benchmark: "test/handoff", family: "test/handoff", parameters: Parameters(), contender: "lockfree",
            metrics: report.metrics, failure: nil)
        #expect(!Gate.reads(latency, of: result, counted: false))
    }

    @Test func poolingConcatenatesTheirSamples() throws {
        let a = Measurer.timingPass(benchmark, Parameters(), plan: plan)
        let b = Measurer.timingPass(benchmark, Parameters(), plan: plan)
        let pooled = Measurer.PassReport(pooling: [a, b])
        let count = { (r: Measurer.PassReport) in r.metrics.first { $0.metric == .latency }?.samples?.count ?? 0 }
        #expect(count(pooled) == count(a) + count(b))
    }
}
