import Testing

@testable import Harness

/// The render cost at which lockfree's time falls to naive's.
@Suite struct CrossoverTests {
    @Test func interpolatesBetweenMeasuredCosts() {
        // lockfree 10 + 1 per ns of render cost (one evaluation), naive 2 + 5 per ns (five).
        let points = [0.0, 500, 2000, 10_000].map { c in (cost: c, a: 10 + c, b: 2 + 5 * c) }
        #expect(Crossover.find(points) == .at(2))  // 10 + c = 2 + 5c at c = 2 ns, between 0 and 500
        #expect(Crossover.find([(0, 5, 10), (500, 505, 2510)]) == .always)
        #expect(Crossover.find([(0, 100, 10), (500, 600, 20)]) == .never)  // drifting apart
        #expect(Crossover.find([(0, 100, 10), (500, 200, 60), (1000, 300, 250)]) == .beyond(1000 + 50 * 500 / 90.0))
        #expect(Crossover.find([(0, 10, 9), (1000, 20, 30)]) == .at(1000 * 1.0 / 11))
        // With evaluation counts: as many as naive's, never, whatever the noise says; fewer, the gap
        // over the difference.
        #expect(Crossover.find([(0, 100, 10), (500, 200, 60), (1000, 300, 250)], evaluations: (150, 150)) == .never)
        #expect(Crossover.find([(0, 1000, 10), (500, 1500, 760)], evaluations: (1, 1.5)) == .beyond(1980))
    }

    @Test func sectionAndChartsFromAResultSet() {
        func result(_ contender: String, _ render: Int, _ time: Double) -> BenchmarkResult {
            BenchmarkResult(
                benchmark: "render/books-x/n=10/render=\(render)", family: "render/books-x",
                parameters: Parameters([("n", "10"), ("render", String(render))]), contender: contender,
                metrics: [MetricResult(.time, value: time)])
        }
        var set = sampleSet()
        set.results = [
            result("lockfree", 0, 100), result("naive", 0, 50), result("lockfree", 1000, 1100),
            result("naive", 1000, 4050),
        ]
        let section = Crossover.section(set)
        #expect(section.contains("| render/books-x/n=10 | 100 ns / 50.0 ns | 1.10 µs / 4.05 µs | from about 16.7 ns |"))
        let charts = Crossover.charts(set)
        #expect(charts.map(\.fileName) == ["render-books-x-n10-render.svg"])
        #expect(charts.first?.svg.contains("<polyline") == true)
        #expect(Crossover.section(sampleSet()) == "")
    }
}

/// Throughput of N threads over one thread's, from a run's times.
@Suite struct ThreadScalingTests {
    func result(_ family: String, _ contender: String, threads: Int, _ time: Double) -> BenchmarkResult {
        BenchmarkResult(
            benchmark: "\(family)/threads=\(threads)", family: family,
            parameters: Parameters([("threads", String(threads))]), contender: contender,
            metrics: [MetricResult(.time, value: time)])
    }

    @Test func scalingIsNTimesTheOneThreadTimeOverTheNThreadTime() {
        #expect(ThreadScaling.scaling(threads: 2, one: 100, many: 110) == 200.0 / 110)
        #expect(ThreadScaling.scaling(threads: 4, one: 100, many: 400) == 1)
        #expect(ThreadScaling.scaling(threads: 2, one: 100, many: 0) == nil)
    }

    @Test func aVariantWithoutAOneThreadRunIsComparedWithTheFamilyItVaries() {
        var set = sampleSet()
        set.results = [
            result("primitives/reads-threads", "lockfree", threads: 1, 100),
            result("primitives/reads-threads", "naive", threads: 1, 50),
            result("primitives/reads-threads", "lockfree", threads: 2, 110),
            result("primitives/reads-threads", "naive", threads: 2, 200),
            result("primitives/reads-threads-private", "lockfree", threads: 2, 100),
            // No one-thread run and no family it varies: left out.
            result("primitives/other-threads", "lockfree", threads: 2, 100),
        ]
        let section = ThreadScaling.section(set)
        #expect(section.contains("## Thread scaling"))
        #expect(section.contains("| primitives/reads-threads/threads=2 | 1.82× | 0.50× |"))
        #expect(
            section.contains(
                "| primitives/reads-threads-private/threads=2 (against primitives/reads-threads/threads=1) | 2.00× | – |"
            ))
        #expect(!section.contains("other-threads"))
        #expect(ThreadScaling.section(sampleSet()) == "")
    }

    @Test func otherParametersMustMatchAndTheLongestFamilyWins() {
        #expect(ThreadScaling.sameShape("books/threads/n=10", "books/threads-x/n=10"))
        #expect(!ThreadScaling.sameShape("books/threads/n=10", "books/threads-x/n=20"))
        #expect(!ThreadScaling.sameShape("books/threads/n=10", "books/threadsx/n=10"))
        var set = sampleSet()
        set.results = [
            result("p/a", "lockfree", threads: 1, 100),
            result("p/a-b", "lockfree", threads: 1, 50),
            result("p/a-b-c", "lockfree", threads: 2, 100),
        ]
        #expect(ThreadScaling.section(set).contains("| p/a-b-c/threads=2 (against p/a-b/threads=1) | 1.00× |"))
    }
}
