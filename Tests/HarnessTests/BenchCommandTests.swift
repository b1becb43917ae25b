import Foundation
import Synchronization
import Testing

@testable import Harness

/// Records what a command printed.
final class Recorder: Sendable {
    let out = Mutex("")
    let err = Mutex("")
    var console: Console {
        Console(
            out: { t in self.out.withLock { $0 += t } }, err: { t in self.err.withLock { $0 += t } }, interactive: false
        )
    }
}

/// Counts setups, to prove that nothing ran.
let setups = Atomic<Int>(0)

func testSuite(failing: Bool = false) -> [Benchmark] {
    ["lockfree", "apple"].flatMap { c in
        [
            Benchmark(family: "primitives/toggle", contender: c) { _ in
                setups.add(1, ordering: .relaxed)
                return Toggler()
            },
            Benchmark(
                family: "books/toggle", contender: c,
                parameterSets: [Parameters([("n", "10")]), Parameters([("n", "100")])],
                parameterKinds: ["n": .integer(1...1000)],
                expectedCounts: { _ in InvalidationCounts(notifications: 1, invalidations: 1) }
            ) { _ in
                let t = Toggler()
                t.throwing = failing && c == "apple"
                return t
            },
        ]
    }
}

@Suite(.serialized) struct BenchCommandTests {
    func bench(_ recorder: Recorder, failing: Bool = false) -> Bench {
        Bench(
            suite: testSuite(failing: failing), executor: InProcessExecutor(), console: recorder.console,
            commandLine: ["bench", "run"])
    }

    @Test func listPrintsEachNameOnce() {
        let r = Recorder()
        #expect(bench(r).main(["list"]) == 0)
        #expect(r.out.withLock { $0 } == "primitives/toggle\nbooks/toggle/n=10\nbooks/toggle/n=100\n")
        let f = Recorder()
        #expect(bench(f).main(["list", "--filter", "n=1"]) == 0)
        #expect(f.out.withLock { $0 } == "books/toggle/n=10\nbooks/toggle/n=100\n")
    }

    @Test func runWritesEveryFile() throws {
        let r = Recorder()
        let output = temporaryFolder() + "/latest"
        #expect(bench(r).main(["run", "--quick", "--samples", "5", "--output", output]) == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: output).sorted()
        #expect(
            files == [
                "books-toggle-invalidations.svg", "books-toggle-time.svg", "primitives.svg", "report-books.md",
                "report-primitives.md",
                "report.md", "results.csv", "results.json",
            ])
        let csv = try #require(read(output + "/results.csv"))
        #expect(csv.hasPrefix("benchmark,contender,metric,unit,samples,min,p50,p90,p99,max,mean,"))
        #expect(csv.contains("\nbooks/toggle/n=100,apple,invalidations,count,1,1,1,1,1,1,1,"))
        let set = try JSONFormat.decode(try #require(read(output + "/results.json")))
        #expect(set.results.count == 6)
        #expect(set.results.allSatisfy { $0.metric(.time)?.summary.samples == 5 })
        // Recorded as a user reruns it, without the path of the binary.
        #expect(set.metadata.command == ["swift", "run", "-c", "release", "bench", "run"])
        #expect(r.out.withLock { $0 }.contains("| primitives/toggle |"))
    }

    @Test func formatsSelectFiles() throws {
        let output = temporaryFolder() + "/latest"
        #expect(
            bench(Recorder()).main([
                "run", "--quick", "--samples", "5", "--filter", "primitives", "--format", "csv", "--output", output,
            ]) == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: output) == ["results.csv"])
    }

    @Test func failureIsNamedAndExitsOneAfterTheRest() throws {
        let r = Recorder()
        let output = temporaryFolder() + "/latest"
        #expect(bench(r, failing: true).main(["run", "--quick", "--samples", "5", "--output", output]) == 1)
        let err = r.err.withLock { $0 }
        #expect(
            err.hasSuffix(
                "FAILED books/toggle/n=10 on apple: oracle: row 3 is stale\nFAILED books/toggle/n=100 on apple: oracle: row 3 is stale\n"
            ))
        // Not a terminal: one progress line per run as it ends.
        #expect(err.contains("[4/6] books/toggle/n=10 apple: FAILED (oracle: row 3 is stale)\n"))
        #expect(err.contains("[3/6] books/toggle/n=10 lockfree: p50 "))
        #expect(
            r.out.withLock { $0 }.hasSuffix(
                "Failed: 2 of 6 runs: books/toggle/n=10 on apple, books/toggle/n=100 on apple (reasons above)\n"))
        let quiet = Recorder()
        #expect(
            bench(quiet, failing: true).main(["run", "--quick", "--samples", "5", "--quiet", "--output", output]) == 1)
        #expect(quiet.err.withLock { $0 }.hasPrefix("FAILED books/toggle/n=10 on apple"))
        let set = try JSONFormat.decode(try #require(read(output + "/results.json")))
        #expect(set.results.filter { $0.failure == nil }.count == 4)
    }

    @Test func unwritableOutputExits73BeforeMeasuring() throws {
        let root = temporaryFolder()
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/file"))
        let r = Recorder()
        let before = setups.load(ordering: .relaxed)
        #expect(bench(r).main(["run", "--quick", "--output", root + "/file/latest"]) == 73)
        #expect(setups.load(ordering: .relaxed) == before)
        let err = r.err.withLock { $0 }
        #expect(err.hasPrefix("bench: cannot write results to '\(root)/file/latest'"))
        #expect(err.filter { $0 == "\n" }.count == 1)
    }

    @Test func usageErrorsExit64WithOneLine() {
        for arguments in [
            ["--no-such-flag"], ["run", "--samples", "banana"], ["run", "--contender", "nosuch"],
            ["run", "--param", "n=abc"],
            ["run", "--param", "size=3"], ["run", "--filter", "nomatch"], ["nosuch"],
        ] {
            let r = Recorder()
            #expect(bench(r).main(arguments) == 64, "\(arguments)")
            let err = r.err.withLock { $0 }
            #expect(err.hasPrefix("bench: ") && err.filter { $0 == "\n" }.count == 1, "\(arguments): \(err)")
        }
    }

    @Test func checkRefusesMissingOrCorruptBaselineBeforeRunning() throws {
        let root = temporaryFolder()
        let before = setups.load(ordering: .relaxed)
        let r = Recorder()
        #expect(bench(r).main(["check", "--baseline", root + "/none.json"]) == 5)
        #expect(r.err.withLock { $0 } == "bench: baseline '\(root)/none.json' does not exist\n")
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: root + "/bad.json"))
        #expect(bench(Recorder()).main(["check", "--baseline", root + "/bad.json"]) == 5)
        #expect(setups.load(ordering: .relaxed) == before)
    }

    @Test func checkPassesAgainstItsOwnCounts() throws {
        let root = temporaryFolder()
        let output = root + "/latest"
        let r = Recorder()
        let b = bench(r)
        #expect(b.main(["run", "--quick", "--samples", "5", "--output", output]) == 0)
        // `baseline save` takes a name only, not a path.
        #expect(b.main(["baseline", "save", root + "/main.json", "--input", output + "/results.json"]) == 64)
        // Loose time and malloc tolerances: the in-process toggler's ratio is noise around 1, and
        // in-process allocation counts include what the tests running in parallel allocate.
        let thresholds = root + "/thresholds"
        try ResultsWriter.writeFile(
            Thresholds(mallocTolerance: 1e9, timeRatioTolerance: 100).json, to: Thresholds.path(in: thresholds))
        var options = RunOptions()
        options.quick = true
        options.samples = 5
        options.output = root + "/again"
        r.out.withLock { $0 = "" }
        let code = try b.check(baseline: output + "/results.json", options, thresholdsFolder: thresholds)
        let printed = r.out.withLock { $0 }
        #expect(code == .success, "\(printed)")
        #expect(printed.hasSuffix("No change beyond tolerance.\n"), "\(printed)")
    }

    /// Runs once, rewrites the invalidations of the saved results to `baselineInvalidations`, and
    /// checks a second run against that baseline.
    func checkAgainstEditedBaseline(invalidations baselineInvalidations: Double) throws -> (ExitCode, String) {
        let r = Recorder()
        let code = try checkAgainstEdited(r) { baseline in
            for i in baseline.results.indices {
                let j = try #require(baseline.results[i].metrics.firstIndex { $0.name == "invalidations" })
                baseline.results[i].metrics[j] = MetricResult(
                    name: "invalidations", unit: "count", value: baselineInvalidations)
            }
        }
        return (code, r.out.withLock { $0 })
    }

    @Test func checkFindsARegression() throws {
        let (code, out) = try checkAgainstEditedBaseline(invalidations: 0.5)  // measured: 1 per operation
        #expect(code == .regression)
        #expect(
            out.contains("| regression | books/toggle/n=10 | lockfree | invalidations | 0.500 | 1 | exactly equal |"))
    }

    @Test func checkWithOnlyImprovementsExits4AndSaysWhatToCommit() throws {
        let (code, out) = try checkAgainstEditedBaseline(invalidations: 2)
        #expect(code == .improvementOnly)
        #expect(out.contains("| improvement | books/toggle/n=100 | apple | invalidations | 2 | 1 | exactly equal |"))
        #expect(out.contains("Only improvements: lock them in with\n  bench baseline save NAME --input "))
    }

    @Test func reportAndCompareFromJSON() throws {
        let root = temporaryFolder()
        let input = root + "/in/results.json"
        try ResultsWriter.writeFile(JSONFormat.encode(sampleSet()), to: input)
        let r = Recorder()
        #expect(bench(r).main(["report", "--input", input, "--output", root + "/out"]) == 0)
        #expect(read(root + "/out/report.md") == ReportFormat.format(sampleSet(), charts: ChartSet.charts(sampleSet())))
        let c = Recorder()
        #expect(bench(c).main(["compare", input, input]) == 0)
        #expect(
            c.out.withLock { $0 }.contains(
                "| books/toggle/n=10 | lockfree | time | 13.0 ns | 13.0 ns | 0.00 ns | 1.00 (?) |"))
        #expect(bench(Recorder()).main(["compare", input, root + "/none.json"]) == 5)
        let missing = Recorder()
        #expect(bench(missing).main(["report", "--input", root + "/none.json"]) == 5)
        #expect(missing.err.withLock { $0 } == "bench: results file '\(root)/none.json' does not exist\n")
    }
}

/// Runs the test suite's `books` benchmarks once, edits the saved results with `edit`, and checks
/// a second run against them (time ratios within 100x: only what the test edits can fail it).
func checkAgainstEdited(_ recorder: Recorder, edit: (inout ResultSet) throws -> Void) throws -> ExitCode {
    let root = temporaryFolder()
    let bench = { (r: Recorder) in
        Bench(suite: testSuite(), executor: InProcessExecutor(), console: r.console, commandLine: ["bench", "run"])
    }
    #expect(
        bench(Recorder()).main(["run", "--quick", "--samples", "5", "--filter", "books", "--output", root + "/first"])
            == 0)
    var baseline = try JSONFormat.decode(try #require(read(root + "/first/results.json")))
    try edit(&baseline)
    try ResultsWriter.writeFile(JSONFormat.encode(baseline), to: root + "/baseline.json")
    // Malloc counts without limit: in-process allocation counts include what the tests running in
    // parallel allocate, which moves them by hundreds an operation between the two runs; only the
    // edited invalidations may decide the verdict.
    try ResultsWriter.writeFile(
        Thresholds(mallocTolerance: 1e9, timeRatioTolerance: 100).json, to: Thresholds.path(in: root + "/thresholds"))
    var options = RunOptions()
    options.quick = true
    options.samples = 5
    options.filter = "books"
    options.output = root + "/second"
    return try bench(recorder).check(baseline: root + "/baseline.json", options, thresholdsFolder: root + "/thresholds")
}
