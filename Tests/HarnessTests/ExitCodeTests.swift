import Foundation
import Glibc
import Synchronization
import Testing

@testable import Harness

/// `bench` on the test suite, its output thrown away: what an exit test's child process runs.
func quietBench(failing: Bool = false) -> Bench {
    Bench(
        suite: testSuite(failing: failing), executor: InProcessExecutor(),
        console: Console(out: { _ in }, err: { _ in }, interactive: false), commandLine: ["bench"])
}

/// Runs once, rewrites the saved invalidations to `invalidations`, and returns the exit status
/// of `check` against that baseline (measured: 1 invalidation per operation).
func checkStatus(againstInvalidations invalidations: Double) -> Int32 {
    do {
        return try checkAgainstEdited(Recorder()) { baseline in
            for i in baseline.results.indices {
                let j = try #require(baseline.results[i].metrics.firstIndex { $0.name == "invalidations" })
                baseline.results[i].metrics[j] = MetricResult(
                    name: "invalidations", unit: "count", value: invalidations)
            }
        }.rawValue
    } catch let error as BenchError {
        return error.code.rawValue
    } catch {
        return -1
    }
}

/// Measures in this process and sends this process SIGINT, really, as timing pass 3 begins, and
/// again `signals - 1` times once the first has been seen; then measures on.
final class Signalling: PassExecutor {
    let signals: Int
    let passes = Atomic<Int>(0)
    init(signals: Int) { self.signals = signals }

    func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
        if passes.add(1, ordering: .relaxed).newValue == 3 {
            kill(getpid(), SIGINT)
            let end = monotonicNanoseconds() + 5_000_000_000
            while !Interruption.process.isInterrupted && monotonicNanoseconds() < end { usleep(1000) }
            for _ in 1..<max(signals, 1) {
                kill(getpid(), SIGINT)
                sleep(5)  // the second signal ends the process before this does
            }
        }
        return Measurer.timingPass(run.benchmark, run.parameters, plan: plan)
    }

    func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
        Measurer.countingPass(run.benchmark, run.parameters, operations: operations)
    }
}

/// `bench run` on the test suite, measured by `executor`, its output thrown away, SIGINT and
/// SIGTERM trapped as `bench` traps them.
func trappedRun(_ executor: any PassExecutor, suite: [Benchmark] = testSuite()) -> Int32 {
    Interruption.process.trap()
    let bench = Bench(
        suite: suite, executor: executor, console: Console(out: { _ in }, err: { _ in }, interactive: false),
        commandLine: ["bench"])
    return bench.main(["run", "--quick", "--samples", "5", "--output", temporaryFolder() + "/out"])
}

/// Every documented exit code, as the process really exits with it, and the one list they come from.
@Suite struct ExitCodeTests {
    @Test func exits0OnSuccess() async {
        await #expect(processExitsWith: .exitCode(0)) { exit(quietBench().main(["list"])) }
    }

    @Test func exits1WhenABenchmarkFails() async {
        await #expect(processExitsWith: .exitCode(1)) {
            exit(
                quietBench(failing: true).main([
                    "run", "--quick", "--samples", "5", "--output", temporaryFolder() + "/out",
                ]))
        }
    }

    @Test func exits2OnARegression() async {
        await #expect(processExitsWith: .exitCode(2)) { exit(checkStatus(againstInvalidations: 0.5)) }
    }

    @Test func exits4OnImprovementsOnly() async {
        await #expect(processExitsWith: .exitCode(4)) { exit(checkStatus(againstInvalidations: 2)) }
    }

    @Test func exits5OnAMissingBaseline() async {
        await #expect(processExitsWith: .exitCode(5)) {
            exit(quietBench().main(["check", "--baseline", temporaryFolder() + "/none.json"]))
        }
    }

    @Test func exits64OnAUsageError() async {
        await #expect(processExitsWith: .exitCode(64)) { exit(quietBench().main(["--no-such-flag"])) }
    }

    @Test func exits73WhenResultsCannotBeWritten() async {
        await #expect(processExitsWith: .exitCode(73)) {
            let root = temporaryFolder()
            try! Data("x".utf8).write(to: URL(fileURLWithPath: root + "/file"))
            exit(quietBench().main(["run", "--quick", "--output", root + "/file/latest"]))
        }
    }

    @Test func exits130WhenInterrupted() async {
        await #expect(processExitsWith: .exitCode(130)) { exit(trappedRun(Signalling(signals: 1))) }
    }

    /// The second Ctrl-C does not wait for the run: the process dies of it.
    @Test func aSecondSignalEndsAtOnce() async {
        await #expect(processExitsWith: .signal(SIGINT)) {
            _ = trappedRun(Signalling(signals: 2))
            exit(0)
        }
    }

    /// SIGTERM, really sent while a child hangs (its deadline a minute away): the child is killed
    /// at once and the run exits 130 within seconds (99 if it took longer).
    @Test func exits130AndStopsAHungChildOnSIGTERM() async {
        await #expect(processExitsWith: .exitCode(130)) {
            let child = try! MisbehavingChild()
            let start = monotonicNanoseconds()
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) { kill(getpid(), SIGTERM) }
            let status = trappedRun(
                child.executor(deadline: ChildDeadline(allowance: 60, factor: 0), interruption: .process),
                suite: MisbehavingChild.suite(["ok", "hang"]))
            exit(Double(monotonicNanoseconds() - start) / 1e9 < 10 ? status : 99)
        }
    }

    /// The codes above are every code there is: a new one needs its own exit test here.
    @Test func theExitTestsCoverEveryCode() {
        #expect(ExitCode.allCases.map(\.rawValue) == [0, 1, 2, 4, 5, 64, 73, 130])
    }

    /// The help's table is generated from `ExitCode`; Documentation/RunningBenchmarks.md's table
    /// lists the same codes.
    @Test func helpAndDocumentationListEveryCode() throws {
        let help = Usage.text(for: nil)
        #expect(help.contains(ExitCode.table))
        for code in ExitCode.allCases {
            #expect(help.contains("\n  \(code.rawValue) "), "help lacks \(code)")
        }
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Documentation/RunningBenchmarks.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        let documented = text.split(separator: "\n").compactMap { line -> Int32? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: true).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard line.hasPrefix("| "), cells.count == 2 else { return nil }
            return Int32(cells[0])
        }
        #expect(documented == ExitCode.allCases.map(\.rawValue))
    }
}
