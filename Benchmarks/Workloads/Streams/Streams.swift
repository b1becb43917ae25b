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
///   and tasks, after each holds its first value, divided by N); `mallocs` per operation divided
///   by N is allocations per delivered value.
/// - `stream/burst/writes=K`: K writes made in one job of `StreamActor`, which the consumer and
///   its stream run on (one transaction); one operation is one burst. `delivered` (a value, gated exactly)
///   is the values the consumer received per burst: 1 under Apple's contract; time per write is
///   `time` / K.
/// - `stream/main-actor` is not here: `bench` runs a benchmark's body on the main thread of its
///   child process, which it blocks while timing, so the main actor is never serviced there
///   (a `@MainActor` consumer would never run). It needs a timing pass that hands the main thread
///   to the main actor's executor between samples.
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
            // `locked` runs only `burst`, where writes and evaluations share an actor. With a writer
            // thread, a write can fire a one-shot scope of the locked registrar while the thread
            // that tracked it is still ending it: ThreadSanitizer reports `_ScopeCore.dropAll`
            // (the writer closing the fired scope) racing `countWatchedBits` (`finish`, the
            // tracking thread), `latency` saw 1.66 values per write, and tearing down 100 fan-out
            // consumers once tripped "a locked object went away with observers". A bug of the
            // ablation, to fix before its threaded stream numbers mean anything.
            // (`threadedFamilies`.)
            let threaded =
                C.self == LockedStream.self ? [] : [StreamLatency.benchmark(C.self)] + StreamFanOut.benchmarks(C.self)
            return threaded + StreamBurst.benchmarks(C.self)
        }
    }

    /// The families whose writer is a thread of its own, which `locked` does not run (above).
    static let threadedFamilies = ["stream/latency", "stream/fan-out"]

    /// A factor on every deadline: tests raise it, since their consumers share the cooperative pool
    /// with every other test running at the same time (a blocked pool is no missed value).
    static let patience = Atomic<Int>(1)

    /// Waits (spinning, yielding the core) until `done()` or `seconds` (times `patience`) have
    /// passed; returns `done()`.
    static func wait(seconds: Double, until done: () -> Bool) -> Bool {
        let scaled = seconds * Double(patience.load(ordering: .relaxed))
        let deadline = monotonicNanoseconds() + UInt64(scaled * 1e9)
        while !done() {
            if monotonicNanoseconds() > deadline { return done() }
            sched_yield()
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
