import Dispatch
import Foundation

/// Runs a measuring pass somewhere: in a child process (`bench`) or in this process (tests).
public protocol PassExecutor: Sendable {
    func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport
    func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport
}

/// Runs both passes in this process. Allocation counts are then exact only for this thread.
public struct InProcessExecutor: PassExecutor {
    public init() {}
    public func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
        Measurer.timingPass(run.benchmark, run.parameters, plan: plan)
    }
    public func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
        Measurer.countingPass(run.benchmark, run.parameters, operations: operations)
    }
}

/// What a child process is asked to measure; passed as one JSON argument.
public struct ChildRequest: Sendable, Codable, Equatable {
    public var family: String
    public var contender: String
    public var parameters: [ParameterEntry]
    /// `time` or `count`.
    public var pass: String
    public var plan: TimingPlan?
    public var operations: Int?
}

/// Runs each pass in a fresh process: `<this executable> __measure <request JSON>`, so no state
/// (heap layout, registrar tables, caches) leaks between benchmarks. The counting pass runs with
/// `MALLOC_CONF=tcache:false`, which makes jemalloc's request counts exact across all threads.
public struct ChildProcessExecutor: PassExecutor {
    /// The subcommand `bench` answers with `ChildProcessExecutor.serve`.
    public static let subcommand = "__measure"
    static let marker = "BENCH-PASS-REPORT "

    public var executable: String
    public init(executable: String = ChildProcessExecutor.currentExecutable) { self.executable = executable }

    public static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// A child that takes longer than this is killed and its benchmark fails: a hung workload must
    /// not hang the suite. Generous: setup of the largest parameter sets takes seconds.
    static let timeLimitSeconds = 300.0

    public func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
        let limit = Self.timeLimitSeconds + 8 * Double(plan.budgetNanoseconds + plan.warmupNanoseconds) / 1e9
        return spawn(request(run, pass: "time", plan: plan, operations: nil), extraEnvironment: [:], limit: limit)
    }

    public func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
        spawn(
            request(run, pass: "count", plan: nil, operations: operations),
            extraEnvironment: ["MALLOC_CONF": "tcache:false"], limit: Self.timeLimitSeconds)
    }

    func request(_ run: PlannedRun, pass: String, plan: TimingPlan?, operations: Int?) -> ChildRequest {
        ChildRequest(
            family: run.benchmark.family, contender: run.contender,
            parameters: run.parameters.entries.map { ParameterEntry(key: $0.key, value: $0.value) }, pass: pass,
            plan: plan, operations: operations)
    }

    func spawn(_ request: ChildRequest, extraEnvironment: [String: String], limit: Double) -> Measurer.PassReport {
        let failed = { (why: String) in Measurer.PassReport(metrics: [], failure: why, batch: 0) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        let json = String(decoding: try! JSONEncoder().encode(request), as: UTF8.self)
        process.arguments = [Self.subcommand, json]
        process.environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { return failed("could not start a child process: \(error)") }
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        let text = String(decoding: data, as: UTF8.self)
        if let line = text.split(separator: "\n").last(where: { $0.hasPrefix(Self.marker) }),
            let report = try? JSONDecoder().decode(
                Measurer.PassReport.self, from: Data(line.dropFirst(Self.marker.count).utf8))
        {
            return report
        }
        if process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM {
            return failed("the \(request.pass) pass took longer than \(Int(limit)) s and was stopped")
        }
        let how = process.terminationReason == .uncaughtSignal ? "signal" : "exit status"
        return failed("the \(request.pass) pass crashed (\(how) \(process.terminationStatus)) without a result")
    }

    /// The child side: measure what `json` asks for among `suite`, print the report, return an exit
    /// status.
    public static func serve(_ json: String, suite: [Benchmark]) -> Int32 {
        guard let request = try? JSONDecoder().decode(ChildRequest.self, from: Data(json.utf8)) else {
            FileHandle.standardError.write(Data("bench: malformed \(subcommand) request\n".utf8))
            return ExitCode.usage
        }
        guard let benchmark = suite.first(where: { $0.family == request.family && $0.contender == request.contender })
        else {
            FileHandle.standardError.write(Data("bench: no benchmark \(request.family) on \(request.contender)\n".utf8))
            return ExitCode.usage
        }
        IdleThread.start()
        let parameters = Parameters(request.parameters.map { ($0.key, $0.value) })
        let report =
            request.pass == "count"
            ? Measurer.countingPass(benchmark, parameters, operations: request.operations ?? 1)
            : Measurer.timingPass(
                benchmark, parameters,
                plan: request.plan ?? TimingPlan(budgetNanoseconds: 100_000_000, maxSamples: 100))
        let out = String(decoding: try! JSONEncoder().encode(report), as: UTF8.self)
        print(marker + out)
        return 0
    }
}
