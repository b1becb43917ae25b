import Foundation
import Glibc
import Testing

@testable import Harness

/// A stand-in for `bench __measure`: a shell script that answers as a measuring child does, but
/// hangs (starting a grandchild that hangs too), crashes or overruns where a request names the
/// family `hang`, `crash` or `slow` on `apple`, exits 3 without a report for `exit`, and crashes
/// after printing its report for `after` (the requests' JSON has sorted keys:
/// `"contender":"apple","family":"hang"`). Test code only: the suite has no such benchmark.
struct MisbehavingChild {
    let folder = temporaryFolder()
    var script: String { folder + "/child.sh" }
    /// Where a hung child writes the pid of the grandchild it started.
    var grandchildPidFile: String { folder + "/grandchild.pid" }

    init() throws {
        let marker = ChildProcessExecutor.marker
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func line(_ report: Measurer.PassReport) throws -> String {
            marker + String(decoding: try encoder.encode(report), as: UTF8.self)
        }
        let samples: [Double] = [10, 11, 12, 13, 14]
        let timing = try line(
            Measurer.PassReport(
                metrics: [MetricResult(.time, summary: Summary(samples), samples: samples)], failure: nil, batch: 1))
        let counting = try line(
            Measurer.PassReport(metrics: [MetricResult(.invalidations, value: 1)], failure: nil, batch: 1))
        let text = """
            #!/bin/sh
            case "$2" in
            *'"contender":"apple","family":"hang"'*)
                sleep 1000 &
                echo $! > '\(grandchildPidFile)'
                wait ;;
            *'"contender":"apple","family":"crash"'*) kill -SEGV $$ ;;
            *'"contender":"apple","family":"slow"'*) sleep 1000 ;;
            *'"contender":"apple","family":"exit"'*) exit 3 ;;
            esac
            case "$2" in
            *'"pass":"count"'*) echo '\(counting)' ;;
            *) echo '\(timing)' ;;
            esac
            case "$2" in
            *'"contender":"apple","family":"after"'*) kill -SEGV $$ ;;
            esac

            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: script))
        chmod(script, 0o755)
    }

    func executor(deadline: ChildDeadline, interruption: Interruption = Interruption()) -> ChildProcessExecutor {
        ChildProcessExecutor(executable: script, deadline: deadline, interruption: interruption)
    }

    /// `families`, each on `lockfree` and `apple`.
    static func suite(_ families: [String]) -> [Benchmark] {
        families.flatMap { family in
            ["lockfree", "apple"].map { Benchmark(family: family, contender: $0) { _ in NoOp() } }
        }
    }
}

/// Whether process `pid` is gone (or a zombie nobody waits for), within `seconds`.
func gone(_ pid: pid_t, within seconds: Double) -> Bool {
    let end = monotonicNanoseconds() + UInt64(seconds * 1e9)
    while monotonicNanoseconds() < end {
        if kill(pid, 0) != 0 && errno == ESRCH { return true }
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ")
        if let state, state.count > 2, state[2] == "Z" { return true }
        usleep(10_000)
    }
    return false
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct ChildProcessTests {
    /// A hung child (and the grandchild it started) is killed at its deadline and fails its
    /// benchmark with the time it took; one that dies of a signal fails with the signal's name; one
    /// that exits without a report with its status; one that crashes after its report fails too;
    /// the run goes on, measures the rest, and fails.
    @Test func hungAndCrashedChildrenFailTheirBenchmarksAndTheRunGoesOn() throws {
        let child = try MisbehavingChild()
        let output = child.folder + "/latest"
        let recorder = Recorder()
        let arguments = ["run", "--quick", "--samples", "2", "--output", output]
        let bench = Bench(
            suite: MisbehavingChild.suite(["ok", "hang", "crash", "exit", "after"]),
            executor: child.executor(deadline: ChildDeadline(allowance: 1, factor: 0)), console: recorder.console,
            commandLine: ["bench"] + arguments)
        let start = monotonicNanoseconds()
        #expect(bench.main(arguments) == 1)
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        // One deadline (1 s) for the hung child: its run is not timed again in round 2.
        #expect(seconds < 5, "\(seconds) s")
        let grandchild = try #require(
            read(child.grandchildPidFile).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        #expect(gone(grandchild, within: 2), "the hung child's grandchild \(grandchild) is still running")

        let set = try JSONFormat.decode(try #require(read(output + "/results.json")))
        #expect(set.results.count == 10)
        let failures = set.results.filter { $0.failure != nil }.map {
            "\($0.benchmark)@\($0.contender): \($0.failure!)"
        }
        #expect(
            failures == [
                "hang@apple: timed out after 1 s (the timing pass's deadline: 1 s)",
                "crash@apple: the timing pass was killed by SIGSEGV without a result",
                "exit@apple: the timing pass exited with status 3 without a result",
                "after@apple: the timing pass's child was killed by SIGSEGV after its report",
            ])
        // Everything else measured: two rounds of samples pooled, and counted.
        for result in set.results where result.failure == nil {
            #expect(result.metric(.time)?.summary.samples == 10, "\(result.benchmark)@\(result.contender)")
            #expect(result.metric(.invalidations)?.summary.p50 == 1)
        }
        let err = recorder.err.withLock { $0 }
        #expect(err.contains("FAILED hang on apple: timed out after 1 s (the timing pass's deadline: 1 s)\n"))
        #expect(err.contains("FAILED crash on apple: the timing pass was killed by SIGSEGV without a result\n"))
        #expect(
            recorder.out.withLock { $0 }.hasSuffix(
                "Failed: 4 of 10 runs: hang on apple, crash on apple, exit on apple, after on apple (reasons above)\n"))
    }

    /// The deadline follows the pass's budget: a child that overruns a timing plan of 0.2 s
    /// (warm-up 0.02 s) at allowance 0.5 s and factor 4 is stopped after 0.5 + 4 x 0.22 = 1.38 s.
    @Test func theDeadlineFollowsTheBudget() throws {
        let child = try MisbehavingChild()
        let run = try Selection().plan(MisbehavingChild.suite(["slow"]))[1]
        let plan = TimingPlan(budgetNanoseconds: 200_000_000, maxSamples: 10)
        let deadline = ChildDeadline(allowance: 0.5, factor: 4)
        #expect(abs(deadline.timing(plan) - 1.38) < 1e-9)
        let start = monotonicNanoseconds()
        let report = child.executor(deadline: deadline).timing(run, plan: plan)
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        #expect(seconds >= 1.38 && seconds < 2.5, "\(seconds) s")
        #expect(report.failure == "timed out after 1 s (the timing pass's deadline: 1 s)")
        // A counting pass expected to take 2 s: 0.5 + 4 x 2.
        #expect(deadline.limit(expected: 2) == 8.5)
        #expect(Runner.countingEstimate(report, operations: 3) == nil)
    }

    /// `check` with a hung contender fails (exit 1) within the hung child's deadline, not CI's.
    @Test func checkFailsOnAHungChildInBoundedTime() throws {
        let child = try MisbehavingChild()
        let suite = MisbehavingChild.suite(["ok", "hang"])
        // The baseline: the benchmark that does not hang.
        let first = ["run", "--quick", "--samples", "2", "--filter", "^ok$", "--output", child.folder + "/first"]
        let recorder = Recorder()
        let bench = Bench(
            suite: suite, executor: child.executor(deadline: ChildDeadline(allowance: 1, factor: 0)),
            console: recorder.console, commandLine: ["bench"])
        #expect(bench.main(first) == 0)
        let start = monotonicNanoseconds()
        let check = [
            "check", "--baseline", child.folder + "/first/results.json", "--quick", "--samples", "2", "--output",
            child.folder + "/second",
        ]
        #expect(bench.main(check) == 1)
        #expect(Double(monotonicNanoseconds() - start) / 1e9 < 5)
        #expect(recorder.err.withLock { $0 }.contains("FAILED hang on apple: timed out after 1 s"))
    }

    /// Interrupted, a child is killed at once, not at its deadline, and its pass is reported as
    /// interrupted (which the runner drops), not as failed.
    @Test func anInterruptionKillsTheChildAtOnce() throws {
        let child = try MisbehavingChild()
        let run = try Selection().plan(MisbehavingChild.suite(["hang"]))[1]
        let interruption = Interruption(endAtOnce: noExit)
        let executor = child.executor(deadline: ChildDeadline(allowance: 60, factor: 0), interruption: interruption)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { interruption.interrupt(SIGINT) }
        let start = monotonicNanoseconds()
        let report = executor.timing(run, plan: TimingPlan(budgetNanoseconds: 1000, maxSamples: 2))
        #expect(Double(monotonicNanoseconds() - start) / 1e9 < 3)
        #expect(report.failure == ChildProcessExecutor.interruptedFailure)
        let grandchild = try #require(
            read(child.grandchildPidFile).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        #expect(gone(grandchild, within: 2))
        // Once interrupted, no child starts.
        #expect(
            executor.timing(run, plan: TimingPlan(budgetNanoseconds: 1000, maxSamples: 2)).failure
                == ChildProcessExecutor.interruptedFailure)
    }

    @Test func signalsHaveTheirNames() {
        #expect(Interruption.name(of: SIGSEGV) == "SIGSEGV")
        #expect(Interruption.name(of: SIGKILL) == "SIGKILL")
        #expect(Interruption.name(of: 64) == "signal 64")
    }
}
