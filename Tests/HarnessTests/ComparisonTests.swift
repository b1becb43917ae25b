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
    /// within the gate's tolerance. The first lines say what changed; each kind is listed by its
    /// own rule, largest change first.
    @Test func leadsWithWhatChangedEachKindByItsRule() {
        let old = set([
            result("lockfree", medians: [10, 11, 12], invalidations: 2, mallocs: 1),
            result("apple", medians: [20, 24, 22], invalidations: 2, mallocs: 1),
        ])
        let new = set([
            result("lockfree", medians: [30, 33, 36], invalidations: 3, mallocs: 1.4),
            result("apple", medians: [23, 21, 22], invalidations: 2, mallocs: 2),
        ])
        let text = Comparison.format(old: old, new: new, oldName: "a", newName: "b")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "# bench compare")
        #expect(lines[2].hasPrefix("Old: a: commit "))
        #expect(lines[3].hasPrefix("New: b: commit "))
        #expect(lines[5] == "**Changed**: 1 count, 1 allocation figure, 1 time (6 figures compared).")
        #expect(text.contains("### Counts (held exactly): 1 of 2, largest change first"))
        #expect(text.contains("| books/toggle/n=10 | lockfree | invalidations | 2 | 3 | 1.50 | exact |"))
        #expect(text.contains("| books/toggle/n=10 | apple | mallocs | 1 | 2 | 2.00 | beyond ±0.5 |"))
        #expect(text.contains("### Times: 1 of 2, largest change first"))
        #expect(text.contains("| books/toggle/n=10 | lockfree | time | 11.0 ns | 33.0 ns | 3.00 |"))
        #expect(!text.contains("| books/toggle/n=10 | apple | time | 22.0 ns | 22.0 ns | 1.00 |"))
        #expect(text.contains("## How changes are called"))
        // Then every figure.
        #expect(text.contains("| books/toggle/n=10 | apple | time | 22.0 ns | 22.0 ns | 0.00 ns | 1.00 (?) |"))
        // Nothing changed: said in the first lines.
        let same = Comparison.format(old: old, new: old)
        #expect(same.contains("\n**Nothing changed** beyond noise or tolerance (6 figures compared).\n"))
    }

    /// Figures other than times, each by its rule: memory beyond ×1.1 and 64 bytes, instructions
    /// beyond the gate's factor, a timing value measured once beyond ×1.5; failures that appeared
    /// or disappeared, results on one side only, and an interrupted input, all said.
    @Test func everyKindOfFigureFailuresAndMissingResultsAreShown() {
        func one(_ benchmark: String, _ metrics: [MetricResult], failure: String? = nil) -> BenchmarkResult {
            var r = BenchmarkResult(
                benchmark: benchmark, family: benchmark, parameters: Parameters([]), contender: "lockfree",
                metrics: metrics)
            r.failure = failure
            return r
        }
        let old = set([
            one(
                "m",
                [
                    MetricResult(.retainedBytes, value: 1000), MetricResult(.bytes, value: 100),
                    MetricResult(.instructions, value: 100), MetricResult(.setupTime, value: 1000),
                ]),
            one("f", [MetricResult(.invalidations, value: 1)]),
            one("g", [MetricResult(.invalidations, value: 1)], failure: "timed out"),
            one("gone", [MetricResult(.invalidations, value: 1)]),
        ])
        var interrupted = sampleSet().metadata
        interrupted.interrupted = InterruptedRun(
            signal: "SIGHUP", rounds: 2, partial: [], notMeasured: ["x"], instructionsNotCounted: [])
        let new = ResultSet(
            metadata: interrupted,
            results: [
                one(
                    "m",
                    [
                        MetricResult(.retainedBytes, value: 2000), MetricResult(.bytes, value: 150),
                        MetricResult(.instructions, value: 125), MetricResult(.setupTime, value: 1400),
                    ]),
                one("f", [MetricResult(.invalidations, value: 1)], failure: "missed update"),
                one("g", [MetricResult(.invalidations, value: 1)]),
                one("new", [MetricResult(.invalidations, value: 1)]),
            ])
        let text = Comparison.format(old: old, new: new)
        #expect(
            text.contains(
                "**Changed**: 1 memory figure, 1 instruction count; 1 failure(s) appeared, 1 failure(s) disappeared, "
                    + "1 result(s) only in old, 1 only in new"))
        #expect(text.contains("| m | lockfree | retained-bytes | 1000 | 2000 | 2.00 | beyond ×1.1 and 64 B |"))
        #expect(!text.contains("| m | lockfree | bytes | 100 | 150 | 1.50 | beyond"))
        #expect(text.contains("| m | lockfree | instructions | 100 | 125 | 1.25 | beyond ×1.1 |"))
        #expect(!text.contains("| m | lockfree | setup-time | 1.00 µs | 1.40 µs | 1.40 | beyond"))
        #expect(text.contains("| f | lockfree | appeared |  | missed update |"))
        #expect(text.contains("| g | lockfree | disappeared | timed out |  |"))
        #expect(text.contains("Only in old (1): gone on lockfree"))
        #expect(text.contains("Only in new (1): new on lockfree"))
        #expect(text.contains("**interrupted by SIGHUP** (1 benchmark(s) not measured, 0 in fewer rounds)"))
    }

    /// The time rule on many figures: 200 times of a run against another of the same code (each
    /// time's processes spread 3%, each run 2% off per figure, from a fixed seed): nothing is
    /// called; the same with one time slowed 20%: that one alone, first.
    @Test func sameCodeListsNoTimeAndARealSlowdownIsListed() {
        var rng = SplitMix(seed: 7)
        func normal() -> Double {
            // Box-Muller.
            let u = max(rng.unit(), 1e-12)
            let v = rng.unit()
            return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
        }
        var old: [BenchmarkResult] = []
        var same: [BenchmarkResult] = []
        var slowed: [BenchmarkResult] = []
        for i in 0..<200 {
            let base = 100.0 * Double(i + 1)
            let runA = 0.02 * normal()
            let runB = 0.02 * normal()
            let a = (0..<5).map { _ in base * exp(runA + 0.03 * normal()) }
            let b = (0..<5).map { _ in base * exp(runB + 0.03 * normal()) }
            old.append(timed("t\(i)", a))
            same.append(timed("t\(i)", b))
            slowed.append(timed("t\(i)", i == 57 ? b.map { $0 * 1.2 } : b))
        }
        let sameText = Comparison.format(old: set(old), new: set(same))
        #expect(sameText.contains("**Nothing changed**"), "\(sameText.prefix(2000))")
        let slowedText = Comparison.format(old: set(old), new: set(slowed))
        #expect(slowedText.contains("**Changed**: 1 time (200 figures compared)."), "\(slowedText.prefix(2000))")
        #expect(slowedText.contains("### Times: 1 of 200, largest change first\n\n"))
        let table = slowedText[slowedText.range(of: "### Times")!.upperBound...]
        let firstRow = table.split(separator: "\n").first { $0.hasPrefix("| t") }
        #expect(firstRow?.hasPrefix("| t57 | lockfree | time |") == true)
    }

    func timed(_ benchmark: String, _ medians: [Double]) -> BenchmarkResult {
        BenchmarkResult(
            benchmark: benchmark, family: benchmark, parameters: Parameters([]), contender: "lockfree",
            metrics: [
                MetricResult(
                    name: "time", unit: "ns", summary: Summary(medians), samples: medians,
                    processes: medians.map { _ in 1 })
            ])
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
            #expect(r.out.withLock { $0 }.contains("**Changed**: 1 count (3 figures compared)."), "\(a)")
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

/// A small deterministic generator (SplitMix64), so that a statistical test reads the same numbers
/// on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// Two default runs of the same commit, recorded on the 2-core development machine
/// (`Recorded/`, their times only): what `compare` says of real noise.
@Suite struct RecordedComparisonTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Recorded")

    func recorded(_ name: String) throws -> ResultSet {
        try JSONFormat.decode(try #require(read(Self.folder.appendingPathComponent(name).path)))
    }

    /// Nothing listed between the two runs (the rule allows a false call in 1 comparison in 20);
    /// with one time of the second run slowed 20% in every process, that time alone is listed.
    @Test func twoDefaultRunsOfTheSameCodeAndARealSlowdown() throws {
        let a = try recorded("default-run-1.json")
        var b = try recorded("default-run-2.json")
        let same = Comparison.format(old: a, new: b)
        #expect(same.contains("\n**Nothing changed** beyond noise or tolerance"), "\(same.prefix(3000))")
        let slowed = "trees/kairo-deep"
        let index = try #require(b.results.firstIndex { $0.benchmark == slowed && $0.contender == "lockfree" })
        let m = try #require(b.results[index].metrics.firstIndex { $0.metric == .time })
        var time = b.results[index].metrics[m]
        time.processMedians = time.processMedians?.map { $0 * 1.2 }
        time.summary = Summary(time.processMedians ?? [])
        b.results[index].metrics[m] = time
        let text = Comparison.format(old: a, new: b)
        #expect(text.contains("**Changed**: 1 time ("), "\(text.prefix(3000))")
        let table = text[text.range(of: "### Times")!.upperBound...]
        let first = table.split(separator: "\n").first { $0.hasPrefix("| ") && !$0.hasPrefix("| benchmark") }
        #expect(first?.hasPrefix("| \(slowed) | lockfree | time |") == true)
    }
}
