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

    public init(executable: String = ChildProcessExecutor.currentExecutable) { self.executable = executable }

    public func reporting(diagnostics: @escaping @Sendable (String) -> Void) -> any PassExecutor {
        var copy = self
        copy.diagnostics = diagnostics
        return copy
    }

    public static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// A child that takes longer than this is killed and its benchmark fails: a hung workload must
    /// not hang the suite. Generous: setup of the largest parameter sets takes seconds.
    static let timeLimitSeconds = 300.0

    public func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
        let limit = Self.timeLimitSeconds + 8 * Double(plan.budgetNanoseconds + plan.warmupNanoseconds) / 1e9
        return spawn(request(run, pass: .time, plan: plan, operations: nil), extraEnvironment: [:], limit: limit)
    }

    public func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
        spawn(
            request(run, pass: .count, plan: nil, operations: operations),
            extraEnvironment: ["MALLOC_CONF": "tcache:false"], limit: Self.timeLimitSeconds)
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
    /// request without a report failed. Always a JSON array, even of one request: the child then
    /// takes the same path whatever the batch, and what it allocates before measuring does not
    /// depend on it (a failed decode of one form before the other moved `apple`'s instruction count
    /// of `settings/class-fields` from about 1,990 to 3,037 per operation; see `Gate`).
    func spawnAll(
        _ requests: [ChildRequest], extraEnvironment: [String: String], limit: Double,
        launcher: ((_ arguments: [String]) -> (String, [String]))? = nil
    ) -> [Measurer.PassReport] {
        let failedAll = { (why: String) in requests.map { _ in Measurer.PassReport.failed(why) } }
        let request = requests[0]
        let process = Process()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try! encoder.encode(requests), as: UTF8.self)
        let (program, arguments) = launcher?([Self.subcommand, json]) ?? (executable, [Self.subcommand, json])
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        let errors = diagnostics.map { _ in Pipe() }
        if let errors { process.standardError = errors }
        do { try process.run() } catch { return failedAll("could not start a child process: \(error)") }
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
        // stderr is drained on another thread, so that a child filling one pipe never blocks.
        let errorText = Mutex("")
        let drained = DispatchGroup()
        if let errors {
            DispatchQueue.global().async(group: drained) {
                let data = errors.fileHandleForReading.readDataToEndOfFile()
                errorText.withLock { $0 = String(decoding: data, as: UTF8.self) }
            }
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        drained.wait()
        if let diagnostics {
            for line in errorText.withLock({ $0 }).split(separator: "\n") { diagnostics(String(line)) }
        }
        let text = String(decoding: data, as: UTF8.self)
        var reports = text.split(separator: "\n").filter { $0.hasPrefix(Self.marker) }.compactMap {
            try? JSONDecoder().decode(Measurer.PassReport.self, from: Data($0.dropFirst(Self.marker.count).utf8))
        }
        if reports.count >= requests.count { return Array(reports.prefix(requests.count)) }
        let why: String
        if process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM {
            why = "the \(request.pass) pass took longer than \(Int(limit)) s and was stopped"
        } else {
            let how = process.terminationReason == .uncaughtSignal ? "signal" : "exit status"
            why = "the \(request.pass) pass crashed (\(how) \(process.terminationStatus)) without a result"
        }
        reports += failedAll(why).dropFirst(reports.count)
        return reports
    }
}
