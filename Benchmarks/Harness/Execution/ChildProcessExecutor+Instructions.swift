import Foundation

extension ChildProcessExecutor {
    /// Runs the instruction passes of `runs` in one child under callgrind, in order, and reads each
    /// count from its dump. `nil` when instructions cannot be counted here (see
    /// `InstructionCounter.unavailableReason`).
    public func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]? {
        instructions(runs, expectedSeconds: nil)
    }

    /// The same, expected to take `expectedSeconds` (`Runner.instructionEstimate` of each run and
    /// valgrind's start; a minute for each run without an estimate when `nil`).
    public func instructions(_ runs: [(run: PlannedRun, operations: Int)], expectedSeconds: Double?)
        -> [Measurer.PassReport]?
    {
        guard InstructionCounter.unavailableReason == nil, let valgrind = InstructionCounter.valgrindPath else {
            return nil
        }
        let failedAll = { (why: String) in runs.map { _ in Measurer.PassReport.failed(why) } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bench-callgrind-\(UUID().uuidString)")
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
            runs.map { request($0.run, pass: .instructions, plan: nil, operations: $0.operations) },
            // Set here: under valgrind the child cannot re-execute itself to set it.
            extraEnvironment: ["SWIFT_DETERMINISTIC_HASHING": "1"],
            limit: deadline.limit(expected: expectedSeconds ?? 60 * Double(runs.count)),
            launcher: { arguments in
                (
                    valgrind,
                    InstructionCounter.valgrindArguments(outFile: outFile, executable: program, arguments: arguments)
                )
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
            reports[i].metrics = [
                MetricResult(.instructions, value: perOperation)
            ]
        }
        return reports
    }
}
