import Foundation
import Testing

@testable import Harness

/// A small result set with known values, shared by formatter and gate tests.
func sampleSet(
    lockfreeTime: [Double] = [10, 11, 12, 13, 14, 15, 16], appleTime: [Double] = [20, 21, 22, 23, 24, 25, 26],
    invalidations: Double = 2, mallocs: Double = 1, failure: String? = nil
) -> ResultSet {
    func result(_ contender: String, _ time: [Double]) -> BenchmarkResult {
        BenchmarkResult(
            benchmark: "books/toggle/n=10", family: "books/toggle", parameters: Parameters([("n", "10")]),
            contender: contender,
            metrics: [
                MetricResult(.time, summary: Summary(time), samples: time),
                MetricResult(name: "mallocs", unit: "count", value: mallocs),
                MetricResult(name: "invalidations", unit: "count", value: invalidations),
            ], failure: contender == "apple" ? nil : failure)
    }
    let metadata = RunMetadata(
        date: "2026-01-02T03:04:05Z", command: ["swift", "run", "-c", "release", "bench", "run", "--filter", "a b"],
        machine: "Linux 6 x86_64",
        cpu: "Test CPU", cores: 2, toolchain: "6.3.1", toolchainOnPath: "unknown", allocator: "jemalloc 5.3.0",
        allocationNote: nil, gitCommit: "abc123", mode: "quick")
    return ResultSet(metadata: metadata, results: [result("lockfree", lockfreeTime), result("apple", appleTime)])
}

@Suite struct CSVTests {
    @Test func quotesPerRFC4180() {
        #expect(CSVFormat.quote("plain") == "plain")
        #expect(CSVFormat.quote("a,b") == "\"a,b\"")
        #expect(CSVFormat.quote("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSVFormat.quote("two\nlines") == "\"two\nlines\"")
        #expect(CSVFormat.row(["x", "y,z", ""]) == "x,\"y,z\",")
    }

    @Test func formatsOneRowPerMetric() {
        var set = sampleSet(lockfreeTime: [1, 2, 3, 4, 5], failure: "missed, badly")
        set.results.removeLast()
        let expected = """
            benchmark,contender,metric,unit,samples,min,p50,p90,p99,max,mean,p25,p75,ci_low,ci_high,failure
            books/toggle/n=10,lockfree,time,ns,5,1,3,4.6,4.96,5,3,2,4,,,"missed, badly"
            books/toggle/n=10,lockfree,mallocs,count,1,1,1,1,1,1,1,1,1,,,"missed, badly"
            books/toggle/n=10,lockfree,invalidations,count,1,2,2,2,2,2,2,2,2,,,"missed, badly"

            """
        #expect(CSVFormat.format(set) == expected)
    }
}

@Suite struct MarkdownTests {
    @Test func tableWithAlignmentAndEscaping() {
        let table = MarkdownTable(header: ["name", "value"], rows: [["a|b", "1"], ["c", "2"]], rightAligned: [1])
        #expect(table.text == "| name | value |\n|---|---:|\n| a\\|b | 1 |\n| c | 2 |\n")
    }

    @Test func summaryTableSideBySide() {
        let text = SummaryTable.format(sampleSet())
        let expected = """
            | benchmark | lockfree p50 | apple p50 | lockfree mallocs/op | apple mallocs/op | lockfree invalidations/op | apple invalidations/op | lockfree ÷ apple |
            |---|---:|---:|---:|---:|---:|---:|---:|
            | books/toggle/n=10 | 13.0 ns | 23.0 ns | 1 | 1 | 2 | 2 | 0.57× [0.38, 0.80] |

            """
        #expect(text == expected)
        // Where both were counted, the instruction ratio leads and the time ratio follows.
        var counted = sampleSet()
        counted.results[0].metrics.append(MetricResult(.instructions, value: 100))
        counted.results[1].metrics.append(MetricResult(.instructions, value: 400))
        #expect(SummaryTable.format(counted).contains("| 0.25× instr · 0.57× [0.38, 0.80] time |"))
        #expect(GroupReport.format(counted, group: "books").contains("| 0.25× instr · 0.57× [0.38, 0.80] time |"))
    }

    @Test func floorRowsGetATimeColumnNamedForWhatTheyAre() {
        var set = sampleSet()
        var floor = set.results[0]
        floor.benchmark = "primitives/plain-read"
        floor.contender = Benchmark.floorContender
        set.results.append(floor)
        let text = SummaryTable.format(set)
        #expect(
            text.hasPrefix(
                "| benchmark | lockfree p50 | apple p50 | floor (no observation) p50 | lockfree mallocs/op | apple mallocs/op | lockfree invalidations/op | apple invalidations/op | lockfree ÷ apple |\n"
            ))
        #expect(text.contains("| primitives/plain-read | – | – | 13.0 ns | – | – | – | – |  |"))
        #expect(!text.contains("baseline"))
    }

    @Test func closingLinesNameTheFilesTheSlowestAndTheFailures() {
        let passed = SummaryTable.closing(sampleSet(), folder: "results/latest", files: ["results.csv", "report.md"])
        #expect(
            passed == """
                Results: results/latest/ (results.csv, report.md)
                Slowest: books/toggle/n=10 on apple, 23.0 ns per operation (p50)
                Failed: none of 2 runs

                """)
        let failed = SummaryTable.closing(sampleSet(failure: "missed"), folder: "out", files: ["results.json"])
        #expect(failed.hasSuffix("Failed: 1 of 2 runs: books/toggle/n=10 on lockfree (reasons above)\n"))
    }

    @Test func reportReproducesTheCommandOnce() {
        var set = sampleSet()
        set.metadata.command = MetadataCollector.reproducible(["/some/bin/bench", "run", "--filter", "^books/"])
        #expect(ReportFormat.format(set).contains("```sh\nswift run -c release bench run --filter '^books/'\n```"))
    }

    @Test func reportHasSummaryRatiosVerdictLinksAndCommand() {
        let report = ReportFormat.format(sampleSet())
        #expect(
            report.contains(
                """
                | benchmark | invalidations/op (lockfree / apple) | lockfree p50 | apple p50 | apple ÷ lockfree | verdict |
                |---|---:|---:|---:|---:|---|
                | books/toggle/n=10 | 2 | 13.0 ns | 23.0 ns | 1.77× [1.25, 2.60] | lockfree fastest |
                """))
        #expect(report.contains("[books](report-books.md)"))
        #expect(!report.contains("<details><summary><code>"))
        #expect(report.contains("```sh\nswift run -c release bench run --filter 'a b'\n```"))
        let page = GroupReport.format(sampleSet(), group: "books")
        #expect(
            page.contains(
                "| books/toggle/n=10 | 13.0 ns / 15.9 ns | 23.0 ns / 25.9 ns | 1 / 1 | 2 / 2 | 0.57× [0.38, 0.80] |"))
        #expect(
            page.contains(
                "| benchmark | lockfree p50 / p99 | apple p50 / p99 | mallocs/op (lockfree / apple) | invalidations/op (lockfree / apple) | lockfree ÷ apple (instructions; p50 time, 95% interval) |"
            ))
        #expect(page.contains("<details><summary><code>books/toggle/n=10</code></summary>"))
        #expect(page.contains("[Summary and the run](report.md)"))
    }

    @Test func reportShowsInstructionsOrWhyTheyAreMissing() {
        var set = sampleSet()
        set.metadata.instructionNote = "valgrind is not on PATH (apt-get install valgrind)"
        let without = GroupReport.format(set, group: "books")
        #expect(
            without.contains("Instruction counts are unavailable: valgrind is not on PATH (apt-get install valgrind)."))
        #expect(!without.contains("instructions/op"))
        set.metadata.instructionNote = nil
        set.metadata.instructionCounter = "callgrind (valgrind-3.19.0)"
        for i in set.results.indices {
            let value = set.results[i].contender == "lockfree" ? 60.0 : 1372
            set.results[i].metrics.append(MetricResult(name: "instructions", unit: "instructions", value: value))
        }
        let with = GroupReport.format(set, group: "books")
        #expect(
            with.contains(
                "| mallocs/op (lockfree / apple) | invalidations/op (lockfree / apple) | instructions/op (lockfree / apple) |"
            ))
        #expect(with.contains("| 1 / 1 | 2 / 2 | 60 / 1372 |"))
        #expect(with.contains("counted by callgrind (valgrind-3.19.0)"))
        #expect(ReportFormat.format(set).contains("| instructions | callgrind (valgrind-3.19.0) |"))
    }

    @Test func comparisonMarksOverlappingRanges() {
        let old = sampleSet()
        let new = sampleSet(
            lockfreeTime: [30, 31, 32, 33, 34, 35, 36], appleTime: [21, 22, 23, 24, 25, 26, 27], mallocs: 3)
        let text = Comparison.format(old: old, new: new)
        #expect(text.contains("| books/toggle/n=10 | lockfree | time | 13.0 ns | 33.0 ns | +20.0 ns | 2.54 |"))
        #expect(text.contains("| books/toggle/n=10 | apple | time | 23.0 ns | 24.0 ns | +1.00 ns | 1.04 (?) |"))
        #expect(text.contains("| books/toggle/n=10 | lockfree | mallocs | 1 | 3 | +2 | 3.00 |"))
    }

    @Test func numbers() {
        #expect(NumberFormat.plain(3) == "3")
        #expect(NumberFormat.plain(0.125) == "0.125")
        #expect(NumberFormat.plain(1.0 / 3) == "0.3333")
        #expect(NumberFormat.readable(1234.6) == "1235")
        #expect(NumberFormat.readable(0.0123) == "0.0123")
        #expect(NumberFormat.duration(850) == "850 ns")
        #expect(NumberFormat.duration(12_345) == "12.3 µs")
        #expect(NumberFormat.duration(4_560_000) == "4.56 ms")
        #expect(NumberFormat.duration(-1500) == "-1.50 µs")
        #expect(NumberFormat.ratio(RatioEstimate(ratio: 0.5, low: 0.25, high: 1)) == "0.50× [0.25, 1.00]")
        #expect(NumberFormat.ratio(RatioEstimate(ratio: 0.0146, low: 0.0139, high: 0.0153)) == "0.015× [0.014, 0.015]")
        #expect(NumberFormat.ratio(RatioEstimate(ratio: 12.34, low: nil, high: nil)) == "12.3×")
        #expect(
            NumberFormat.comparison(instructions: 0.0146, time: RatioEstimate(ratio: 0.5, low: 0.25, high: 1))
                == "0.015× instr · 0.50× [0.25, 1.00] time")
        #expect(
            NumberFormat.comparison(instructions: nil, time: RatioEstimate(ratio: 0.5, low: nil, high: nil)) == "0.50×")
        #expect(NumberFormat.comparison(instructions: nil, time: nil) == "")
    }

    @Test func shellQuoting() {
        #expect(shellQuoted("--filter") == "--filter")
        #expect(shellQuoted("a b") == "'a b'")
        #expect(shellQuoted("it's") == "'it'\\''s'")
    }
}

@Suite struct JSONTests {
    @Test func roundTrips() throws {
        let set = sampleSet(failure: "oops")
        let decoded = try JSONFormat.decode(JSONFormat.encode(set))
        #expect(decoded == set)
        #expect(decoded.results[0].metric(.time)?.samples == [10, 11, 12, 13, 14, 15, 16])
    }

    @Test func rejectsGarbage() {
        #expect(throws: (any Error).self) { try JSONFormat.decode("{ not json") }
    }
}

@Suite struct SVGTests {
    @Test func logLogLinesPlacePointsOnDecades() {
        let svg = SVGChart.lines(
            title: "t", xLabel: "n", yLabel: "time",
            series: [SVGChart.Series(name: "lockfree", points: [(x: 10, y: 100), (x: 1000, y: 10_000)])],
            yTick: NumberFormat.duration)
        // Plot area x 90...550, y 40...384; x decades 1...3, y decades 2...4.
        #expect(
            svg.contains("<polyline points=\"90,384 550,40\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>"))
        #expect(svg.contains(">100 ns</text>"))  // y tick labels carry units
        #expect(svg.contains(">10.0 µs</text>"))
        #expect(svg.contains(">lockfree</text>"))  // legend
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"440\""))
        #expect(svg.hasSuffix("</svg>\n"))
    }

    @Test func barsExact() {
        let svg = SVGChart.bars(
            title: "T", axisLabel: "time", categories: ["a"], series: [(name: "x", values: [10])],
            tick: NumberFormat.duration)
        let expected = """
            <svg xmlns="http://www.w3.org/2000/svg" width="900" height="132" viewBox="0 0 900 132" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="450" y="20" text-anchor="middle" font-size="15" font-weight="bold">T</text>
            <rect x="17" y="30" width="12" height="12" fill="#1f77b4"/>
            <text x="33" y="40">x</text>
            <line x1="17" y1="52" x2="17" y2="82" stroke="#ddd"/>
            <text x="17" y="98" text-anchor="middle">10.0 ns</text>
            <line x1="870" y1="52" x2="870" y2="82" stroke="#ddd"/>
            <text x="870" y="98" text-anchor="middle">100 ns</text>
            <text x="443.5" y="118" text-anchor="middle">time</text>
            <text x="11" y="67" text-anchor="end">a</text>
            <rect x="17" y="56" width="1" height="12" fill="#1f77b4"><title>x: 10.0 ns</title></rect>
            <line x1="17" y1="52" x2="17" y2="82" stroke="#333"/>
            </svg>

            """
        #expect(svg == expected)
    }

    @Test func escapesText() {
        #expect(SVGChart.escape("a<b & \"c\">") == "a&lt;b &amp; &quot;c&quot;&gt;")
    }

    @Test func chartSetDrawsPrimitivesAndScaling() {
        var set = sampleSet()
        var other = set.results
        for i in other.indices {
            other[i].benchmark = "books/toggle/n=1000"
            other[i].parameters = Parameters([("n", "1000")])
        }
        var primitive = set.results[0]
        primitive.benchmark = "primitives/read"
        primitive.family = "primitives/read"
        primitive.parameters = Parameters()
        set.results += other + [primitive]
        let charts = ChartSet.charts(set)
        #expect(
            charts.map(\.fileName) == ["primitives.svg", "books-toggle-time.svg", "books-toggle-invalidations.svg"])
        #expect(charts.map(\.group) == ["primitives", "books", "books"])
        let report = ReportFormat.format(set, charts: charts)
        #expect(report.contains("![books/toggle: time per operation against n](books-toggle-time.svg)"))
        let series = ChartSet.lineSeries(
            set.results.filter { $0.family == "books/toggle" }, contenders: set.contenders, metric: .time)
        #expect(
            series == [
                SVGChart.Series(name: "lockfree", points: [(x: 10, y: 13), (x: 1000, y: 13)]),
                SVGChart.Series(name: "apple", points: [(x: 10, y: 23), (x: 1000, y: 23)]),
            ])
    }
}

@Suite struct LatencyPercentilesTests {
    /// One plot per benchmark that records latency, one line per contender that ran it: p25 to p99
    /// from the latency samples, p99.9 from its own metric, on the nines scale.
    @Test func eachLatencyBenchmarkGetsAPercentilePlot() {
        var set = sampleSet()
        let latencies = (1...1000).map(Double.init)
        var stream = set.results[0]
        stream.benchmark = "stream/latency"
        stream.family = "stream/latency"
        stream.parameters = Parameters()
        stream.metrics = [
            MetricResult(.latency, summary: Summary(latencies)),
            MetricResult(.latencyTail, value: 999),
        ]
        set.results.append(stream)
        let charts = LatencyPercentiles.charts(set)
        #expect(charts.map(\.fileName) == ["stream-latency-latency.svg"])
        #expect(charts.map(\.group) == ["stream"])
        #expect(ChartSet.charts(set).contains(charts[0]))
        let svg = charts.first?.svg ?? ""
        for tick in ["p0", "p90", "p99", "p99.9"] { #expect(svg.contains(">\(tick)</text>"), "\(tick)") }
        // One line, for the one contender that ran it.
        #expect(svg.components(separatedBy: "<polyline").count == 2)
        #expect(svg.contains("lockfree: 999 ns"))
        #expect(abs(LatencyPercentiles.nines(0.99) - 2) < 1e-9)
        #expect(LatencyPercentiles.label(LatencyPercentiles.nines(0.999)) == "p99.9")
    }
}

@Suite struct ResultSetTests {
    @Test func contendersPutTheSuitesThreeFirst() {
        var set = sampleSet()
        var extra = set.results[0]
        extra.contender = Benchmark.floorContender
        var naive = set.results[0]
        naive.contender = "naive"
        set.results = [extra] + set.results + [naive]
        #expect(set.contenders == ["lockfree", "apple", "naive", "floor"])
        #expect(set.referenceContender == "lockfree")
    }

    @Test func failedContenderHasNoRatio() {
        let set = sampleSet(failure: "missed")
        #expect(set.timeRatio("books/toggle/n=10", "lockfree", "apple") == nil)
        #expect(sampleSet().timeRatio("books/toggle/n=10", "lockfree", "apple")?.ratio == 13.0 / 23.0)
    }
}
