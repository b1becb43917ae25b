import Harness

/// `stream/latency`: see `Streams`.
final class StreamLatency<C: StreamContender>: BenchmarkInstance {
    /// One write every 50 µs: slower than every contender's wake-up, so most writes are delivered
    /// on their own; a consumer slower than that coalesces.
    static var periodNanoseconds: UInt64 { 50_000 }
    /// How long after the last write the consumer may take to hold it before it counts as missed.
    static var finalValueDeadline: Double { 2 }
    /// Latency samples kept (the first ones; p99.9 needs a thousand).
    static var sampleCap: Int { 100_000 }

    static func benchmark(_: C.Type) -> Benchmark {
        // Counting over 200 writes (10 ms): a write's allocations depend on whether it found the
        // consumer parked or still running; over 200 they average out.
        Benchmark(family: "stream/latency", contender: C.name, countingOperations: 200) { _ in try StreamLatency<C>() }
            // The consumer is a task: whether a write finds its thread parked or still running
            // changes what the wake-up allocates (2 to 4 per write for `lockfree`, between runs).
            .onThreads { _ in .timingDependent(countsVary: false, mallocTolerance: 4) }
    }

    let model: UncheckedSendable<C.Model>
    let receipts = Receipts()
    let consumer: Task<Void, Never>
    var next = 1
    var latencies: [Double] = []
    var writes = 0
    var delivered = 0
    var missed = 0

    init() throws {
        let model = UncheckedSendable(C.makeModel())
        let receipts = self.receipts
        self.model = model
        consumer = Task {
            await C.consume(model.value, isolation: C.consumerIsolation) { receipts.record($0) }
        }
        guard Streams.wait(seconds: Self.finalValueDeadline, until: { receipts.last.load(ordering: .acquiring) == 0 })
        else {
            consumer.cancel()
            throw BenchmarkFailure("stream/latency on \(C.name): the consumer never received its first value")
        }
        latencies.reserveCapacity(Self.sampleCap)
    }

    deinit { consumer.cancel() }

    func run(operations: Int) throws -> Int {
        let ops = min(operations, Receipts.capacity / 2)
        let first = next
        let start = receipts.count.load(ordering: .acquiring)
        var stamps = [UInt64](repeating: 0, count: ops)
        var due = monotonicNanoseconds()
        for j in 0..<ops {
            due += Self.periodNanoseconds
            while monotonicNanoseconds() < due {}
            stamps[j] = monotonicNanoseconds()
            C.writeFromThread(Double(first + j), to: model.value)
        }
        next = first + ops
        let final = next - 1
        guard
            Streams.wait(seconds: Self.finalValueDeadline, until: { receipts.last.load(ordering: .acquiring) >= final })
        else {
            missed += 1
            throw BenchmarkFailure(
                "stream/latency on \(C.name): missed final value \(final): the consumer holds \(receipts.last.load(ordering: .acquiring))"
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
            MeasuredMetric(name: "latency", unit: "ns", values: latencies),
            MeasuredMetric(
                name: "latency-p99.9", unit: "ns", values: [Streams.percentile(0.999, of: latencies.sorted())]),
            MeasuredMetric(name: "delivered-per-write", unit: "ratio", values: [Double(delivered) / Double(writes)]),
        ]
    }
}
