import Dispatch
import Foundation
import Synchronization

/// Runs each pass in a fresh process: `<this executable> __measure <request JSON>`, so no state
/// (heap layout, registrar tables, caches) leaks between benchmarks. The counting pass runs with
/// `MALLOC_CONF=tcache:false`, which makes jemalloc's request counts exact across all threads.
public struct ChildProcessExecutor: PassExecutor {
    /// The subcommand `bench` answers with `ChildProcessExecutor.serve`.
    public static let subcommand = "__measure"
    static let marker = "BENCH-PASS-REPORT "

    public var executable: String
    /// Where the lines children print on stderr go; `nil`: straight to this process's stderr.
    public var diagnostics: (@Sendable (String) -> Void)?
    /// How long each child may run.
    public var deadline: ChildDeadline
    /// Stops the children when the run is interrupted.
    public var interruption: Interruption

    public init(
        executable: String = ChildProcessExecutor.currentExecutable, deadline: ChildDeadline = ChildDeadline(),
        interruption: Interruption = .process
    ) {
        self.executable = executable
        self.deadline = deadline
        self.interruption = interruption
    }

    public func reporting(diagnostics: @escaping @Sendable (String) -> Void) -> any PassExecutor {
        var copy = self
        copy.diagnostics = diagnostics
        return copy
    }

    public func interruptible(by interruption: Interruption) -> any PassExecutor {
        var copy = self
        copy.interruption = interruption
        return copy
    }

    public static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    public func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
        spawn(
            request(run, pass: .time, plan: plan, operations: nil), extraEnvironment: [:], limit: deadline.timing(plan))
    }

    public func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
        counting(run, operations: operations, expectedSeconds: nil)
    }

    public func counting(_ run: PlannedRun, operations: Int, expectedSeconds: Double?) -> Measurer.PassReport {
        spawn(
            request(run, pass: .count, plan: nil, operations: operations),
            extraEnvironment: ["MALLOC_CONF": "tcache:false"], limit: deadline.limit(expected: expectedSeconds ?? 0))
    }

    func request(_ run: PlannedRun, pass: Pass, plan: TimingPlan?, operations: Int?) -> ChildRequest {
        ChildRequest(
            family: run.benchmark.family, contender: run.contender, parameters: run.parameters, pass: pass,
            plan: plan, operations: operations)
    }

    /// Runs `executable __measure request` (through `launcher` when given: it maps the arguments
    /// to the program and arguments that really run) and decodes the report it prints.
    func spawn(_ request: ChildRequest, extraEnvironment: [String: String], limit: Double) -> Measurer.PassReport {
        spawnAll([request], extraEnvironment: extraEnvironment, limit: limit)[0]
    }

    /// Runs one child for all of `requests` and decodes the report it prints for each, in order; a
    /// request without a report failed: the first of them timed out, crashed or exited, and the
    /// failure says which (`ChildProcess.Ending`); an interrupted child's requests are `nil`
    /// (not measured, not failed). Always a JSON array, even of one request: the child then
    /// takes the same path whatever the batch, and what it allocates before measuring does not
    /// depend on it (a failed decode of one form before the other moved `apple`'s instruction count
    /// of `settings/class-fields` from about 1,990 to 3,037 per operation; see `Gate`).
    func spawnAll(
        _ requests: [ChildRequest], extraEnvironment: [String: String], limit: Double,
        launcher: ((_ arguments: [String]) -> (String, [String]))? = nil
    ) -> [Measurer.PassReport] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try! encoder.encode(requests), as: UTF8.self)
        let (program, arguments) = launcher?([Self.subcommand, json]) ?? (executable, [Self.subcommand, json])
        let child = ChildProcess(
            program: program, arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }, deadline: limit,
            capturesErrors: diagnostics != nil)
        let outcome = child.run(interruption: interruption)
        if let diagnostics {
            for line in outcome.errors.split(separator: "\n") { diagnostics(String(line)) }
        }
        var reports = outcome.output.split(separator: "\n").filter { $0.hasPrefix(Self.marker) }.compactMap {
            try? JSONDecoder().decode(Measurer.PassReport.self, from: Data($0.dropFirst(Self.marker.count).utf8))
        }
        let stopped = requests[min(reports.count, requests.count - 1)]
        let pass = stopped.pass == .time ? "timing" : stopped.pass == .count ? "counting" : "instruction"
        if reports.count >= requests.count {
            // A child that printed every report and then crashed (or hung, or exited with an error
            // status) is no success: what it measured before is not trusted.
            let after: String?
            switch outcome.ending {
            case .exited(0), .interrupted: after = nil
            case .exited(let status): after = "exited with status \(status)"
            case .signaled(let signal): after = "was killed by \(Interruption.name(of: signal))"
            case .timedOut(let seconds): after = "timed out after \(Int(seconds.rounded())) s"
            case .notStarted(let error): after = "could not start: \(error)"
            }
            guard let after else { return Array(reports.prefix(requests.count)) }
            return requests.map { _ in .failed("the \(pass) pass's child \(after) after its report") }
        }
        let why: String
        switch outcome.ending {
        case .timedOut(let seconds):
            why = "timed out after \(Int(seconds.rounded())) s (the \(pass) pass's deadline: \(Int(limit.rounded())) s)"
        case .signaled(let signal):
            why = "the \(pass) pass was killed by \(Interruption.name(of: signal)) without a result"
        case .exited(let status):
            why = "the \(pass) pass exited with status \(status) without a result"
        case .interrupted:
            why = Self.interruptedFailure
        case .notStarted(let error):
            why = "could not start a child process: \(error)"
        }
        let rest = requests.count - reports.count
        reports.append(.failed(why))
        if rest > 1 {
            let name = stopped.family + stopped.parameters.entries.map { "/\($0.key)=\($0.value)" }.joined()
            let after = why == Self.interruptedFailure ? why : Self.notReached + "\(name) (\(why))"
            reports += Array(repeating: .failed(after), count: rest - 1)
        }
        return reports
    }

    /// How the failure of a request begins whose child stopped at an earlier one: not measured,
    /// which is not a failure of its own (`Runner.countInstructions` leaves such a run uncounted).
    static let notReached = "not measured: its child stopped at "

    /// The failure of a pass whose child the interruption stopped: the runner drops such passes.
    static let interruptedFailure = "interrupted"
}

/// How long a measuring child may run before its process group is killed and its benchmark
/// fails ("timed out after N s"): `allowance` seconds (start, setup, calibration, a slow
/// operation) plus `factor` times what the pass is given: the timing pass its warm-up and
/// sampling budget; the counting pass its three rounds of operations at the p50 time the timing
/// pass measured, plus the setup time it measured; the instruction pass its estimate under
/// callgrind (`Runner.instructionEstimate`).
public struct ChildDeadline: Sendable, Equatable {
    public var allowance: Double
    public var factor: Double

    public init(allowance: Double = 60, factor: Double = 4) {
        self.allowance = allowance
        self.factor = factor
    }

    /// Seconds for a pass expected to take `expected` seconds.
    public func limit(expected: Double) -> Double { allowance + factor * max(expected, 0) }

    /// Seconds for a timing pass with `plan`.
    public func timing(_ plan: TimingPlan) -> Double {
        limit(expected: Double(plan.budgetNanoseconds + plan.warmupNanoseconds) / 1e9)
    }
}
