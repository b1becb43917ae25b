import Foundation

extension ChildProcessExecutor {
    /// The child side: measure what `json` asks for among `suite`, print the report, return an exit
    /// status.
    public static func serve(_ json: String, suite: [Benchmark]) throws(BenchError) -> ExitCode {
        let data = Data(json.utf8)
        guard
            let requests = (try? JSONDecoder().decode([ChildRequest].self, from: data))
                ?? (try? JSONDecoder().decode(ChildRequest.self, from: data)).map({ [$0] })
        else { throw BenchError(.usage, "malformed \(subcommand) request") }
        ChildProcess.dieWithParent()
        IdleThread.start()
        for (index, request) in requests.enumerated() {
            guard
                let benchmark = suite.first(where: { $0.family == request.family && $0.contender == request.contender })
            else { throw BenchError(.usage, "no benchmark \(request.family) on \(request.contender)") }
            let parameters = request.parameters
            let report =
                switch request.pass {
                case .count: Measurer.countingPass(benchmark, parameters, operations: request.operations ?? 1)
                case .instructions:
                    Measurer.instructionPass(
                        benchmark, parameters, operations: request.operations ?? 1,
                        region: InstructionCounter.regionName(index))
                case .time:
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
