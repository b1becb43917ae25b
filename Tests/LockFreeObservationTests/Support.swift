import CTrackingSupport
import Foundation
import Glibc
import Synchronization
import Testing

@testable import LockFreeObservation

// Test doubles and helpers shared by the registrar's tests.

/// Every suite of this target, run one test at a time: some tests watch the process-wide scope
/// record pool or hold hundreds of scopes, so they must not overlap each other. (Other targets'
/// tests may still run alongside; the pool checks allow for that, see `PoolTests`.)
@Suite(.serialized) struct RegistrarTests {}

/// Whether this process runs the tests that need no observed write in flight anywhere in the
/// process (`TRACKING_TESTS_ALONE=1`). Those tests look at the process-wide count of writes in
/// flight, which every other test of the package writes when it runs beside them, so they run
/// only in a process of their own, one at a time: `scripts/test.sh` runs them with
/// `TRACKING_TESTS_ALONE=1 swift test --filter 'CheckedArmingTests|aHeldRunLetsGoOfItsCursor'`.
/// Elsewhere they are skipped.
let runsAlone = ProcessInfo.processInfo.environment["TRACKING_TESTS_ALONE"] == "1"

/// An atomic counter that an `@Sendable` `onChange` can bump.
final class Counter: Sendable {
    let raw = Atomic<Int>(0)
    init(_ value: Int = 0) { raw.store(value, ordering: .relaxed) }
    func bump() { raw.add(1, ordering: .sequentiallyConsistent) }
    func set(_ value: Int) { raw.store(value, ordering: .sequentiallyConsistent) }
    var value: Int { raw.load(ordering: .sequentiallyConsistent) }
}

/// Where threads that race in rounds meet: each thread calls `wait(n)` for the n-th time it
/// arrives, and returns once every thread has arrived n times. (Rounds of racing writes and runs,
/// each checked at its end by one thread while the others wait: a change lost in a round shows at
/// its check, before later writes could hide it by notifying anyway.)
final class RoundBarrier: Sendable {
    let threads: Int
    private let arrived = Counter()
    init(threads: Int) { self.threads = threads }
    func wait(_ generation: Int) {
        arrived.bump()
        while arrived.value < generation * threads { sched_yield() }
    }
}

/// A reference that crosses to another thread on the test's own responsibility (the test
/// synchronises the accesses itself, by joining the thread or by only touching atomics).
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A `ChangeObserver` counting its notifications, optionally running a hook in the callback.
final class CountingObserver: ChangeObserver, @unchecked Sendable {
    // `@unchecked Sendable`: `hook` is set before the observer is installed and never changed.
    let counter = Counter()
    var hook: (() -> Void)?
    init(hook: (() -> Void)? = nil) { self.hook = hook }
    func observedValueWillChange() {
        counter.bump()
        hook?()
    }
    var count: Int { counter.value }
}

/// Runs `body` on a new POSIX thread and waits for it to finish (a happens-before edge both ways).
func onNewThread(_ body: @escaping @Sendable () -> Void) {
    onThreads(1) { _ in body() }
}

/// Runs `body(i)` for i in 0..<count on `count` new threads started together, and joins them all.
/// Thread `i` installs in slot lane `i % 2` (`TrackedObject._laneSlots`): every test on two or
/// more threads has scopes in both chains of the objects they share.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let readyRef = Unchecked(UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: 1))
    readyRef.value.initialize(to: Atomic(0))
    defer { readyRef.value.deinitialize(count: 1); readyRef.value.deallocate() }
    var threads: [pthread_t] = []
    for i in 0..<count {
        let box = Unmanaged.passRetained(Box {
            // A start barrier, so that the threads really run at once.
            readyRef.value.pointee.add(1, ordering: .sequentiallyConsistent)
            while readyRef.value.pointee.load(ordering: .sequentiallyConsistent) < count { sched_yield() }
            tracking_thread_state()!.pointee.lane = UInt32(i % 2) + 1
            body(i)
        }).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { argument in
            Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
            return nil
        }, box)
        precondition(created == 0, "pthread_create failed")
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}

/// SplitMix64: a tiny deterministic PRNG (public domain), so stress runs are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// The pool's high-water mark: the next never-used record index.
var poolSize: UInt32 { ScopeTable.shared.nextIndex.load(ordering: .acquiring) }

/// A small model with value and collection properties, for the semantics and stress tests.
///
/// Declared by hand, as `@TrackedModel` would (Observation's setter, `_modify`), over atomic
/// storage for `count` and `other`: the stress tests read them on one thread while another writes
/// them, a data race on plain storage (ThreadSanitizer reports it). The registrar's promises are
/// about the notifications; the values are the tests' own. (`items` and `name` are never shared.)
final class Counters: TrackedObject, @unchecked Sendable {
    // `@unchecked Sendable`: the shared properties are atomic; the others stay on one thread.
    private let _count = Atomic<Int>(0)
    private let _other = Atomic<Int>(0)
    private var _items: [Int] = [1, 2, 3]
    private var _name = "a"

    var count: Int {
        get { read(0, _count) }
        set { write(0, _count, newValue) }
        _modify {
            trackAccess(0)
            let mutation = willMutate(0)
            var value = _count.load(ordering: .relaxed)
            defer {
                _count.store(value, ordering: .relaxed)
                didMutate(mutation)
            }
            yield &value
        }
    }

    var other: Int {
        get { read(1, _other) }
        set { write(1, _other, newValue) }
        _modify {
            trackAccess(1)
            let mutation = willMutate(1)
            var value = _other.load(ordering: .relaxed)
            defer {
                _other.store(value, ordering: .relaxed)
                didMutate(mutation)
            }
            yield &value
        }
    }

    var items: [Int] {
        get {
            trackAccess(2)
            return _items
        }
        set {
            guard _items != newValue else { return _items = newValue }
            let mutation = willMutate(2)
            _items = newValue
            didMutate(mutation)
        }
        _modify {
            trackAccess(2)
            let mutation = willMutate(2)
            defer { didMutate(mutation) }
            yield &_items
        }
    }

    var name: String {
        get {
            trackAccess(3)
            return _name
        }
        set {
            guard _name != newValue else { return _name = newValue }
            let mutation = willMutate(3)
            _name = newValue
            didMutate(mutation)
        }
        _modify {
            trackAccess(3)
            let mutation = willMutate(3)
            defer { didMutate(mutation) }
            yield &_name
        }
    }

    /// Computed: tracked through `count` and `other`.
    var total: Int { count + other }

    private func read(_ property: Int, _ storage: borrowing Atomic<Int>) -> Int {
        trackAccess(property)
        return storage.load(ordering: .relaxed)
    }

    private func write(_ property: Int, _ storage: borrowing Atomic<Int>, _ value: Int) {
        guard storage.load(ordering: .relaxed) != value else { return }
        let mutation = willMutate(property)
        storage.store(value, ordering: .relaxed)
        didMutate(mutation)
    }
}

/// Whether the record of `token` went back to the pool: free, or already reused by a later scope.
/// Unlike the process-wide counts, this is not disturbed by other tests running meanwhile.
func isReturned(_ token: TrackingToken) -> Bool {
    guard token.record != 0 else { return true }
    let state = ScopeState(raw: ScopeTable.record(token.record).pointee.state.load(ordering: .acquiring))
    return state.generation != token.generation || state.isFree
}

/// Pool growth that only a leak explains: other test targets in the process may take up to a few
/// thousand records meanwhile (a mounted view graph holds one per view), a leak takes one per cycle.
let leakThreshold: UInt32 = 4096

extension TrackedObject {
    /// How many of this object's slots hold the scope of record `record` in its incarnation
    /// `generation` (a reusable scope's or a token's).
    func slotsHeld(record: UInt32, generation: UInt32) -> Int {
        var count = 0
        _forEachSlotBlock { block in
            for i in 0..<block.capacity {
                let content = SlotContent(raw: block.slot(i).pointee.load(ordering: .acquiring))
                if content.raw != 0 && content.record == record && content.generation == generation { count += 1 }
            }
        }
        return count
    }
}

/// Whether this test process runs under AddressSanitizer (`scripts/test.sh`'s fourth run): its
/// runtime is loaded. It quarantines freed memory, so a test that needs an address handed out
/// again cannot run there.
let addressSanitizerIsLoaded = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
