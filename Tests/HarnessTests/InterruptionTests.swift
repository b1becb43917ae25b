import Foundation
import Glibc
import Synchronization
import Testing

@testable import Harness

/// Measures in this process, as `InProcessExecutor` does, and records each pass as
/// `benchmark@contender`; interrupts `interruption` as timing pass number `interruptAt` (1-based)
/// begins, as Ctrl-C would while that pass runs.
final class Interrupting: PassExecutor {
    let interruption: Interruption
    let interruptAt: Int?
    let timed = Mutex<[String]>([])
    let counted = Mutex<[String]>([])

    init(_ interruption: Interruption, at pass: Int?) {
        self.interruption = interruption
        interruptAt = pass
    }

    func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
        let n = timed.withLock {
            $0.append("\(run.name)@\(run.contender)")
            return $0.count
        }
        if n == interruptAt { interruption.interrupt(SIGINT) }
        return Measurer.timingPass(run.benchmark, run.parameters, plan: plan)
    }

    func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
        counted.withLock { $0.append("\(run.name)@\(run.contender)") }
        return Measurer.countingPass(run.benchmark, run.parameters, operations: operations)
    }
}

/// What a second Ctrl-C would do, recorded instead of done.
let noExit: @Sendable (Int32) -> Void = { _ in }

@Suite(.serialized) struct InterruptionTests {
    static let arguments = ["run", "--quick", "--samples", "5"]

    func bench(_ recorder: Recorder, _ executor: Interrupting, arguments: [String]) -> Bench {
        Bench(
            suite: testSuite(), executor: executor, console: recorder.console, commandLine: ["bench"] + arguments,
            interruption: executor.interruption)
    }

    /// Runs the test suite (3 benchmarks, 2 contenders, 2 rounds), interrupted as timing pass
    /// `at` begins; returns the exit status.
    func interruptedRun(at pass: Int, output: String, recorder: Recorder = Recorder()) -> (Int32, Interrupting) {
        let executor = Interrupting(Interruption(endAtOnce: noExit), at: pass)
        let arguments = Self.arguments + ["--output", output]
        return (bench(recorder, executor, arguments: arguments).main(arguments), executor)
    }

    /// Round 1 times the 3 benchmarks (passes 1-6); round 2 times and counts `primitives/toggle`
    /// (passes 7-8), then is interrupted in the timing of `books/toggle/n=10` on `lockfree`
    /// (pass 9): that visit is dropped whole, `books/toggle/n=100` is not visited again. Both keep
    /// their first round.
    @Test func anInterruptedRunWritesWhatItMeasured() throws {
        let output = temporaryFolder() + "/latest"
        try ResultsWriter.write([("report-old.md", "previous results")], to: output)
        let recorder = Recorder()
        let (status, executor) = interruptedRun(at: 9, output: output, recorder: recorder)
        #expect(status == 130)
        #expect(executor.timed.withLock { $0 }.count == 9)
        #expect(executor.counted.withLock { $0 } == ["primitives/toggle@lockfree", "primitives/toggle@apple"])
        let set = try JSONFormat.decode(try #require(read(output + "/results.json")))
        #expect(
            set.results.map { "\($0.benchmark)@\($0.contender)" } == [
                "primitives/toggle@lockfree", "primitives/toggle@apple", "books/toggle/n=10@lockfree",
                "books/toggle/n=10@apple", "books/toggle/n=100@lockfree", "books/toggle/n=100@apple",
            ])
        #expect(set.results.allSatisfy { $0.failure == nil })
        // Whole: both rounds (3 + 2 samples) and counted; partly timed: round 1's 3 samples, no count.
        #expect(set.results.map { $0.metric(.time)?.summary.samples } == [5, 5, 3, 3, 3, 3])
        #expect(set.results.map { $0.metric(.invalidations) != nil } == [true, true, false, false, false, false])
        #expect(
            set.metadata.interrupted
                == InterruptedRun(
                    signal: "SIGINT", rounds: 2,
                    partial: [
                        PartialBenchmark(benchmark: "books/toggle/n=10", rounds: 1),
                        PartialBenchmark(benchmark: "books/toggle/n=100", rounds: 1),
                    ], notMeasured: []))
        #expect(set.metadata.resumed == nil)
        // The rounds to go on from, with every sample.
        let rounds = try JSONDecoder().decode(
            [Runner.RoundsMeasured].self,
            from: try #require(FileManager.default.contents(atPath: output + "/resume.json")))
        #expect(
            rounds.map { "\($0.benchmark)@\($0.contender)x\($0.rounds)" } == [
                "books/toggle/n=10@lockfreex1", "books/toggle/n=10@applex1", "books/toggle/n=100@lockfreex1",
                "books/toggle/n=100@applex1",
            ])
        #expect(rounds.allSatisfy { $0.timings.count == 1 && $0.timings[0].metrics[0].samples?.count == 3 })
        // The folder was replaced whole, as a finished run replaces it.
        #expect(read(output + "/report-old.md") == nil)
        let report = try #require(read(output + "/report.md"))
        #expect(
            report.contains(
                "**Interrupted by SIGINT**: 2 benchmark(s) timed in fewer than its 2 rounds, their figures from those "
                    + "rounds alone and not counted: `books/toggle/n=10` (1), `books/toggle/n=100` (1). "
                    + "Complete it with `bench run --resume` and this folder.\n"))
        #expect(
            recorder.err.withLock { $0 }.hasSuffix(
                "bench: interrupted by SIGINT: wrote 1 of 3 benchmarks whole and 2 in fewer than 2 timing rounds to "
                    + "\(output) (0 not measured; listed in report.md); finish with: bench run --resume \(output)\n"))
    }

    @Test func interruptedBeforeAnyRoundWritesNothing() throws {
        let output = temporaryFolder() + "/latest"
        try ResultsWriter.write([("results.json", "previous results")], to: output)
        let recorder = Recorder()
        // Pass 2 is `primitives/toggle` on `apple`, in round 1: no round of any benchmark is whole.
        let (status, executor) = interruptedRun(at: 2, output: output, recorder: recorder)
        #expect(status == 130)
        #expect(executor.timed.withLock { $0 }.count == 2)
        #expect(executor.counted.withLock { $0 } == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: output) == ["results.json"])
        #expect(read(output + "/results.json") == "previous results")
        #expect(
            recorder.err.withLock { $0 }.hasSuffix(
                "timing round 1 of 2\n"
                    + "bench: interrupted by SIGINT before any benchmark was timed in a round; nothing written "
                    + "('\(output)' is as it was)\n"))
    }

    /// Interrupted in round 1 (pass 5, `books/toggle/n=100`): `--resume` times that benchmark's
    /// round 1, then round 2 of all three, each round's contenders together, and counts them;
    /// nothing else. The set it writes is whole.
    @Test func resumeMeasuresOnlyWhatIsMissing() throws {
        let output = temporaryFolder() + "/latest"
        #expect(interruptedRun(at: 5, output: output).0 == 130)
        let first = try JSONFormat.decode(try #require(read(output + "/results.json")))
        #expect(first.metadata.interrupted?.notMeasured == ["books/toggle/n=100"])
        #expect(first.metadata.interrupted?.partial.map(\.benchmark) == ["primitives/toggle", "books/toggle/n=10"])

        let resuming = Interrupting(Interruption(), at: nil)
        let recorder = Recorder()
        #expect(
            bench(recorder, resuming, arguments: ["run", "--resume", output]).main(["run", "--resume", output]) == 0)
        let all = ["primitives/toggle", "books/toggle/n=10", "books/toggle/n=100"].flatMap {
            ["\($0)@lockfree", "\($0)@apple"]
        }
        #expect(resuming.timed.withLock { $0 } == Array(all.suffix(2)) + all)
        #expect(resuming.counted.withLock { $0 } == all)

        let set = try JSONFormat.decode(try #require(read(output + "/results.json")))
        #expect(set.results.map { "\($0.benchmark)@\($0.contender)" } == all)
        #expect(set.results.allSatisfy { $0.failure == nil && $0.metric(.time)?.summary.samples == 5 })
        #expect(set.results.allSatisfy { $0.metric(.invalidations) != nil })
        #expect(set.metadata.interrupted == nil)
        #expect(set.metadata.command == first.metadata.command)
        let resumed = try #require(set.metadata.resumed)
        #expect(resumed.count == 1)
        #expect(resumed[0].measured == ["primitives/toggle", "books/toggle/n=10", "books/toggle/n=100"])
        #expect(resumed[0].command == ["swift", "run", "-c", "release", "bench", "run", "--resume", output])
        #expect(!FileManager.default.fileExists(atPath: output + "/resume.json"))
        let report = try #require(read(output + "/report.md"))
        #expect(!report.contains("Interrupted"))
        #expect(
            report.contains(
                "`): measured 3 benchmark(s) in the rounds they lacked, each round's contenders together.\n"))

        // Complete: nothing more to measure, nothing rewritten.
        let again = Interrupting(Interruption(), at: nil)
        let r = Recorder()
        #expect(bench(r, again, arguments: []).main(["run", "--resume", output]) == 0)
        #expect(again.timed.withLock { $0 } == [])
        #expect(r.err.withLock { $0 } == "bench: '\(output)' holds every benchmark of its run; nothing to measure\n")
    }

    /// An interrupted run writes its results.json even when `--format` leaves it out: `--resume`
    /// reads it, and then writes the files the run asked for.
    @Test func anInterruptedRunKeepsWhatResumeReads() throws {
        let output = temporaryFolder() + "/latest"
        let executor = Interrupting(Interruption(endAtOnce: noExit), at: 9)
        let arguments = Self.arguments + ["--format", "csv", "--output", output]
        #expect(bench(Recorder(), executor, arguments: arguments).main(arguments) == 130)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: output).sorted() == [
                "results.csv", "results.json", "resume.json",
            ])
        let resuming = Interrupting(Interruption(), at: nil)
        #expect(bench(Recorder(), resuming, arguments: []).main(["run", "--resume", output]) == 0)
        #expect(resuming.timed.withLock { $0 }.count == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: output) == ["results.csv"])
    }

    /// The samples of a round measured before the interruption are those the completed set pools.
    @Test func theRoundsKeptArePooledOnResume() throws {
        let output = temporaryFolder() + "/latest"
        #expect(interruptedRun(at: 9, output: output).0 == 130)
        let rounds = try JSONDecoder().decode(
            [Runner.RoundsMeasured].self,
            from: try #require(FileManager.default.contents(atPath: output + "/resume.json")))
        #expect(
            bench(Recorder(), Interrupting(Interruption(), at: nil), arguments: []).main(["run", "--resume", output])
                == 0)
        let set = try JSONFormat.decode(try #require(read(output + "/results.json")))
        for kept in rounds {
            let result = try #require(set.result(kept.benchmark, kept.contender))
            let firstRound = try #require(kept.timings[0].metrics.first { $0.name == "time" }?.samples)
            let medians = try #require(result.metric(.time)?.processMedians)
            #expect(medians.count == 2)
            #expect(abs(medians[0] - Percentiles.value(50, sorted: firstRound.sorted())) <= medians[0] * 1e-3)
        }
    }

    /// A resume interrupted in its turn keeps both parts and can be resumed again.
    @Test func aResumedRunInterruptedAgainKeepsBothParts() throws {
        let output = temporaryFolder() + "/latest"
        #expect(interruptedRun(at: 9, output: output).0 == 130)
        // The resume times round 2 of n=10 (passes 1, 2; counted) and is interrupted in n=100's (pass 3).
        let second = Interrupting(Interruption(endAtOnce: noExit), at: 3)
        #expect(bench(Recorder(), second, arguments: []).main(["run", "--resume", output]) == 130)
        #expect(second.counted.withLock { $0 } == ["books/toggle/n=10@lockfree", "books/toggle/n=10@apple"])
        var set = try JSONFormat.decode(try #require(read(output + "/results.json")))
        #expect(set.results.count == 6)
        #expect(set.metadata.interrupted?.partial == [PartialBenchmark(benchmark: "books/toggle/n=100", rounds: 1)])
        #expect(set.metadata.resumed?.map(\.measured) == [["books/toggle/n=10"]])
        let third = Interrupting(Interruption(), at: nil)
        #expect(bench(Recorder(), third, arguments: []).main(["run", "--resume", output]) == 0)
        #expect(third.timed.withLock { $0 } == ["books/toggle/n=100@lockfree", "books/toggle/n=100@apple"])
        set = try JSONFormat.decode(try #require(read(output + "/results.json")))
        #expect(set.results.count == 6)
        #expect(set.results.allSatisfy { $0.metric(.time)?.summary.samples == 5 })
        #expect(set.metadata.interrupted == nil)
        #expect(set.metadata.resumed?.map(\.measured) == [["books/toggle/n=10"], ["books/toggle/n=100"]])
    }

    /// Interrupted in the instruction pass: every benchmark is kept; the counts the children
    /// finished are kept, the others listed; `--resume` counts those and measures nothing else.
    @Test(.enabled(if: InstructionCounter.unavailableReason == nil))
    func interruptedWhileCountingInstructions() throws {
        /// Counts instructions; with `stops`, the interruption stops `apple`'s child in its second run.
        final class Counting: PassExecutor {
            let interruption: Interruption
            let stops: Bool
            let requests = Mutex<[[String]]>([])
            init(_ interruption: Interruption, stops: Bool) {
                self.interruption = interruption
                self.stops = stops
            }
            func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
                Measurer.timingPass(run.benchmark, run.parameters, plan: plan)
            }
            func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
                Measurer.countingPass(run.benchmark, run.parameters, operations: operations)
            }
            func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]? {
                requests.withLock { $0.append(runs.map { "\($0.run.name)@\($0.run.contender)" }) }
                return runs.enumerated().map { k, want in
                    if stops && k == 1 && want.run.contender == "apple" { interruption.interrupt(SIGINT) }
                    if stops && k >= 1 && want.run.contender == "apple" {
                        return .failed(ChildProcessExecutor.interruptedFailure)
                    }
                    return Measurer.PassReport(
                        metrics: [MetricResult(.instructions, value: 100)], failure: nil, batch: want.operations)
                }
            }
        }
        let suite = ["lockfree", "apple"].flatMap { c in
            ["a", "b", "c"].map {
                Benchmark(family: $0, contender: c, instructionOperations: { _ in 10 }) { _ in NoOp() }
            }
        }
        let output = temporaryFolder() + "/latest"
        let arguments = Self.arguments + ["--output", output]
        let first = Counting(Interruption(endAtOnce: noExit), stops: true)
        let recorder = Recorder()
        let status = Bench(
            suite: suite, executor: first, console: recorder.console, commandLine: ["bench"] + arguments,
            interruption: first.interruption
        ).main(arguments)
        #expect(status == 130)
        var set = try JSONFormat.decode(try #require(read(output + "/results.json")))
        #expect(set.results.count == 6)
        #expect(set.results.map { $0.metric(.instructions) != nil } == [true, true, true, false, true, false])
        #expect(
            set.metadata.interrupted
                == InterruptedRun(
                    signal: "SIGINT", rounds: 2, notMeasured: [], instructionsNotCounted: ["b on apple", "c on apple"]))
        #expect(
            recorder.err.withLock { $0 }.hasSuffix(
                "bench: interrupted by SIGINT: wrote 3 of 3 benchmarks whole to \(output) (instructions not counted "
                    + "for 2 run(s); listed in report.md); finish with: bench run --resume \(output)\n"))

        let second = Counting(Interruption(), stops: false)
        #expect(
            Bench(suite: suite, executor: second, console: Recorder().console, commandLine: ["bench"]).main([
                "run", "--resume", output,
            ]) == 0)
        #expect(second.requests.withLock { $0 } == [["b@apple", "c@apple"]])
        set = try JSONFormat.decode(try #require(read(output + "/results.json")))
        #expect(set.results.allSatisfy { $0.metric(.instructions)?.summary.p50 == 100 })
        #expect(set.metadata.interrupted == nil)
        #expect(set.metadata.resumed?.first?.measured == [])
        #expect(set.metadata.resumed?.first?.instructionsCounted == ["b on apple", "c on apple"])
    }

    @Test func resumeRefusesOtherOptionsAndFoldersItCannotComplete() throws {
        let root = temporaryFolder()
        let output = root + "/latest"
        #expect(interruptedRun(at: 9, output: output).0 == 130)
        func refused(_ arguments: [String]) -> (Int32, String) {
            let r = Recorder()
            let status = bench(r, Interrupting(Interruption(), at: nil), arguments: arguments).main(arguments)
            return (status, r.err.withLock { $0 })
        }
        #expect(
            refused(["run", "--resume", output, "--filter", "books"])
                == (64, "bench: --resume measures with the options of the run it completes; leave out --filter\n"))
        #expect(
            refused(["run", "--quick", "--resume", output])
                == (64, "bench: --resume measures with the options of the run it completes; leave out --quick\n"))
        #expect(
            refused(["run", "--resume", root + "/none"]) == (
                5, "bench: cannot resume '\(root)/none': it is not a results folder\n"
            ))
        try FileManager.default.createDirectory(atPath: root + "/corrupt", withIntermediateDirectories: true)
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: root + "/corrupt/results.json"))
        let (status, message) = refused(["run", "--resume", root + "/corrupt"])
        #expect(status == 5)
        #expect(
            message.hasPrefix(
                "bench: cannot resume '\(root)/corrupt': results '\(root)/corrupt/results.json' is not a results.json"))
        #expect(message.filter { $0 == "\n" }.count == 1)
        // Measured by other code: the two parts would not be one measurement.
        var set = try JSONFormat.decode(try #require(read(output + "/results.json")))
        set.metadata.gitCommit = "0123456"
        try ResultsWriter.writeFile(SummaryJSON.encode(set), to: root + "/other/results.json")
        let other = refused(["run", "--resume", root + "/other"])
        #expect(other.0 == 5)
        #expect(
            other.1.hasPrefix(
                "bench: cannot resume '\(root)/other': it was measured with commit 0123456, this tree is at "))
        // Another build of the same commit (a dirty tree is `-dirty` whatever its changes), another
        // machine, or a bench that recorded no build: the two parts would not be one measurement.
        set.metadata.gitCommit = MetadataCollector.gitCommit()
        let measured = set.metadata
        set.metadata.build = "fnv1a64:0"
        try ResultsWriter.writeFile(SummaryJSON.encode(set), to: root + "/build/results.json")
        let build = refused(["run", "--resume", root + "/build"])
        #expect(build.0 == 5)
        #expect(
            build.1.hasPrefix(
                "bench: cannot resume '\(root)/build': it was measured with another build of bench (fnv1a64:0, this one "
                    + "is \(MetadataCollector.buildIdentity))"))
        set.metadata.build = nil
        try ResultsWriter.writeFile(SummaryJSON.encode(set), to: root + "/unbuilt/results.json")
        #expect(refused(["run", "--resume", root + "/unbuilt"]).1.contains("a bench that recorded no build identity"))
        set.metadata = measured
        set.metadata.host = "elsewhere"
        try ResultsWriter.writeFile(SummaryJSON.encode(set), to: root + "/host/results.json")
        let host = refused(["run", "--resume", root + "/host"])
        #expect(host.0 == 5)
        #expect(host.1.contains("it was measured with another machine (elsewhere, "))
        set.metadata = measured
        // Not a run: nothing to take options from.
        set.metadata.command = ["swift", "run", "-c", "release", "bench", "report"]
        try ResultsWriter.writeFile(SummaryJSON.encode(set), to: root + "/report/results.json")
        #expect(
            refused(["run", "--resume", root + "/report"])
                == (
                    5,
                    "bench: cannot resume '\(root)/report': its command (swift run -c release bench report) is not a run of the suite\n"
                ))
        // The rounds of its partly timed benchmarks are gone.
        try FileManager.default.copyItem(atPath: output, toPath: root + "/lost")
        try FileManager.default.removeItem(atPath: root + "/lost/resume.json")
        #expect(
            refused(["run", "--resume", root + "/lost"])
                == (
                    5,
                    "bench: cannot resume '\(root)/lost': '\(root)/lost/resume.json', the timing rounds of its 2 partly "
                        + "timed benchmark(s), is missing or unreadable\n"
                ))
        // Nothing was measured by any of these.
        #expect(try JSONFormat.decode(try #require(read(output + "/results.json"))).results.count == 6)
    }

    /// An interrupted check gives no verdict: exit 130, nothing on stdout that reads as one, and
    /// `gate.md` says so.
    @Test func anInterruptedCheckGivesNoVerdict() throws {
        let root = temporaryFolder()
        let plain = Interrupting(Interruption(), at: nil)
        let first = Self.arguments + ["--output", root + "/first"]
        #expect(bench(Recorder(), plain, arguments: first).main(first) == 0)
        let recorder = Recorder()
        let executor = Interrupting(Interruption(endAtOnce: noExit), at: 9)
        let check =
            ["check", "--baseline", root + "/first/results.json"] + Array(Self.arguments.dropFirst()) + [
                "--output", root + "/second",
            ]
        #expect(bench(recorder, executor, arguments: check).main(check) == 130)
        let out = recorder.out.withLock { $0 }
        #expect(!out.contains("No change beyond tolerance") && !out.contains("| regression |"))
        #expect(recorder.err.withLock { $0 }.hasSuffix("bench: check interrupted by SIGINT: no verdict\n"))
        #expect(read(root + "/second/gate.md") == "## bench check\n\nCheck interrupted by SIGINT: no verdict.\n")
        // An interrupted result set is no baseline.
        let save = Recorder()
        #expect(
            bench(save, plain, arguments: []).main(["baseline", "save", "x", "--input", root + "/second/results.json"])
                == 64)
        #expect(
            save.err.withLock { $0 }
                == "bench: '\(root)/second/results.json' is from an interrupted run; complete it with 'bench run --resume FOLDER' first\n"
        )
    }

    /// `check --resume` of a folder that holds the whole run measures nothing and gates it as it
    /// stands: a verdict and a fresh `gate.md`, never a pass by default.
    @Test func checkResumeOfACompleteFolderGatesIt() throws {
        let root = temporaryFolder()
        let plain = Interrupting(Interruption(), at: nil)
        let first = Self.arguments + ["--output", root + "/first"]
        #expect(bench(Recorder(), plain, arguments: first).main(first) == 0)
        let timedBefore = plain.timed.withLock { $0 }.count
        #expect(!FileManager.default.fileExists(atPath: root + "/first/gate.md"))
        let recorder = Recorder()
        let check = ["check", "--baseline", root + "/first/results.json", "--resume", root + "/first"]
        #expect(bench(recorder, plain, arguments: check).main(check) == 0)
        #expect(plain.timed.withLock { $0 }.count == timedBefore)
        #expect(recorder.out.withLock { $0 }.contains("No change beyond tolerance"))
        #expect(read(root + "/first/gate.md")?.hasPrefix("## bench check\n\n") == true)
    }

    /// The second Ctrl-C ends at once; the first only marks the run.
    @Test func theSecondSignalEndsAtOnce() {
        let ended = Mutex<[Int32]>([])
        let interruption = Interruption(endAtOnce: { signal in ended.withLock { $0.append(signal) } })
        interruption.interrupt(SIGTERM)
        #expect(interruption.signal == SIGTERM)
        #expect(ended.withLock { $0 } == [])
        interruption.interrupt(SIGINT)
        #expect(interruption.signal == SIGTERM)
        #expect(ended.withLock { $0 } == [SIGINT])
    }
}
