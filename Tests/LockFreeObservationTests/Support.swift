import CTrackingSupport
import Foundation
import Glibc
import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockFreeObservation

// The lock-free registrar's own test doubles and helpers. The fixtures every registrar's tests
// share (`Counter`, `CountingObserver`, `onThreads`, `Unchecked`, `runsAlone`, ...) are in
// RegistrarTestSupport; the promises both registrars make are tested once, against each, in
// RegistrarContractTests.

/// Every suite of this target, run one test at a time: some tests watch the process-wide scope
/// record pool or hold hundreds of scopes, so they must not overlap each other. (Other targets'
/// tests may still run alongside; the pool checks allow for that, see `PoolTests`.)
@Suite(.serialized) struct RegistrarTests {}

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
            guard _items != newValue else {
                _items = newValue
                return
            }
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
            guard _name != newValue else {
                _name = newValue
                return
            }
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
