import Foundation
import Harness
import Testing

@testable import Workloads

/// The `stream` family's instances, run briefly for every contender: what they count must hold
/// whatever the timing (values delivered per burst, no missed final value, one latency sample
/// per write). Each runs on a thread of its own, as `bench` runs a benchmark: the instances wait
/// for their consumers by spinning, which must not hold the cooperative pool the consumers need.
///
/// Not for ThreadSanitizer: the suite's models keep plain storage, which a writer thread and a
/// consumer share (as in `books/threads`; `scripts/test.sh` sanitizes the registrars' tests).
@Suite(.serialized) struct ConsumerWorkloadTests {
    static let contenders = ["floor", "lockfree", "locked", "apple", "naive"]

    /// What a run of `body` on `name`'s instance for `contender` saw, on a thread of its own.
    func onThread<T: Sendable>(
        _ name: String, _ contender: String, _ parameters: [(String, String)] = [],
        _ body: @escaping @Sendable (any BenchmarkInstance) throws -> T
    ) async throws -> T {
        let benchmark = try #require(
            Streams.benchmarks().first(where: { $0.family == name && $0.contender == contender }))
        let parameters = UncheckedSendable(Parameters(parameters))
        Streams.patience.store(30, ordering: .relaxed)
        return try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
            Thread {
                do { done.resume(returning: try body(try benchmark.make(parameters.value))) } catch {
                    done.resume(throwing: error)
                }
            }.start()
        }
    }

    /// Its consumers are tasks on other threads: every benchmark says so, with exact counts
    /// (`missed`) and a malloc tolerance.
    @Test func everyStreamBenchmarkDeclaresItsThreads() {
        for benchmark in Streams.benchmarks() {
            for parameters in benchmark.defaultParameterSets {
                guard case .timingDependent(countsVary: false, let tolerance, _) = benchmark.threads(parameters) else {
                    Issue.record(
                        "\(benchmark.name(with: parameters)) on \(benchmark.contender): \(benchmark.threads(parameters))"
                    )
                    continue
                }
                // (On the main actor, the run loop's allocations vary with the timing: not gated.)
                #expect(
                    (tolerance.isFinite || benchmark.family == "stream/main-actor") && tolerance > 0,
                    "\(benchmark.name(with: parameters)) on \(benchmark.contender)")
            }
        }
    }

    /// Under Apple's contract a burst between two suspensions is one value; an `AsyncStream`
    /// hands the first write's value straight to the waiting consumer and coalesces the rest into
    /// the newest, so `naive` and `floor` deliver two.
    @Test(arguments: contenders)
    func aBurstIsDeliveredAsOneTransaction(_ contender: String) async throws {
        for writes in [1, 100] {
            let (delivered, missed) = try await onThread("stream/burst", contender, [("writes", String(writes))]) {
                _ = try $0.run(operations: 3)
                return ($0.extraMetrics["delivered"], $0.counts.missed)
            }
            let expected: Double = writes > 1 && ["naive", "floor"].contains(contender) ? 2 : 1
            #expect(delivered == expected, "writes=\(writes)")
            #expect(missed == 0)
        }
    }

    /// `stream/main-actor` here runs on a thread of its own: the main actor's jobs run on the test
    /// process's main thread, as they do on an app's.
    @Test(arguments: contenders, ["stream/latency", "stream/main-actor"])
    func everyWriteHasALatencyAndTheFinalValueArrives(_ contender: String, _ family: String) async throws {
        let (metrics, missed) = try await onThread(family, contender) {
            _ = try $0.run(operations: 20)
            _ = try $0.run(operations: 5)
            return ($0.measuredMetrics, $0.counts.missed)
        }
        #expect(missed == 0)
        let samples = metrics.first { $0.metric == .latency }?.values ?? []
        #expect(samples.count == 25)
        #expect(samples.allSatisfy { $0 > 0 })
        let deliveredPerWrite = metrics.first { $0.metric == .deliveredPerWrite }?.values.first ?? 0
        // Below 1 when writes coalesce. A write tells its consumer at willSet: an evaluation that
        // runs before the store repeats the last value, and the write then tells it once more, so
        // at most 2 (Documentation/Streams.md).
        #expect(deliveredPerWrite > 0 && deliveredPerWrite <= 2)
    }

    @Test(arguments: contenders)
    func everyConsumerOfAFanOutHoldsEveryWrite(_ contender: String) async throws {
        for consumers in [1, 10] {
            let (metrics, missed) = try await onThread("stream/fan-out", contender, [("consumers", String(consumers))])
            {
                _ = try $0.run(operations: 5)
                return ($0.measuredMetrics, $0.counts.missed)
            }
            #expect(missed == 0)
            #expect(metrics.first { $0.metric == .latency }?.values.count == 5)
        }
    }
}
