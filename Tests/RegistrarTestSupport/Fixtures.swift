import CTrackingSupport
import Foundation
import Glibc
import LockFreeObservation
import Synchronization

// The fixtures every registrar's tests share, named once: counters, observers, threads, barriers,
// a deterministic generator. Registrar-agnostic (public API only), so that the lock-free
// registrar's tests, the locked ablation's and the contract both promise use the same ones.

/// Whether this process runs the tests that need no observed write in flight anywhere in the
/// process (`TRACKING_TESTS_ALONE=1`). Those tests look at the process-wide count of writes in
/// flight, which every other test of the package writes when it runs beside them, so they run
/// only in a process of their own, one at a time: `scripts/test.sh` runs them with
/// `TRACKING_TESTS_ALONE=1 swift test --filter 'CheckedArmingTests|aHeldRunLetsGoOfItsCursor'`.
/// Elsewhere they are skipped.
public let runsAlone = ProcessInfo.processInfo.environment["TRACKING_TESTS_ALONE"] == "1"

/// An atomic counter that an `@Sendable` `onChange` can bump.
public final class Counter: Sendable {
    public let raw = Atomic<Int>(0)
    public init(_ value: Int = 0) { raw.store(value, ordering: .relaxed) }
    public func bump() { raw.add(1, ordering: .sequentiallyConsistent) }
    public func set(_ value: Int) { raw.store(value, ordering: .sequentiallyConsistent) }
    public var value: Int { raw.load(ordering: .sequentiallyConsistent) }
}

/// A `ChangeObserver` counting its notifications, optionally running a hook in the callback.
public final class CountingObserver: ChangeObserver, @unchecked Sendable {
    // `@unchecked Sendable`: `hook` is set before the observer is installed and never changed.
    public let counter = Counter()
    public var hook: (() -> Void)?
    public init(hook: (() -> Void)? = nil) { self.hook = hook }
    public func observedValueWillChange() {
        counter.bump()
        hook?()
    }
    public var count: Int { counter.value }
}

/// Where threads that race in rounds meet: each thread calls `wait(n)` for the n-th time it
/// arrives, and returns once every thread has arrived n times. (Rounds of racing writes and runs,
/// each checked at its end by one thread while the others wait: a change lost in a round shows at
/// its check, before later writes could hide it by notifying anyway.)
public final class RoundBarrier: Sendable {
    public let threads: Int
    private let arrived = Counter()
    public init(threads: Int) { self.threads = threads }
    public func wait(_ generation: Int) {
        arrived.bump()
        while arrived.value < generation * threads { sched_yield() }
    }
}

/// A reference that crosses to another thread on the test's own responsibility (the test
/// synchronises the accesses itself, by joining the thread or by only touching atomics).
public struct Unchecked<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}

/// Runs `body` on a new POSIX thread and waits for it to finish (a happens-before edge both ways).
public func onNewThread(_ body: @escaping @Sendable () -> Void) {
    onThreads(1) { _ in body() }
}

/// Runs `body(i)` for i in 0..<count on `count` new threads started together, and joins them all.
/// Thread `i` installs in the lock-free registrar's slot lane `i % 2` (`TrackedObject._laneSlots`):
/// every test on two or more threads has scopes in both chains of the objects they share. (The
/// locked registrar has no lanes; the setting is left unread there.)
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let readyRef = Unchecked(UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: 1))
    readyRef.value.initialize(to: Atomic(0))
    defer {
        readyRef.value.deinitialize(count: 1)
        readyRef.value.deallocate()
    }
    var threads: [pthread_t] = []
    for i in 0..<count {
        let box = Unmanaged.passRetained(
            Box {
                // A start barrier, so that the threads really run at once.
                readyRef.value.pointee.add(1, ordering: .sequentiallyConsistent)
                while readyRef.value.pointee.load(ordering: .sequentiallyConsistent) < count { sched_yield() }
                tracking_thread_state()!.pointee.lane = UInt32(i % 2) + 1
                body(i)
            }
        ).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { argument in
                Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
                return nil
            }, box)
        precondition(created == 0, "pthread_create failed")
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}

/// SplitMix64: a tiny deterministic PRNG (public domain), so stress runs are reproducible.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// A scope that its own callback can reach (the scope is made after the closure).
public final class ScopeBox<Scope>: @unchecked Sendable {
    // `@unchecked Sendable`: set before any callback can run; callbacks run on the test's thread.
    public var scope: Scope?
    public var render: () -> Void = {}
    public init() {}
}
