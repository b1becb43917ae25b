import Dispatch
import Foundation

/// Runs a measuring pass somewhere: in a child process (`bench`) or in this process (tests).
public protocol PassExecutor: Sendable {
    func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport
    func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport
    /// The instruction passes of `runs`, in order, or `nil` where instructions cannot be counted.
    func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]?
}

extension PassExecutor {
    /// Instructions are counted only under valgrind, in a child process.
    public func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]? { nil }
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
    /// `time`, `count` or `instructions`.
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

    /// Runs the instruction passes of `runs` in one child under callgrind, in order, and reads each
    /// count from its dump. `nil` when instructions cannot be counted here (see
    /// `InstructionCounter.unavailableReason`).
    public func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]? {
        guard InstructionCounter.unavailableReason == nil, let valgrind = InstructionCounter.valgrindPath else {
            return nil
        }
        let failedAll = { (why: String) in runs.map { _ in Measurer.PassReport.failed(why) } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-callgrind-\(UUID().uuidString)")
        do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
            return failedAll("cannot create a folder for callgrind: \(error)")
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let program: String
        switch InstructionCounter.executableForValgrind(executable) {
        case .success(let path): program = path
        case .failure(let failure): return failedAll(failure.message)
        }
        let outFile = folder.appendingPathComponent("callgrind.out").path
        var reports = spawnAll(
            runs.map { request($0.run, pass: "instructions", plan: nil, operations: $0.operations) },
            // Set here: under valgrind the child cannot re-execute itself to set it.
            extraEnvironment: ["SWIFT_DETERMINISTIC_HASHING": "1"],
            limit: Self.timeLimitSeconds + 60 * Double(runs.count),
            launcher: { arguments in
                (valgrind, InstructionCounter.valgrindArguments(outFile: outFile, executable: program, arguments: arguments))
            })
        var totals: [Int: UInt64] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            guard let text = try? String(contentsOfFile: folder.appendingPathComponent(name).path, encoding: .utf8),
                let region = InstructionCounter.region(ofDump: text), let total = InstructionCounter.total(ofDump: text)
            else { continue }
            totals[region] = total
        }
        for i in reports.indices where reports[i].failure == nil {
            guard let total = totals[i] else {
                reports[i].failure = "callgrind wrote no dump of the measured region"
                continue
            }
            let perOperation = Double(total) / Double(max(1, reports[i].batch))
            reports[i].metrics = [MetricResult(name: MetricName.instructions, unit: "instructions", value: perOperation)]
        }
        return reports
    }

    func request(_ run: PlannedRun, pass: String, plan: TimingPlan?, operations: Int?) -> ChildRequest {
        ChildRequest(
            family: run.benchmark.family, contender: run.contender,
            parameters: run.parameters.entries.map { ParameterEntry(key: $0.key, value: $0.value) }, pass: pass,
            plan: plan, operations: operations)
    }

    /// Runs `executable __measure request` (through `launcher` when given: it maps the arguments
    /// to the program and arguments that really run) and decodes the report it prints.
    func spawn(_ request: ChildRequest, extraEnvironment: [String: String], limit: Double) -> Measurer.PassReport {
        spawnAll([request], extraEnvironment: extraEnvironment, limit: limit)[0]
    }

    /// Runs one child for all of `requests` (a JSON array when there are several) and decodes the
    /// report it prints for each, in order; a request without a report failed.
    func spawnAll(
        _ requests: [ChildRequest], extraEnvironment: [String: String], limit: Double,
        launcher: ((_ arguments: [String]) -> (String, [String]))? = nil
    ) -> [Measurer.PassReport] {
        let failedAll = { (why: String) in requests.map { _ in Measurer.PassReport.failed(why) } }
        let request = requests[0]
        let process = Process()
        let json =
            requests.count == 1
            ? String(decoding: try! JSONEncoder().encode(request), as: UTF8.self)
            : String(decoding: try! JSONEncoder().encode(requests), as: UTF8.self)
        let (program, arguments) = launcher?([Self.subcommand, json]) ?? (executable, [Self.subcommand, json])
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extraEnvironment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { return failedAll("could not start a child process: \(error)") }
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
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

    /// The child side: measure what `json` asks for among `suite`, print the report, return an exit
    /// status.
    public static func serve(_ json: String, suite: [Benchmark]) throws(BenchError) -> ExitCode {
        let data = Data(json.utf8)
        guard
            let requests = (try? JSONDecoder().decode([ChildRequest].self, from: data))
                ?? (try? JSONDecoder().decode(ChildRequest.self, from: data)).map({ [$0] })
        else { throw BenchError(.usage, "malformed \(subcommand) request") }
        IdleThread.start()
        for (index, request) in requests.enumerated() {
            guard let benchmark = suite.first(where: { $0.family == request.family && $0.contender == request.contender })
            else { throw BenchError(.usage, "no benchmark \(request.family) on \(request.contender)") }
            let parameters = Parameters(request.parameters.map { ($0.key, $0.value) })
            let report =
                switch request.pass {
                case "count": Measurer.countingPass(benchmark, parameters, operations: request.operations ?? 1)
                case "instructions":
                    Measurer.instructionPass(
                        benchmark, parameters, operations: request.operations ?? 1,
                        region: InstructionCounter.regionName(index))
                default:
                    Measurer.timingPass(
                        benchmark, parameters,
                        plan: request.plan ?? TimingPlan(budgetNanoseconds: 100_000_000, maxSamples: 100))
                }
            let out = String(decoding: try! JSONEncoder().encode(report), as: UTF8.self)
            FileHandle.standardOutput.write(Data((Self.marker + out + "\n").utf8))
        }
        return .success
    }
}
