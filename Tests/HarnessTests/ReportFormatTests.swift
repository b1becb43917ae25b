import Foundation
import Testing

@testable import Harness

/// A result set shaped like the default suite: six groups, 164 benchmarks with names as long as
/// the suite's, the five contenders (the floor on a few), every metric, time in five processes
/// (so that ratios have intervals and the summary has verdicts).
func representativeSet() -> ResultSet {
    let groups: [(String, [String])] = [
        ("primitives", (0..<30).map { "primitives/track-properties-fire-\($0)/properties=\($0 % 3 == 0 ? 1000 : 8)" }),
        ("trees", (0..<25).map { "trees/grid-\($0)/width=3/layers=3/sources=2/static=1/read=1/iterations=2" }),
        ("books", (0..<25).map { "books/toggle-available-\($0)/n=100000/visible=50" }),
        ("settings", (0..<5).map { "settings/class-fields-\($0)" }),
        ("observation", (0..<3).map { "observation/continuous-logger-\($0)/changes=1000" }),
        (
            "render",
            (0..<76).map {
                "render/books-update-every-10th-\($0 / 4)/n=1000/visible=50/render=\([0, 500, 2000, 10000][$0 % 4])"
            }
        ),
    ]
    let contenders = ["lockfree", "locked", "apple", "naive"]
    var results: [BenchmarkResult] = []
    for (_, names) in groups {
        for (i, name) in names.enumerated() {
            let parts = name.split(separator: "/")
            let family = parts.filter { !$0.contains("=") }.joined(separator: "/")
            let parameters = Parameters(
                parts.filter { $0.contains("=") }.map { part in
                    let kv = part.split(separator: "=", maxSplits: 1)
                    return (String(kv[0]), String(kv[1]))
                })
            let scale: [Double] = [1, 1.3, 950, 0.9, 0.2]
            let ran = contenders + (i % 10 == 0 ? [Benchmark.floorContender] : [])
            for (c, contender) in ran.enumerated() {
                let base = Double(100 + 37 * i) * scale[c]
                let samples = (0..<100).map { (k: Int) -> Double in
                    let spread = Double((k * 7 + c) % 13) / 50
                    let drift = Double(k / 20) / 40
                    return base * (1 + spread + drift)
                }
                results.append(
                    BenchmarkResult(
                        benchmark: name, family: family, parameters: parameters, contender: contender,
                        metrics: [
                            MetricResult(
                                .time, summary: Summary(samples), samples: samples,
                                processes: Array(repeating: 20, count: 5)),
                            MetricResult(.setupTime, value: 56144),
                            MetricResult(.retainedBytes, value: 1_017_008),
                            MetricResult(.mallocs, value: c == 2 ? 4111 : 0),
                            MetricResult(.bytes, value: c == 2 ? 299_976 : 0),
                            MetricResult(.notifications, value: 1),
                            MetricResult(.invalidations, value: c == 3 ? 1000 : 1),
                            MetricResult(.evaluations, value: 1),
                            MetricResult(.unnecessary, value: 0),
                            MetricResult(.missed, value: 0),
                            MetricResult(.instructions, value: base * 4.5),
                        ]))
            }
        }
    }
    var metadata = sampleSet().metadata
    metadata.instructionCounter = "callgrind (valgrind-3.19.0)"
    metadata.mode = "default"
    return ResultSet(metadata: metadata, results: results)
}

/// The Markdown tables of `text`, each as its rows' cell counts (header and rule included).
func tableColumnCounts(_ text: String) -> [[Int]] {
    var tables: [[Int]] = []
    var current: [Int] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("|") {
            // Cells: the `|` not escaped as `\|`, less the outer two.
            let unescaped = line.replacingOccurrences(of: "\\|", with: "")
            current.append(unescaped.filter { $0 == "|" }.count - 1)
        } else if !current.isEmpty {
            tables.append(current)
            current = []
        }
    }
    if !current.isEmpty { tables.append(current) }
    return tables
}

/// The lines of `section` (`## Title`) in `text`, up to the next `## `.
func section(_ title: String, of text: String) -> String {
    guard let start = text.range(of: "\n## \(title)\n") else { return "" }
    let rest = text[start.upperBound...]
    return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
}

@Suite struct ReportFormatTests {
    @Test func summaryTableHasAtMostEightColumns() throws {
        let report = ReportFormat.format(representativeSet(), charts: ChartSet.charts(representativeSet()))
        let tables = tableColumnCounts(section("Summary", of: report))
        try #require(tables.count == 1)
        #expect(tables[0].count == 2 + 164)
        #expect(tables[0].allSatisfy { $0 == 8 })
        #expect(
            report.contains(
                "| benchmark | invalidations/op (lockfree / apple / naive) | lockfree p50 | apple p50 | naive p50 | apple ÷ lockfree | lockfree ÷ naive | verdict |\n"
            ))
    }

    @Test func everyTableKeepsItsColumnCount() {
        let set = representativeSet()
        let charts = ChartSet.charts(set)
        for page in [ReportFormat.format(set, charts: charts)] + GroupReport.pages(set, charts: charts).map(\.contents)
        {
            for table in tableColumnCounts(page) {
                #expect(Set(table).count == 1, "a table with rows of \(Set(table).sorted()) cells")
            }
        }
    }

    @Test func summaryPageOfTheSuitesShapeStaysUnder100KB() {
        let set = representativeSet()
        let report = ReportFormat.format(set, charts: ChartSet.charts(set))
        #expect(report.utf8.count < 100_000, "report.md is \(report.utf8.count) bytes")
        // The figures are all still there, a page per group.
        #expect(GroupReport.pages(set).map(\.contents).joined().utf8.count > 500_000)
    }

    static let reference = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("results/reference/results.json").path

    @Test(.enabled(if: FileManager.default.fileExists(atPath: reference)))
    func committedReferenceSummaryStaysUnder100KB() throws {
        let set = try JSONFormat.decode(try Data(contentsOf: URL(fileURLWithPath: Self.reference)))
        let report = ReportFormat.format(set, charts: ChartSet.charts(set))
        #expect(report.utf8.count < 100_000, "report.md is \(report.utf8.count) bytes")
        #expect(tableColumnCounts(section("Summary", of: report)).allSatisfy { $0.allSatisfy { $0 <= 8 } })
    }

    @Test func verdictsReadTheIntervals() {
        func ratio(_ low: Double?, _ high: Double?) -> RatioEstimate { RatioEstimate(ratio: 1, low: low, high: high) }
        #expect(Verdict.outcome(ratio(0.3, 0.8)) == .faster)
        #expect(Verdict.outcome(ratio(1.2, 2)) == .slower)
        #expect(Verdict.outcome(ratio(0.9, 1.1)) == .withinNoise)
        #expect(Verdict.outcome(ratio(nil, nil)) == .undecided)
        func verdict(_ outcomes: [Verdict.Outcome]) -> String {
            Verdict(contender: "lockfree", outcomes: zip(["apple", "naive"], outcomes).map { Verdict.Versus($0, $1) })
                .text
        }
        #expect(verdict([.faster, .faster]) == "lockfree fastest")
        #expect(verdict([.slower, .slower]) == "lockfree slowest")
        #expect(verdict([.withinNoise, .withinNoise]) == "within noise")
        #expect(verdict([.faster, .withinNoise]) == "beats apple; within noise of naive")
        #expect(verdict([.faster, .slower]) == "beats apple; naive faster")
        #expect(verdict([.faster, .failed]) == "beats apple; naive failed")
        #expect(verdict([.undecided, .undecided]) == "no interval")
    }

    @Test func summaryVerdictAgainstAppleAndNaive() {
        var set = sampleSet()  // lockfree 10...16 ns, apple 20...26 ns
        var naive = set.results[0]
        naive.contender = "naive"
        set.results.append(naive)
        let report = ReportFormat.format(set)
        #expect(
            report.contains(
                "| books/toggle/n=10 | 2 | 13.0 ns | 23.0 ns | 13.0 ns | 1.77× [1.25, 2.60] | 1.00× [0.62, 1.60] | beats apple; within noise of naive |\n"
            ))
        #expect(report.contains("The verdict reads those intervals"))
    }

    @Test func withoutIntervalsTheSummaryHasNoVerdictColumn() throws {
        // A compact results.json keeps no samples: ratios of the medians, no interval.
        let set = try JSONFormat.decode(SummaryJSON.encode(sampleSet()))
        let report = ReportFormat.format(set)
        #expect(
            report.contains(
                "| benchmark | invalidations/op (lockfree / apple) | lockfree p50 | apple p50 | apple ÷ lockfree |\n"))
        #expect(report.contains("| books/toggle/n=10 | 2 | 13.0 ns | 23.0 ns | 1.77× |\n"))
        #expect(report.contains("No verdict: no ratio here has an interval"))
    }

    @Test func summaryLeavesTheOtherContendersToTheGroupPages() {
        var set = sampleSet()
        var floor = set.results[0]
        floor.benchmark = "primitives/plain-read"
        floor.contender = Benchmark.floorContender
        var locked = set.results[0]
        locked.contender = "locked"
        set.results += [floor, locked]
        let report = ReportFormat.format(set)
        #expect(!section("Summary", of: report).contains("primitives/plain-read |"))
        #expect(
            report.contains(
                "The other contenders (`locked`, `floor`) are on the group pages, as are the benchmarks only they ran (`primitives/plain-read`)."
            ))
        #expect(report.contains("[books](report-books.md) · [primitives](report-primitives.md)"))
        let primitives = GroupReport.format(set, group: "primitives")
        #expect(primitives.contains("| benchmark | floor p50 / p99 | mallocs/op (floor) |"))
        #expect(!primitives.contains("books/toggle"))
    }

    @Test func groupPageNamesAreSafe() {
        #expect(GroupReport.fileName("books") == "report-books.md")
        #expect(GroupReport.fileName("a b/../c") == "report-a-b----c.md")
    }
}

@Suite(.serialized) struct ReportCommandTests {
    @Test func groupPagesAreWrittenBesideTheSummaryAndLinked() throws {
        var set = sampleSet()
        var primitive = set.results[0]
        primitive.benchmark = "primitives/read"
        primitive.family = "primitives/read"
        primitive.parameters = Parameters()
        set.results.append(primitive)
        let root = temporaryFolder()
        try ResultsWriter.writeFile(SummaryJSON.encode(set), to: root + "/results.json")
        let recorder = Recorder()
        let bench = Bench(suite: [], executor: InProcessExecutor(), console: recorder.console, commandLine: ["bench"])
        #expect(bench.main(["report", "--input", root + "/results.json"]) == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: root).sorted()
        #expect(files == ["primitives.svg", "report-books.md", "report-primitives.md", "report.md", "results.json"])
        let report = try #require(read(root + "/report.md"))
        for group in ["books", "primitives"] {
            #expect(report.contains("[\(group)](report-\(group).md)"))
            let page = try #require(read(root + "/report-\(group).md"))
            #expect(page.hasPrefix("# Benchmark results: \(group)\n\n[Summary and the run](report.md)."))
        }
        #expect(
            try #require(read(root + "/report-books.md")).contains(
                "<details><summary><code>books/toggle/n=10</code></summary>"))
        #expect(!files.contains { $0.contains(".partial-") })
    }

    @Test func githubActionBenchmarkExport() throws {
        let root = temporaryFolder()
        try ResultsWriter.writeFile(JSONFormat.encode(sampleSet()), to: root + "/in/results.json")
        let bench = Bench(suite: [], executor: InProcessExecutor(), console: Recorder().console, commandLine: ["bench"])
        #expect(
            bench.main([
                "report", "--input", root + "/in/results.json", "--output", root + "/out", "--format",
                "github-action-benchmark",
            ]) == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/out") == ["github-action-benchmark.json"])
        let text = try #require(read(root + "/out/github-action-benchmark.json"))

        // Decoded as the action reads it: an array of {name, unit, value, range?, extra?}.
        struct Entry: Decodable, Equatable {
            var name: String
            var unit: String
            var value: Double
            var range: String?
            var extra: String?
        }
        let entries = try JSONDecoder().decode([Entry].self, from: Data(text.utf8))
        #expect(
            entries.map(\.name) == [
                "books/toggle/n=10 · lockfree · time p50", "books/toggle/n=10 · lockfree · mallocs",
                "books/toggle/n=10 · apple · time p50", "books/toggle/n=10 · apple · mallocs",
            ])
        #expect(entries.map(\.unit) == ["ns/op", "mallocs/op", "ns/op", "mallocs/op"])
        #expect(entries.map(\.value) == [13, 1, 23, 1])
        let time = Summary([10, 11, 12, 13, 14, 15, 16])
        let low = try #require(time.ciLow)
        let high = try #require(time.ciHigh)
        #expect(entries[0].range == "± " + NumberFormat.plain(max(13 - low, high - 13)))
        #expect(
            entries[0].extra
                == "95% CI of p50: \(NumberFormat.plain(low)) … \(NumberFormat.plain(high))\np25 … p75: 11.5 … 14.5\nsamples: 7"
        )
        #expect(entries[1].range == nil && entries[1].extra == nil)

        // Failed runs are left out; names stay unique.
        let failed = GitHubActionBenchmark.entries(sampleSet(failure: "missed"))
        #expect(failed.map(\.name) == ["books/toggle/n=10 · apple · time p50", "books/toggle/n=10 · apple · mallocs"])
        let all = GitHubActionBenchmark.entries(representativeSet())
        #expect(Set(all.map(\.name)).count == all.count)
        #expect(Set(all.map(\.unit)) == ["ns/op", "instructions/op", "mallocs/op", "bytes/op", "bytes"])
    }
}
