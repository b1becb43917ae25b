import Foundation
import Harness
import Synchronization

/// The `stream` family: a contender's observation consumed as an `AsyncSequence`
/// (`StreamContender`), timed from the store to the consumer holding the value, with the
/// `floor` contender's bare `AsyncStream` hand-off as the clock-and-wake-up floor.
///
/// How each contender writes from a thread (`apple` hops to `StreamActor`) is in `StreamContender`.
///
/// - `stream/latency`: the benchmark's thread writes at a fixed rate (one write every
///   `StreamLatency.periodNanoseconds`) to one consumer task; one operation is one write. Records
///   `latency` (ns from just before the store to the consumer holding that value or a later one,
///   one sample per write: p50, p99, max), `latency-p99.9`, and `delivered-per-write` (values the
///   consumer received per write: below 1 when writes coalesce).
/// - `stream/fan-out/consumers=N`: one write observed by N consumer tasks, each with its own
///   stream; one operation is one write, timed until all N hold it (`latency` is the same per
///   write). Records `bytes-per-consumer` (jemalloc live bytes of the N consumers, their streams
///   and tasks, after each holds its first value, divided by N; after a warm-up consumer, so
///   that the process's one-time allocations are left out); `mallocs` per operation divided
///   by N is allocations per delivered value.
/// - `stream/burst/writes=K`: K writes made in one job of `StreamActor`, which the consumer and
///   its stream run on (one transaction); one operation is one burst. `delivered` (a value, gated exactly)
///   is the values the consumer received per burst: 1 under Apple's contract; time per write is
///   `time` / K.
/// - `stream/main-actor`: `stream/latency` with the SwiftUI shape: a worker thread writes at the
///   same rate, one consumer task runs on the main actor (its stream made there), and the
///   benchmark's thread, the main thread of `bench`'s measuring child, runs the main run loop while
///   it waits, as an app's main thread does. `latency` is from the store to the main actor holding
///   the value. `apple`'s writer hops to the main actor for each write (its contract, above).
///
/// A missed final value (writes stop, the consumer never holds the last one within
/// `StreamLatency.finalValueDeadline`) is a failure of the run, never a number; `missed` counts
/// it (gated, always 0). Latency, delivered-per-write and time depend on thread timing: recorded,
/// never gated. Each benchmark declares its malloc tolerance where it is declared (`onThreads`);
/// the time ratio's tolerances for `fan-out` and `burst` are in `results/thresholds`.
enum Streams {
    static func benchmarks() -> [Benchmark] {
        StreamContenders.visitAll(Family()).flatMap { $0 }
    }

    struct Family: StreamContenderVisitor {
        func visit<C: StreamContender>(_: C.Type) -> [Benchmark] {
            [StreamLatency.benchmark(C.self, .writerThread)] + StreamFanOut.benchmarks(C.self)
                + StreamBurst.benchmarks(C.self) + [StreamLatency.benchmark(C.self, .mainActorConsumer)]
        }
    }

    /// A factor on every deadline: tests raise it, since their consumers share the cooperative pool
    /// with every other test running at the same time (a blocked pool is no missed value).
    static let patience = Atomic<Int>(1)

    /// Waits until `done()` or `seconds` (times `patience`) have passed; returns `done()`. Spins,
    /// yielding the core; or, `servicingTheMainActor` on the main thread, runs the main run loop,
    /// which runs the main actor's jobs (elsewhere, as in the tests, the main actor has a thread
    /// of its own).
    static func wait(seconds: Double, servicingTheMainActor: Bool = false, until done: () -> Bool) -> Bool {
        let scaled = seconds * Double(patience.load(ordering: .relaxed))
        let deadline = monotonicNanoseconds() + UInt64(scaled * 1e9)
        let runLoop = servicingTheMainActor && Thread.isMainThread
        while !done() {
            if monotonicNanoseconds() > deadline { return done() }
            if runLoop {
                _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.001))
            } else {
                sched_yield()
            }
        }
        return true
    }

    /// `values` sorted, as `latency-p99.9` and the other percentiles want them.
    static func percentile(_ fraction: Double, of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, Int((fraction * Double(sorted.count)).rounded(.up)) - 1)
        return sorted[max(index, 0)]
    }
}

/// What a consumer task received: value and time, in a ring the consumer writes and the
/// benchmark's thread reads up to `count` (release/acquire).
final class Receipts: @unchecked Sendable {
    // `@unchecked Sendable`: entries below `count` are written once by the consumer before its
    // releasing store of `count`, and read by the benchmark's thread after an acquiring load.
    static let capacity = 1 << 16
    let values = UnsafeMutablePointer<Double>.allocate(capacity: capacity)
    let times = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
    let count = Atomic<Int>(0)
    /// The last value received.
    let last = Atomic<Int>(-1)

    func record(_ value: Double) {
        let time = monotonicNanoseconds()
        let i = count.load(ordering: .relaxed)
        values[i & (Self.capacity - 1)] = value
        times[i & (Self.capacity - 1)] = time
        count.store(i + 1, ordering: .releasing)
        last.store(Int(value), ordering: .releasing)
    }

    deinit {
        values.deallocate()
        times.deallocate()
    }
}
