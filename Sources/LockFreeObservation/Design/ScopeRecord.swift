import Synchronization

/// One tracking scope's record. Records are pooled and never freed (see `ScopeTable`), so a stale
/// index always points at valid memory; the generation in `state` tells incarnations apart.
@usableFromInline
struct ScopeRecord: ~Copyable {
    /// See `ScopeState` for the layout and the legal transitions.
    @usableFromInline let state: Atomic<UInt64>
    /// The next free record while this one is on the free list (its index, 0 for none).
    @usableFromInline let nextFree: Atomic<UInt32>
    /// Slots this incarnation still holds in living objects: bits 32..<64 the generation it was
    /// set for, bits 0..<32 the count. Set when the scope is armed; an object's `deinit` takes one
    /// off per live slot it held (compare-and-swap on the same generation, so a recycled record is
    /// never touched), and the scope is cancelled when it reaches 0: a scope whose objects are all
    /// gone can never fire, and must not keep its callback alive.
    @usableFromInline let watchedSlots: Atomic<UInt64>

    // The payload is written by the arming thread before its release store of `armed`, read only by
    // a thread that won a transition out of `armed` (acquire), and cleared by the recycler, which
    // saw in-flight reach 0 (acquire-release) before pushing the record back (release).
    @usableFromInline var onChange: (@Sendable () -> Void)?
    /// Holds the observer for the record's incarnation (released when it is recycled).
    @usableFromInline var observer: (any ChangeObserver)?
    /// The observer again, unretained, and its type: the callback calls it through them
    /// (`callBack()`), with no retain and release around the call.
    var observerObject: UnsafeMutableRawPointer?
    var observerType: (any ChangeObserver.Type)?
    /// One of `ScopeKind`'s raw values. Atomic (relaxed), unlike the rest of the payload: a mutation
    /// reads it in `TrackingScope.claimCallback` *before* its compare-and-swap decides whether it
    /// wins, from a slot that may be stale while another thread re-arms the recycled record. The
    /// acquire load of `armed(g)` that precedes the read orders it after the arming write; a value
    /// from a later incarnation only comes with a generation change, which makes the
    /// compare-and-swap fail. (A plain field would be a data race, which ThreadSanitizer reports
    /// under the stress test.)
    @usableFromInline let kind: Atomic<UInt8>

    /// The `tracking_thread` address of the thread running a reusable scope's body, or 0: a write
    /// by that thread (the body's own, or a callback's inside it) does not notify the scope, as
    /// writes inside `withTracking`'s `apply` do not. Only the running thread stores it, and a
    /// thread compares it with its own address, so relaxed accesses suffice: a thread always sees
    /// its own last store, and another thread's value never equals its address.
    let runner: Atomic<UInt>

    init() {
        state = Atomic(0)
        nextFree = Atomic(0)
        watchedSlots = Atomic(0)
        onChange = nil
        observer = nil
        observerObject = nil
        observerType = nil
        kind = Atomic(0)
        runner = Atomic(0)
    }
}

// The payload is reached field by field through the record's pointer: a method on the whole
// record (`mutating`, or borrowing it) would be an access to all of it, which ThreadSanitizer
// reports against the atomic accesses other threads make to its state meanwhile.
extension UnsafeMutablePointer where Pointee == ScopeRecord {
    /// Sets the payload a new incarnation calls.
    func setCallback(_ callback: TrackingScope.Callback) {
        switch callback {
        case .closure(let body):
            pointee.onChange = body
        case .observer(let observer):
            pointee.observer = observer
            pointee.observerObject = Unmanaged<AnyObject>.passUnretained(observer).toOpaque()
            pointee.observerType = type(of: observer)
        }
    }

    /// Releases the payload (the recycler).
    func clearCallback() {
        pointee.onChange = nil
        pointee.observerObject = nil
        pointee.observerType = nil
        pointee.observer = nil
    }
}

extension ScopeRecord {
    /// Calls the observer or the closure, in place. The observer is called unretained: the record
    /// holds it until it is recycled, and recycling waits for the callbacks in flight, this one
    /// included (`ScopeState.oneInFlight`). (Called through `observer`, the optimiser would retain
    /// and release it around the call: it cannot know that the call leaves the record alone.) A
    /// method on the record, which it borrows: through the pointer the optimiser would copy the
    /// closure out (a retain and a release) to call it. A borrow is a read: ThreadSanitizer sees no conflict
    /// with the atomic accesses to the state (also reads, formally).
    func callBack() {
        if let type = observerType {
            type._observedValueWillChange(at: observerObject.unsafelyUnwrapped)
        } else {
            onChange?()
        }
    }
}

extension ChangeObserver {
    /// Calls `observedValueWillChange()` on the observer at `object`, which the caller keeps alive.
    static func _observedValueWillChange(at object: UnsafeMutableRawPointer) {
        Unmanaged<Self>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.observedValueWillChange() }
    }
}

/// What a scope does when a property it watches is about to change (`ScopeRecord.kind`).
@usableFromInline
enum ScopeKind: UInt8 {
    /// `withTracking`: its callback runs once, and the scope closes.
    case oneShot = 0
    /// `observeChanges`: its callback runs at every change until it is cancelled.
    case continuous = 1
    /// `ReusableScope`: its callback runs once per run, and the scope waits, keeping its slots,
    /// for its next run.
    case reusable = 2
}
