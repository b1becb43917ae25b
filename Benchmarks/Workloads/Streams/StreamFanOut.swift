import Harness
import Synchronization

/// `stream/fan-out/consumers=N`: see `Streams`.
final class StreamFanOut<C: StreamContender>: BenchmarkInstance {
    static var finalValueDeadline: Double { 10 }

    static func benchmarks(_: C.Type) -> [Benchmark] {
        [
            Benchmark(
                family: "stream/fan-out", contender: C.name,
                parameterSets: sets("consumers", [1, 100, 10_000]),
                parameterKinds: ["consumers": .integer(1...100_000)],
                countingOperations: 20
            ) { params in try StreamFanOut<C>(consumers: params.int("consumers", default: 100)) }
            // N consumer tasks woken by one write: what the wake-ups allocate depends on how many
            // found their thread still running (between two runs: 203 and 283 for `naive` at 100
            // consumers, 13,400 and 15,400 for `lockfree` at 10,000).
            .onThreads { params in
                let consumers = Double(params.int("consumers", default: 100))
                // Per consumer, beyond 100: 0.4 allocations; 1 for `locked`'s one-shot scopes, each
                // a scope object and its lists per re-arming (52,730 to 60,437 at 10,000 consumers
                // in five runs), and for the `AsyncStream` hand-off of `naive` and `floor`, whose
                // count per write settles, for a whole process, at about 2.0 or 2.7 per consumer
                // (at 10,000 consumers, `naive` in four runs: 20,392, 20,401, 27,089, 27,352).
                let oneEach = C.self == LockedStream.self || C.self == NaiveStream.self || C.self == FloorStream.self
                let perConsumer = oneEach ? 1.0 : 0.4
                // Time: with one consumer, one wake-up, which the scheduler sets (lockfree/apple
                // 0.094 on one 2-core machine, 1.18 on another): not gated. With more, the
                // registrar's fan-out and the consumers' evaluations weigh in.
                return .timingDependent(
                    countsVary: false,
                    mallocTolerance: consumers <= 1 ? 4 : max(1.5 * min(consumers, 100), perConsumer * consumers),
                    timeRatioTolerance: consumers <= 1 ? .infinity : 10)
            }
        ]
    }

    let model: UncheckedSendable<C.Model>
    let consumers: [Task<Void, Never>]
    let count: Int
    var expected: Int
    var next = 1
    var latencies: [Double] = []
    var bytesPerConsumer: Double?
    var missed = 0

    init(consumers count: Int) throws {
        // What a process allocates once, at its first observation (the lock-free registrar's
        // table of scope records, a runtime's caches), is no consumer's: one consumer comes and
        // goes before the count starts.
        try Self.warmUp()
        let counter = AllocationCounter()
        let before = counter?.liveBytes()
        let model = UncheckedSendable(C.makeModel())
        self.model = model
        self.count = count
        var tasks: [Task<Void, Never>] = []
        tasks.reserveCapacity(count)
        let shared = Holders()
        for _ in 0..<count {
            tasks.append(
                Task {
                    var held = -1.0
                    await C.consume(model.value, isolation: C.consumerIsolation) { value in
                        if value > held {
                            held = value
                            shared.count.add(1, ordering: .releasing)
                        }
                    }
                })
        }
        consumers = tasks
        sharedHolders = shared
        expected = count
        guard
            Streams.wait(seconds: Self.finalValueDeadline, until: { shared.count.load(ordering: .acquiring) >= count })
        else {
            for task in tasks { task.cancel() }
            throw BenchmarkFailure("stream/fan-out on \(C.name): not every consumer received its first value")
        }
        if let counter, let before {
            bytesPerConsumer = Double(Int64(bitPattern: counter.liveBytes() &- before)) / Double(count)
        }
    }

    /// One consumer of a model of its own, until it holds the first value, then cancelled and
    /// awaited.
    static func warmUp() throws {
        let model = UncheckedSendable(C.makeModel())
        let received = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
        let task = Task {
            await C.consume(model.value, isolation: C.consumerIsolation) { _ in
                received.store(true, ordering: .releasing)
            }
            finished.store(true, ordering: .releasing)
        }
        let held = Streams.wait(seconds: finalValueDeadline) { received.load(ordering: .acquiring) }
        task.cancel()
        guard held, Streams.wait(seconds: finalValueDeadline, until: { finished.load(ordering: .acquiring) }) else {
            throw BenchmarkFailure("stream/fan-out on \(C.name): the warm-up consumer did not start or end")
        }
    }

    /// Values received, one per consumer per write (a repeat of the value it holds is not counted).
    let sharedHolders: Holders

    final class Holders: Sendable {
        let count = Atomic<Int>(0)
    }

    deinit { for task in consumers { task.cancel() } }

    func run(operations: Int) throws -> Int {
        let holders = sharedHolders
        for _ in 0..<operations {
            let value = next
            next += 1
            expected += count
            let target = expected
            let start = monotonicNanoseconds()
            C.writeFromThread(Double(value), to: model.value)
            guard
                Streams.wait(
                    seconds: Self.finalValueDeadline, until: { holders.count.load(ordering: .acquiring) >= target })
            else {
                missed += 1
                throw BenchmarkFailure(
                    "stream/fan-out on \(C.name): missed final value: \(target - holders.count.load(ordering: .acquiring)) of \(count) consumers never held \(value)"
                )
            }
            latencies.append(Double(monotonicNanoseconds() - start))
        }
        return next
    }

    var counts: InvalidationCounts { InvalidationCounts(missed: missed) }

    var measuredMetrics: [MeasuredMetric] {
        var metrics: [MeasuredMetric] = []
        if !latencies.isEmpty { metrics.append(MeasuredMetric(.latency, values: latencies)) }
        if let bytesPerConsumer {
            metrics.append(MeasuredMetric(.bytesPerConsumer, values: [bytesPerConsumer]))
        }
        return metrics
    }
}
