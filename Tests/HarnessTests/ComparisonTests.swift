import Foundation
import Testing

@testable import Harness

@Suite struct ComparisonTests {
    /// A result of `books/toggle/n=10` on `contender`: time in three processes of two samples each,
    /// with medians `medians`; `invalidations` and `mallocs` per operation.
    func result(_ contender: String, medians: [Double], invalidations: Double, mallocs: Double) -> BenchmarkResult {
        let samples = medians.flatMap { [$0, $0] }
        return BenchmarkResult(
            benchmark: "books/toggle/n=10", family: "books/toggle", parameters: Parameters([("n", "10")]),
            contender: contender,
            metrics: [
                MetricResult(.time, summary: Summary(samples), samples: samples, processes: [2, 2, 2]),
                MetricResult(.mallocs, value: mallocs),
                MetricResult(.invalidations, value: invalidations),
            ])
    }

    func set(_ results: [BenchmarkResult]) -> ResultSet {
        ResultSet(metadata: sampleSet().metadata, results: results)
    }

    /// Lockfree's time tripled in every process, its invalidations went from 2 to 3, apple's
    /// mallocs from 1 to 2; apple's time moved within its processes' spread, lockfree's mallocs
    /// within the gate's tolerance. The lead lists the three changes, largest first.
    @Test func leadsWithWhatChangedBeyondNoiseLargestFirst() {
        let old = set([
            result("lockfree", medians: [10, 11, 12], invalidations: 2, mallocs: 1),
            result("apple", medians: [20, 24, 22], invalidations: 2, mallocs: 1),
        ])
        let new = set([
            result("lockfree", medians: [30, 33, 36], invalidations: 3, mallocs: 1.4),
            result("apple", medians: [23, 21, 22], invalidations: 2, mallocs: 2),
        ])
        let text = Comparison.format(old: old, new: new)
        let lead = String(text[..<text.range(of: "## Every figure")!.lowerBound])
        // Welch on the logs: both sides have the same spread, so 4 degrees of freedom (t = 2.776).
        let logs = { (m: [Double]) in m.map { log($0) } }
        let half = 2.776 * (2 * RatioEstimate.variance(logs([10, 11, 12])) / 3).squareRoot()
        let low = String(format: "%.2f", exp(log(3.0) - half))
        let high = String(format: "%.2f", exp(log(3.0) + half))
        #expect(
            lead == """
                ## Changed beyond noise

                3 of 6 figures, largest change first.

                | benchmark | contender | metric | old | new | new ÷ old | 95% interval |
                |---|---|---|---:|---:|---:|---|
                | books/toggle/n=10 | lockfree | time | 11.0 ns | 33.0 ns | 3.00 | \(low) … \(high) |
                | books/toggle/n=10 | apple | mallocs | 1 | 2 | 2.00 | beyond ±0.5 |
                | books/toggle/n=10 | lockfree | invalidations | 2 | 3 | 1.50 | exact |

                A sampled figure (time, latency) changed where the 95% interval of new ÷ old excludes 1: a \
                Welch t interval on the logarithms of each timing process's median, or, where either side has a \
                single process, the ratio of the medians' 95% intervals. Counts and a workload's values are held \
                exactly; mallocs and instructions to the gate's default tolerances.


                """)
        // Then every figure, as before.
        #expect(text.contains("| books/toggle/n=10 | apple | time | 22.0 ns | 22.0 ns | 0.00 ns | 1.00 (?) |"))
        #expect(text.hasSuffix("within noise.\n"))
        // Nothing changed: said in one line.
        #expect(
            Comparison.format(old: old, new: old).hasPrefix(
                "## Changed beyond noise\n\nNothing changed beyond noise (6 figures compared).\n\n## Every figure\n"))
    }

    /// `compare` takes the folders `bench run --output` writes, as well as their results.json.
    @Test func compareReadsResultsFolders() throws {
        let root = temporaryFolder()
        let old = set([result("lockfree", medians: [10, 11, 12], invalidations: 2, mallocs: 1)])
        let new = set([result("lockfree", medians: [10, 11, 12], invalidations: 3, mallocs: 1)])
        try ResultsWriter.write(Bench.files(old, formats: RunOptions.Format.runDefault), to: root + "/reference")
        try ResultsWriter.write(Bench.files(new, formats: RunOptions.Format.runDefault), to: root + "/latest")
        let bench = Bench(suite: testSuite(), executor: InProcessExecutor(), console: Recorder().console)
        for (a, b) in [(root + "/reference", root + "/latest"), (root + "/reference/results.json", root + "/latest")] {
            let r = Recorder()
            let b2 = Bench(suite: bench.suite, executor: bench.executor, console: r.console)
            #expect(b2.main(["compare", a, b]) == 0)
            #expect(r.out.withLock { $0 }.contains("1 of 3 figures, largest change first."), "\(a)")
            #expect(
                r.out.withLock { $0 }.contains(
                    "| books/toggle/n=10 | lockfree | invalidations | 2 | 3 | 1.50 | exact |"))
        }
        let missing = Recorder()
        let b3 = Bench(suite: bench.suite, executor: bench.executor, console: missing.console)
        try FileManager.default.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        #expect(b3.main(["compare", root + "/empty", root + "/latest"]) == 5)
        #expect(missing.err.withLock { $0 } == "bench: results '\(root)/empty/results.json' does not exist\n")
    }
}
