import Foundation
import Testing

@testable import Harness

/// The compact `results.json` and baselines (`SummaryJSON`), `--metrics`, and what `check` does
/// when the baseline gates a figure the run did not measure.
@Suite(.serialized) struct CompactResultsTests {
    func bench(_ recorder: Recorder) -> Bench {
        Bench(
            suite: testSuite(), executor: InProcessExecutor(), console: recorder.console, commandLine: ["bench", "run"])
    }

    @Test func compactFormReadsBackWithOneLinePerResult() throws {
        let set = sampleSet(failure: "missed")
        let text = SummaryJSON.encode(set)
        let lines = text.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("{\"benchmark\":") }.count == set.results.count)
        #expect(!text.contains("\"samples\" : ["))
        let back = try JSONFormat.decode(text)
        #expect(back.metadata == set.metadata)
        #expect(back.results.map(\.benchmark) == set.results.map(\.benchmark))
        #expect(back.results.map(\.contender) == set.results.map(\.contender))
        #expect(back.results.map(\.failure) == set.results.map(\.failure))
        #expect(back.results.map(\.family) == ["books/toggle", "books/toggle"])
        #expect(back.results.map(\.parameters) == set.results.map(\.parameters))
        for (a, b) in zip(set.results, back.results) {
            #expect(b.metrics.map(\.name) == a.metrics.map(\.name))
            #expect(b.metrics.map(\.unit) == a.metrics.map(\.unit))
            let (x, y) = (try #require(a.metric(.time)?.summary), try #require(b.metric(.time)?.summary))
            #expect(
                [y.p0, y.p25, y.p50, y.p75, y.p90, y.p100, y.mean] == [
                    x.p0, x.p25, x.p50, x.p75, x.p90, x.p100, x.mean,
                ] && y.samples == x.samples)
            #expect(y.p99 == SummaryJSON.rounded(x.p99, digits: 4))
            #expect(b.metric(.time)?.samples == nil)
            #expect(b.metric(.invalidations)?.summary == a.metric(.invalidations)?.summary)
        }
    }

    /// The compact form keeps each timing process's median, so a report rendered from it gives
    /// the same paired ratios and intervals as the run's own (to the medians' four digits).
    @Test func pairedRatiosAndTheirIntervalsSurviveTheCompactForm() throws {
        var set = sampleSet()
        let processes = [[10.0, 11, 12], [13, 14, 15], [11, 12, 13], [12, 12.5, 13], [10, 10.5, 11]]
        let others = [[20.0, 21, 22], [25, 26, 27], [21, 22, 23], [24, 24.5, 26], [19, 20, 22]]
        for (i, r) in set.results.enumerated() {
            let p = r.contender == "lockfree" ? processes : others
            let samples = p.flatMap { $0 }
            set.results[i].metrics[0] = MetricResult(
                name: "time", unit: "ns", summary: Summary(samples), samples: samples, processes: p.map(\.count))
        }
        let original = try #require(set.timeRatio("books/toggle/n=10", "lockfree", "apple"))
        #expect(original.low != nil && original.high != nil)
        let text = SummaryJSON.encode(set)
        #expect(text.contains("\"processMedians\":{\"time\":[11,14,12,12.5,10.5]}"))
        let back = try JSONFormat.decode(text)
        #expect(back.results[0].metric(.time)?.samples == nil)
        let again = try #require(back.timeRatio("books/toggle/n=10", "lockfree", "apple"))
        #expect(again == original)
        // Baselines keep each time's process medians too: `compare` reads a time process by process.
        #expect(SummaryJSON.encode(set, detail: .gated).contains("\"processMedians\":{\"time\":[11,14,12,12.5,10.5]}"))
    }

    @Test func timesKeepFourSignificantDigits() {
        #expect(SummaryJSON.rounded(123.456789, digits: 4) == 123.5)
        #expect(SummaryJSON.rounded(0.000123456, digits: 4) == 0.0001235)
        #expect(SummaryJSON.rounded(0, digits: 4) == 0)
    }

    @Test func baselineKeepsWhatTheGateReadsAndRefusesADirtyTree() throws {
        let root = temporaryFolder()
        var set = sampleSet()
        set.metadata.gitCommit = "abc123-dirty"
        for i in set.results.indices {
            set.results[i].metrics.append(MetricResult(.retainedBytes, value: 4096))
        }
        let input = root + "/results.json"
        try ResultsWriter.writeFile(JSONFormat.encode(set), to: input)
        let target = root + "/base.json"
        let refused = Recorder()
        #expect(bench(refused).main(["baseline", "save", target, "--input", input]) == 64)  // names only
        let name = "test-\(UUID().uuidString)"
        let path = Baseline.path(for: name)
        defer {
            try? FileManager.default.removeItem(atPath: path)
            rmdir(Baseline.folder)
            rmdir("results")
        }
        let dirty = Recorder()
        #expect(bench(dirty).main(["baseline", "save", name, "--input", input]) == 64)
        #expect(
            dirty.err.withLock { $0 }
                == "bench: '\(input)' was measured at abc123-dirty, with uncommitted changes; commit and re-measure, or pass --allow-dirty\n"
        )
        #expect(!FileManager.default.fileExists(atPath: path))
        let allowed = Recorder()
        #expect(bench(allowed).main(["baseline", "save", name, "--input", input, "--allow-dirty"]) == 0)
        #expect(allowed.out.withLock { $0 } == "saved \(path) (measured at commit abc123-dirty)\n")
        let saved = try Baseline.load(name)
        #expect(saved.results.allSatisfy { $0.metric(.retainedBytes) == nil })
        let time = try #require(saved.results[0].metric(.time)?.summary)
        #expect(time.p50 == 13 && time.p25 == set.results[0].metric(.time)!.summary.p25 && time.samples == 7)
        #expect(time.p99.isNaN)  // not kept in a baseline
        // Where lockfree counted instructions, they are what the gate reads: time is not kept there,
        // nor the other contenders' instructions.
        var counted = sampleSet()
        for i in counted.results.indices {
            counted.results[i].metrics.append(MetricResult(name: "instructions", unit: "instructions", value: 100))
        }
        let kept = try JSONFormat.decode(SummaryJSON.encode(counted, detail: .gated, keep: Baseline.gated(in: counted)))
        #expect(
            kept.results.map { $0.metrics.map(\.name) } == [
                ["mallocs", "invalidations", "instructions"], ["mallocs", "invalidations"],
            ])
    }

    @Test func metricsChooseThePasses() throws {
        let root = temporaryFolder()
        #expect(
            bench(Recorder()).main(["run", "--quick", "--samples", "5", "--metrics", "time", "--output", root + "/t"])
                == 0)
        let timed = try JSONFormat.decode(try #require(read(root + "/t/results.json")))
        #expect(timed.results.allSatisfy { Set($0.metrics.map(\.name)) == ["time", "setup-time"] })
        #expect(bench(Recorder()).main(["run", "--quick", "--metrics", "counts", "--output", root + "/c"]) == 0)
        let counted = try JSONFormat.decode(try #require(read(root + "/c/results.json")))
        #expect(counted.results.allSatisfy { $0.metric(.time) == nil && $0.metric(.mallocs) == nil })
        #expect(counted.results.contains { $0.metric(.invalidations)?.summary.p50 == 1 })
        let bad = Recorder()
        #expect(bench(bad).main(["run", "--metrics", "speed"]) == 64)
        #expect(
            bad.err.withLock { $0 } == "bench: unknown metric group 'speed' (time, allocations, instructions, counts)\n"
        )
    }

    @Test func checkFailsWithFiveOnWhatItCouldNotMeasure() throws {
        let r = Recorder()
        var baseline: ResultSet?
        // In process, nothing counts instructions: a baseline that gates them cannot be checked.
        let error = #expect(throws: BenchError.self) {
            try checkAgainstEdited(r) { set in
                for i in set.results.indices where set.results[i].contender == "lockfree" {
                    set.results[i].metrics.append(MetricResult(name: "instructions", unit: "instructions", value: 1000))
                }
                baseline = set
            }
        }
        #expect(error?.code == .baselineUnusable)
        #expect(r.err.withLock { $0 }.contains("not checked: books/toggle/n=10 on lockfree: instructions\n"))
        let edited = try #require(baseline)
        #expect(Gate.unchecked(baseline: edited, current: edited) == [])
    }
}

@Suite struct ProgressTests {
    @Test func plainLinesOffATerminalAndDiagnosticsOnce() {
        let r = Recorder()
        let progress = ProgressReporter(console: r.console, quiet: false)
        let result = sampleSet().results[0]
        progress.handle(.roundBegan(round: 2, rounds: 3))
        progress.handle(.runEnded(index: 0, total: 2, result: result))
        progress.diagnostic("trees/grid [lockfree] sum 16")
        progress.diagnostic("trees/grid [lockfree] sum 16")
        progress.handle(.note("instructions not counted for 1 run(s)"))
        #expect(
            r.err.withLock { $0 } == """
                timing round 3 of 3
                [1/2] books/toggle/n=10 lockfree: p50 13.0 ns
                trees/grid [lockfree] sum 16
                bench: instructions not counted for 1 run(s)

                """)
        let quiet = Recorder()
        let silent = ProgressReporter(console: quiet.console, quiet: true)
        silent.handle(.runEnded(index: 0, total: 2, result: result))
        silent.diagnostic("x")
        #expect(quiet.err.withLock { $0 } == "")
    }

    @Test func aTerminalGetsOneLiveLineWithTimeLeft() {
        let r = Recorder()
        let live = Console(out: r.console.out, err: r.console.err, interactive: true)
        let progress = ProgressReporter(console: live, quiet: false)
        let run = PlannedRun(benchmark: testSuite()[1], parameters: Parameters([("n", "10")]))
        progress.handle(.passBegan(index: 0, total: 66, run: run, pass: "timing 2/3", done: 0))
        #expect(r.err.withLock { $0 } == "\r\u{1B}[K[1/66] books/toggle/n=10 lockfree  timing 2/3")
        progress.handle(.runEnded(index: 0, total: 66, result: sampleSet().results[0]))
        progress.handle(.passBegan(index: 1, total: 66, run: run, pass: "counting", done: 0.5))
        #expect(r.err.withLock { $0 }.hasSuffix(" left"))
        progress.finish()
        #expect(r.err.withLock { $0 }.hasSuffix("\r\u{1B}[K"))
        #expect(ProgressReporter.duration(45) == "45 s" && ProgressReporter.duration(185) == "3 min")
    }
}
