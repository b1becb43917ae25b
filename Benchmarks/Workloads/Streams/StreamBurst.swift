import Harness
import Synchronization

/// `stream/burst/writes=K`: see `Streams`.
final class StreamBurst<C: StreamContender>: BenchmarkInstance {
    static var finalValueDeadline: Double { 2 }

    static func benchmarks(_: C.Type) -> [Benchmark] {
        [
            Benchmark(
                family: "stream/burst", contender: C.name,
                parameterSets: sets("writes", [1, 100, 10_000]), parameterKinds: ["writes": .integer(1...1_000_000)],
                countingOperations: 20
            ) { params in try StreamBurst<C>(writes: params.int("writes", default: 100)) }
            // The burst is a task and the consumer another, on the cooperative pool: `apple`'s
            // hops allocated 16.4 to 18 per burst between runs. `delivered` is exact.
            .onThreads { _ in
                // Time: the burst's own work, and the consumer's wake-up on the actor.
                .timingDependent(countsVary: false, mallocTolerance: 2.5, timeRatioTolerance: 10)
            }
        ]
    }

    let model: UncheckedSendable<C.Model>
    let writes: Int
    let receipts = Receipts()
    let consumer: Task<Void, Never>
    var next = 1
    var bursts = 0
    var delivered = 0
    var missed = 0

    init(writes: Int) throws {
        let model = UncheckedSendable(C.makeModel())
        let receipts = self.receipts
        self.model = model
        self.writes = writes
        consumer = Task { @StreamActor in
            for await value in C.values(of: model.value, isolation: #isolation) { receipts.record(value) }
        }
        guard Streams.wait(seconds: Self.finalValueDeadline, until: { receipts.last.load(ordering: .acquiring) == 0 })
        else {
            consumer.cancel()
            throw BenchmarkFailure("stream/burst on \(C.name): the consumer never received its first value")
        }
    }

    deinit { consumer.cancel() }

    func run(operations: Int) throws -> Int {
        let start = receipts.count.load(ordering: .acquiring)
        for _ in 0..<operations {
            let first = next
            let count = writes
            next += count
            let final = next - 1
            let model = self.model
            Task { @StreamActor in
                for i in 0..<count { C.write(Double(first + i), to: model.value) }
            }
            guard
                Streams.wait(
                    seconds: Self.finalValueDeadline, until: { receipts.last.load(ordering: .acquiring) >= final })
            else {
                missed += 1
                throw BenchmarkFailure(
                    "stream/burst on \(C.name): missed final value \(final): the consumer holds \(receipts.last.load(ordering: .acquiring))"
                )
            }
        }
        bursts += operations
        delivered += receipts.count.load(ordering: .acquiring) - start
        return next
    }

    var counts: InvalidationCounts { InvalidationCounts(missed: missed) }

    /// Values delivered per burst: fixed by the contract (1), so a workload value, gated exactly.
    var extraMetrics: [String: Double] {
        bursts > 0 ? ["delivered": Double(delivered) / Double(bursts)] : [:]
    }
}
