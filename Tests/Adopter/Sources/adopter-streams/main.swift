import AdopterModels
import Dispatch
import Foundation
import LockFreeObservation
import Observation
import Synchronization

// Streams consumed as an app consumes them: on the main actor of a process whose main thread runs
// it (under `swift test` the main actor's jobs run on the global executor's threads), each
// consumer calling its iterator's `next()` (not `for await`), `TrackedValues` beside Observation's
// `Observations`. Each check runs `rounds` times; every wait is bounded (a consumer still waiting
// after 5 seconds is cancelled, and the round fails on what it got). Exit status 1 when a check
// of `TrackedValues` fails:
//
// - a ready value keeps the actor: `next()` with a value ready (the first, or a change made while
//   the consumer was busy) returns without giving the main thread up, so a block already queued
//   on the main queue has not run. Deterministic; `TrackedValues` must pass every round.
// - cancelled at once: a consumer task cancelled one `Task.yield()` after it was made has its
//   first value. `TrackedValues` must pass every round.
// - a suspending writer: two consumers hold their first value; the writer writes, suspends
//   (`Task.yield()`) and writes again: two transactions, so each consumer should get 0, 1 and 2.
//   The main thread's executor does not always run jobs in the order they were enqueued (the
//   yielding writer now and then runs before a consumer resumed ahead of it), which costs either
//   stream a value in some rounds, from none to a third of them from run to run: the rounds with
//   every value are printed for both, and `TrackedValues` fails the check when a consumer ends
//   without the last value.
//
// Usage: adopter-streams [rounds]   (default 20)

/// One stream under check: a model, a way to write it, and consumers of a sequence of its value,
/// each calling the concrete iterator's `next()` as an app writes it (a generic call of
/// `AsyncIteratorProtocol.next()` would run nonisolated).
@MainActor protocol Stream {
    func write(_ value: Int)
    /// A consumer task on the main actor, with a sequence of its own: the values it gets, up to
    /// `count`; `onFirst` after the first.
    func consumer(count: Int, onFirst: @escaping @MainActor () -> Void) -> Task<[Int], Never>
    /// Whether `next()`, with a value ready (the first, then a change made while busy), returns
    /// without giving the main thread up.
    func readyValuesKeepTheMainThread() async -> Bool
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

    func readyValuesKeepTheMainThread() async -> Bool {
        var iterator = TrackedValues { [model] in model.value }.makeAsyncIterator()
        let queued = QueuedBlock()
        guard await iterator.next() != nil, !queued.ran else { return false }
        model.value += 1
        let queuedBeforeTheChange = QueuedBlock()
        return await iterator.next() != nil && !queuedBeforeTheChange.ran
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

    func readyValuesKeepTheMainThread() async -> Bool {
        var iterator = Observations { [model] in model.value }.makeAsyncIterator()
        let queued = QueuedBlock()
        guard await iterator.next() != nil, !queued.ran else { return false }
        model.value += 1
        let queuedBeforeTheChange = QueuedBlock()
        return await iterator.next() != nil && !queuedBeforeTheChange.ran
    }
}

/// A block queued on the main queue when made: `ran` says whether the main thread has run it.
final class QueuedBlock: Sendable {
    private let flag = Atomic<Bool>(false)
    var ran: Bool { flag.load(ordering: .acquiring) }
    init() { DispatchQueue.main.async { [self] in flag.store(true, ordering: .releasing) } }
}

/// Two consumers, each with its own sequence, hold their first value; the writer writes,
/// suspends and writes again. The values each consumer got.
@MainActor func suspendingWriter<S: Stream>(_ stream: S) async -> [[Int]] {
    var firstValues = 0
    let consumers = (0..<2).map { _ in stream.consumer(count: 3) { firstValues += 1 } }
    // The consumers run on this actor: each takes its first value and waits for the next in one job.
    var yields = 0
    while firstValues < consumers.count && yields < 10_000 {
        await Task.yield()
        yields += 1
    }
    stream.write(1)
    await Task.yield()
    stream.write(2)
    // A consumer that got 1 and 2 coalesced waits for a third value: the round ends here.
    try? await Task.sleep(for: .milliseconds(20))
    for consumer in consumers { consumer.cancel() }
    let watchdog = Task {
        try? await Task.sleep(for: .seconds(5))
        for consumer in consumers { consumer.cancel() }
    }
    var seen: [[Int]] = []
    for consumer in consumers { seen.append(await consumer.value) }
    watchdog.cancel()
    return seen
}

/// A consumer task cancelled one `Task.yield()` after it was made: whether it got the first value.
@MainActor func cancelledAtOnce<S: Stream>(_ stream: S) async -> Bool {
    stream.write(5)
    let consumer = stream.consumer(count: 1) {}
    await Task.yield()
    consumer.cancel()
    return await consumer.value == [5]
}

let rounds = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20
var failed = false

@MainActor func count(_ name: String, _ body: @MainActor () async -> Bool) async -> Int {
    var passes = 0
    for _ in 0..<rounds where await body() { passes += 1 }
    print("\(name): \(passes) of \(rounds)")
    return passes
}

for (name, mustPass) in [("a ready value keeps the actor", true), ("cancelled at once", true)] {
    let tracked = await count("TrackedValues, \(name)") {
        name == "cancelled at once"
            ? await cancelledAtOnce(Tracked()) : await Tracked().readyValuesKeepTheMainThread()
    }
    _ = await count("Observations, \(name)") {
        name == "cancelled at once"
            ? await cancelledAtOnce(Observed()) : await Observed().readyValuesKeepTheMainThread()
    }
    if mustPass && tracked != rounds { failed = true }
}

/// Rounds in which both consumers got every value, and whether every consumer ended with the last.
@MainActor func writerRounds<S: Stream>(_ name: String, _ make: @MainActor () -> S) async -> (Int, Bool) {
    var full = 0
    var lastAlways = true
    for _ in 0..<rounds {
        let seen = await suspendingWriter(make())
        if seen.allSatisfy({ $0 == [0, 1, 2] }) { full += 1 }
        if !seen.allSatisfy({ $0.last == 2 }) {
            lastAlways = false
            print("  \(name): a consumer ended with \(seen)")
        }
    }
    print("\(name), a suspending writer: every value in \(full) of \(rounds)")
    return (full, lastAlways)
}
let (trackedFull, trackedLast) = await writerRounds("TrackedValues") { Tracked() }
let (observedFull, _) = await writerRounds("Observations") { Observed() }
if !trackedLast { failed = true }
print("a suspending writer, rounds with every value: TrackedValues \(trackedFull), Observations \(observedFull)")
exit(failed ? 1 : 0)
