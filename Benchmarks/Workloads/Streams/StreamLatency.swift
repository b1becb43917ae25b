import Harness

/// `stream/latency` and `stream/main-actor`: see `Streams`.
final class StreamLatency<C: StreamContender>: BenchmarkInstance {
    /// Who writes, and where the consumer runs.
    enum Shape {
        /// `stream/latency`: the benchmark's thread writes; the consumer is a task on the
        /// contender's `consumerIsolation`.
        case writerThread
        /// `stream/main-actor`: a worker thread writes; the consumer runs on the main actor, which
        /// the benchmark's thread (the main thread, under `bench`) services while it waits, as an
        /// app's run loop does.
        case mainActorConsumer

        var family: String {
            switch self {
            case .writerThread: "stream/latency"
            case .mainActorConsumer: "stream/main-actor"
            }
        }
    }

    /// One write every 50 µs: slower than every contender's wake-up, so most writes are delivered
    /// on their own; a consumer slower than that coalesces.
    static var periodNanoseconds: UInt64 { 50_000 }
    /// How long after the last write the consumer may take to hold it before it counts as missed.
    static var finalValueDeadline: Double { 2 }
    /// Latency samples kept (the first ones; p99.9 needs a thousand).
    static var sampleCap: Int { 100_000 }

    static func benchmark(_: C.Type, _ shape: Shape) -> Benchmark {
        // Counting over 200 writes (10 ms): a write's allocations depend on whether it found the
        // consumer parked or still running; over 200 they average out.
        Benchmark(family: shape.family, contender: C.name, countingOperations: 200) { _ in
            try StreamLatency<C>(shape)
        }
        // The consumer is a task: whether a write finds its thread parked or still running
        // changes what the wake-up allocates (2 to 4 per write for `lockfree`, between runs). On
        // the main actor, the main run loop's own allocations come with every return from it
        // (8.0 and 15.4 per write for `lockfree` in two runs): not gated.
        .onThreads { _ in
            .timingDependent(countsVary: false, mallocTolerance: shape == .writerThread ? 4 : .infinity)
        }
    }

    let shape: Shape
    let model: UncheckedSendable<C.Model>
    let receipts = Receipts()
    let consumer: Task<Void, Never>
    /// The writer of `stream/main-actor`.
    let writer: Worker?
    var next = 1
    var latencies: [Double] = []
    var writes = 0
    var delivered = 0
    var missed = 0

    init(_ shape: Shape) throws {
        let model = UncheckedSendable(C.makeModel())
        let receipts = self.receipts
        self.shape = shape
        self.model = model
        switch shape {
        case .writerThread:
            writer = nil
            consumer = Task {
                await C.consume(model.value, isolation: C.consumerIsolation) { receipts.record($0) }
            }
        case .mainActorConsumer:
            writer = Worker()
            consumer = Task { @MainActor in
                await C.consume(model.value, isolation: MainActor.shared) { receipts.record($0) }
            }
        }
        guard
            Streams.wait(
                seconds: Self.finalValueDeadline, servicingTheMainActor: shape == .mainActorConsumer,
                until: { receipts.last.load(ordering: .acquiring) == 0 })
        else {
            consumer.cancel()
            throw BenchmarkFailure("\(shape.family) on \(C.name): the consumer never received its first value")
        }
        latencies.reserveCapacity(Self.sampleCap)
    }

    deinit { consumer.cancel() }

    /// Makes `count` writes, from `first` on, one every `periodNanoseconds`, stamping each just
    /// before its store.
    static func write(
        _ model: UncheckedSendable<C.Model>, from first: Int, count: Int, stamps: UnsafeMutablePointer<UInt64>,
        forTheMainActor: Bool
    ) {
        var due = monotonicNanoseconds()
        for j in 0..<count {
            due += periodNanoseconds
            while monotonicNanoseconds() < due {}
            stamps[j] = monotonicNanoseconds()
            if forTheMainActor {
                C.writeFromThreadForTheMainActor(Double(first + j), to: model.value)
            } else {
                C.writeFromThread(Double(first + j), to: model.value)
            }
        }
    }

    func run(operations: Int) throws -> Int {
        let ops = min(operations, Receipts.capacity / 2)
        let first = next
        let start = receipts.count.load(ordering: .acquiring)
        let stamps = UnsafeMutablePointer<UInt64>.allocate(capacity: ops)
        defer { stamps.deallocate() }
        let model = self.model
        if let writer {
            // `stamps` is the worker's until `wait()` returns.
            let shared = UncheckedSendable(stamps)
            writer.start { Self.write(model, from: first, count: ops, stamps: shared.value, forTheMainActor: true) }
        } else {
            Self.write(model, from: first, count: ops, stamps: stamps, forTheMainActor: false)
        }
        next = first + ops
        let final = next - 1
        let receipts = self.receipts
        let arrived = Streams.wait(
            seconds: Self.finalValueDeadline + Double(ops * Int(Self.periodNanoseconds)) / 1e9,
            servicingTheMainActor: writer != nil,
            until: { receipts.last.load(ordering: .acquiring) >= final })
        writer?.wait()
        guard arrived else {
            missed += 1
            throw BenchmarkFailure(
                "\(shape.family) on \(C.name): missed final value \(final): the consumer holds \(receipts.last.load(ordering: .acquiring))"
            )
        }
        // Each write's latency: until the consumer held its value or a later one.
        let end = receipts.count.load(ordering: .acquiring)
        var k = start
        for j in 0..<ops {
            let value = Double(first + j)
            while receipts.values[k & (Receipts.capacity - 1)] < value { k += 1 }
            if latencies.count < Self.sampleCap {
                latencies.append(Double(receipts.times[k & (Receipts.capacity - 1)] &- stamps[j]))
            }
        }
        writes += ops
        delivered += end - start
        return final
    }

    var counts: InvalidationCounts { InvalidationCounts(missed: missed) }

    var measuredMetrics: [MeasuredMetric] {
        guard writes > 0 else { return [] }
        return [
            MeasuredMetric(.latency, values: latencies),
            MeasuredMetric(.latencyTail, values: [Streams.percentile(0.999, of: latencies.sorted())]),
            MeasuredMetric(.deliveredPerWrite, values: [Double(delivered) / Double(writes)]),
        ]
    }
}
