import AdopterModels
import Foundation
import LockFreeObservation
import Observation
import Synchronization

// Streams consumed as an app consumes them: on the main actor of a process whose main thread runs
// it (under `swift test` the main actor's jobs run on the global executor's threads, which hides
// where a consumer resumes), each consumer calling its iterator's `next()` (not `for await`).
// Each check runs `rounds` times against `TrackedValues` and against Observation's
// `Observations`, the reference. Every wait is bounded: a consumer still waiting after 5 seconds
// is cancelled, and the round fails on what it got. The window is widened on purpose: every
// thread of the global executor spins across the writes, so a consumer resumed there instead of
// on its own actor runs late. Exit status 1 when a round of `TrackedValues` fails.
// `Observations`' rounds are printed beside it: the main thread's executor does not always run
// jobs in the order they were enqueued (a task resumed, then a task that yields: the second
// sometimes runs first), which can cost it a value now and then.
//
// Usage: adopter-streams [rounds]   (default 20)

/// One stream under check: a model, a way to write it, and consumers of a sequence of its value,
/// each a task on the main actor that calls its iterator's `next()` as an app writes it (on the
/// concrete iterator: a generic call of `AsyncIteratorProtocol.next()` would run nonisolated).
@MainActor protocol Stream {
    func write(_ value: Int)
    /// A consumer of a sequence of its own: the values it gets, up to `count`; `onFirst` after
    /// the first.
    func consumer(count: Int, onFirst: @escaping @MainActor () -> Void) -> Task<[Int], Never>
}

@MainActor struct Tracked: Stream {
    let model = SharedCounter()
    func write(_ value: Int) { model.value = value }
    func consumer(count: Int, onFirst: @escaping @MainActor () -> Void) -> Task<[Int], Never> {
        let values = TrackedValues { [model] in model.value }
        return Task { @MainActor in
            var iterator = values.makeAsyncIterator()
            var seen: [Int] = []
            while seen.count < count, let value = await iterator.next() {
                seen.append(value)
                if seen.count == 1 { onFirst() }
            }
            return seen
        }
    }
}

@MainActor struct Observed: Stream {
    let model = ObservedCounter()
    func write(_ value: Int) { model.value = value }
    func consumer(count: Int, onFirst: @escaping @MainActor () -> Void) -> Task<[Int], Never> {
        let values = Observations { [model] in model.value }
        return Task { @MainActor in
            var iterator = values.makeAsyncIterator()
            var seen: [Int] = []
            while seen.count < count, let value = await iterator.next() {
                seen.append(value)
                if seen.count == 1 { onFirst() }
            }
            return seen
        }
    }
}

/// Two consumers, each with its own sequence, hold their first value; the writer writes, suspends
/// (`Task.yield()`), and writes again: two transactions, so each consumer gets 0, 1 and 2.
@MainActor func aSuspendingWriterMakesTwoValues<S: Stream>(_ stream: S) async -> Bool {
    var firstValues = 0
    let consumers = (0..<2).map { _ in stream.consumer(count: 3) { firstValues += 1 } }
    // The consumers run on this actor: each takes its first value and waits for the next in one job.
    var yields = 0
    while firstValues < consumers.count && yields < 10_000 {
        await Task.yield()
        yields += 1
    }
    let pool = BusyPool()
    await pool.occupy()
    stream.write(1)
    await Task.yield()
    stream.write(2)
    pool.release()
    let watchdog = Task {
        try? await Task.sleep(for: .seconds(5))
        for consumer in consumers { consumer.cancel() }
    }
    var passed = true
    for consumer in consumers {
        let seen = await consumer.value
        if seen != [0, 1, 2] {
            print("  a consumer got \(seen), not [0, 1, 2]")
            passed = false
        }
    }
    watchdog.cancel()
    return passed
}

/// A consumer task cancelled one `Task.yield()` after it was made has its first value.
@MainActor func aConsumerCancelledAtOnceGetsTheFirstValue<S: Stream>(_ stream: S) async -> Bool {
    stream.write(5)
    let pool = BusyPool()
    await pool.occupy()
    let consumer = stream.consumer(count: 1) {}
    await Task.yield()
    consumer.cancel()
    pool.release()
    let seen = await consumer.value
    if seen != [5] { print("  the consumer got \(seen), not [5]") }
    return seen == [5]
}

let rounds = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20

/// Runs `body` `rounds` times; the number of rounds that passed.
@MainActor func rounds(_ name: String, _ body: @MainActor () async -> Bool) async -> Int {
    var passes = 0
    for _ in 0..<rounds where await body() { passes += 1 }
    print("\(name): \(passes) of \(rounds) passed")
    return passes
}
var failed = false
if await rounds("TrackedValues, a suspending writer", { await aSuspendingWriterMakesTwoValues(Tracked()) }) != rounds {
    failed = true
}
_ = await rounds("Observations (reference), a suspending writer") { await aSuspendingWriterMakesTwoValues(Observed()) }
if await rounds("TrackedValues, cancelled at once", { await aConsumerCancelledAtOnceGetsTheFirstValue(Tracked()) })
    != rounds
{
    failed = true
}
_ = await rounds("Observations (reference), cancelled at once") {
    await aConsumerCancelledAtOnceGetsTheFirstValue(Observed())
}
exit(failed ? 1 : 0)

/// Keeps every thread of the global executor's pool spinning until released (or for 50 ms at
/// most): a consumer resumed there, not on the main actor, runs late.
final class BusyPool: Sendable {
    let width = ProcessInfo.processInfo.activeProcessorCount
    let started = Atomic<Int>(0)
    let released = Atomic<Bool>(false)

    func occupy() async {
        for _ in 0..<width {
            Task.detached { [self] in
                started.add(1, ordering: .relaxed)
                let deadline = ContinuousClock.now + .milliseconds(50)
                while !released.load(ordering: .relaxed) && ContinuousClock.now < deadline {}
            }
        }
        let deadline = ContinuousClock.now + .seconds(2)
        while started.load(ordering: .relaxed) < width && ContinuousClock.now < deadline { await Task.yield() }
    }

    func release() { released.store(true, ordering: .relaxed) }
}
