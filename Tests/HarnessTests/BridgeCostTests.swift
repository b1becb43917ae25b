import Testing

@testable import Harness

/// The report's table of what bridging to Observation costs and keeps.
@Suite struct BridgeCostTests {
    func result(_ name: String, _ contender: String, instructions: Double, invalidations: Double) -> BenchmarkResult {
        BenchmarkResult(
            benchmark: name, family: name, parameters: Parameters([]), contender: contender,
            metrics: [
                MetricResult(.time, value: instructions), MetricResult(.instructions, value: instructions),
                MetricResult(Metric.invalidations, value: invalidations), MetricResult(Metric.unnecessary, value: 0),
                MetricResult(Metric.missed, value: 0),
            ])
    }

    @Test func eachPairsRatiosAndInvalidationsWithWhatIsBeyondTheBound() {
        var set = sampleSet()
        set.results = [
            result("a", "lockfree", instructions: 100, invalidations: 1),
            result("a", "apple", instructions: 1000, invalidations: 1),
            result("a", "bridged", instructions: 1050, invalidations: 1),
            result("a", "bridged-scopes", instructions: 104, invalidations: 1),
            result("b", "lockfree", instructions: 100, invalidations: 2),
            result("b", "apple", instructions: 1000, invalidations: 2),
            result("b", "bridged", instructions: 1500, invalidations: 3),
            result("b", "bridged-scopes", instructions: 100, invalidations: 2),
        ]
        let section = BridgeCost.section(set)
        #expect(section.contains("## What bridging to Observation costs"))
        #expect(section.contains("| a | 1.05× instr"))
        #expect(section.contains("= 1 · = 0 · = 0"))
        #expect(section.contains("3 / 2 · = 0 · = 0"))
        #expect(section.contains("Beyond 1.10×: b (bridged ÷ apple 1.50×)."))
        #expect(section.contains("Invalidations differ: b (bridged vs apple)."))
        #expect(!section.contains("a (bridged"))
    }

    @Test func nothingWithoutTheBridgedContenders() {
        var set = sampleSet()
        set.results = [result("a", "lockfree", instructions: 100, invalidations: 1)]
        #expect(BridgeCost.section(set) == "")
    }
}
