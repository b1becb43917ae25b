@preconcurrency import CLockedTracking
import CTrackingSupport
import LockFreeObservation
import Synchronization

/// The base class of models observed with the locked registrar: the lock-free registrar's design
/// (its scopes, run protocol and kept reads are the same source, `Design/`, compiled into this
/// module) with each object's observer state behind a lock instead of atomics. It answers how much
/// of the lock-free registrar's speed is lock-freedom and how much is the design.
///
/// Declare properties with `@TrackedModel`, or with hand-written accessors, one small distinct
/// index per property of the class hierarchy:
///
///     final class Book: LockedObject {
///         var _title = ""
///         var title: String {
///             get { trackAccess(0); return _title }
///             set { withMutation(0) { _title = newValue } }
///         }
///     }
open class LockedObject {
    // Not `Sendable`, like `@Observable` classes: the registrar state below is safe to share, but
    // the subclass's properties are the app's to synchronise.

    /// The object's writes, a `WriteWord`, with the lock-free registrar's protocol
    /// (`TrackedObject._writes`): a read loads it before the value; a scope's install re-checks it
    /// after publishing its slots. Here the install, an observed write's begin and end, and a
    /// write's notification of a racing install each run under `_observers`' lock, which orders
    /// them; the unobserved write's end (`begun` + 1, then the mask) takes no lock.
    @usableFromInline let _writes = Atomic<UInt64>(0)

    /// Bit `p % 64` is set once property `p` (or another with the same bit) has had an observer:
    /// set under the lock by an install (seq_cst, before its re-check of `_writes`), never cleared.
    /// Read without the lock by `willMutate` (relaxed: it chooses the protocol) and by the end of an
    /// unobserved write (seq_cst, after its increment: the writer's half of the Dekker pair).
    @usableFromInline let _observed = Atomic<UInt64>(0)

    /// The observer slots: every field of `LockedSlots` is read and written under this lock.
    /// `Synchronization.Mutex` is a futex word on Linux (uncontended: one compare-and-swap to lock,
    /// one to unlock), the lock an app would reach for. Taken only through `_withObservers`, which
    /// shows it to ThreadSanitizer in its builds.
    let _observers = Mutex(LockedSlots())

    /// Property indices a tracked property can take: 0..<32768, as the lock-free registrar's.
    @inlinable public static var propertyLimit: Int { SlotContent.propertyLimit }

    public init() {}

    /// The property indices `@TrackedModel` has given this class and its superclasses (see
    /// `TrackedObject._trackedPropertyEnd`): 0 here.
    @inlinable open class var _trackedPropertyEnd: Int { 0 }

    deinit {
        // No other thread can reach the object now. A scope that loses its last object is closed,
        // so that its callback is released (`TrackingScope.objectWentAway`), as the lock-free
        // registrar's objects do: outside the lock, since releasing a callback runs user code,
        // which may write to this object still.
        var slots = _withObservers { slots in
            defer { slots = LockedSlots() }
            return slots
        }
        slots.free { TrackingScope.objectWentAway(SlotContent(raw: $0)) }
    }

    /// Runs `body` under `_observers`' lock, shown to ThreadSanitizer (`_lockAcquired`) on the
    /// object's address.
    @inline(__always)
    final func _withObservers<Result>(_ body: (inout LockedSlots) -> sending Result) -> sending Result {
        let lock = Unmanaged.passUnretained(self).toOpaque()
        return _observers.withLock { slots in
            _lockAcquired(lock)
            defer { _lockReleasing(lock) }
            return body(&slots)
        }
    }

    /// Slots whose scope still holds them (diagnostics and tests).
    package final var _observerCount: Int { _withObservers { $0.held } }

    /// Slots allocated (diagnostics and tests).
    package final var _observerCapacity: Int { _withObservers { $0.capacity } }

    /// The slots of the scope `record` in its incarnation `generation` (diagnostics and tests).
    package final func _slots(heldBy record: UInt32, generation: UInt32) -> Int {
        _withObservers { $0.count { $0.record == record && $0.generation == generation } }
    }

    /// Straddling slots (diagnostics and tests).
    package final var _straddlingSlots: Int { _withObservers { $0.count(where: \.isStraddling) } }
}

/// Tells ThreadSanitizer that the lock named by `lock` was just taken. It does not see the stdlib's
/// `Mutex` (a futex in the Synchronization module, which is not instrumented), and would report the
/// accesses the lock orders as races. Debug builds only, where the sanitizers run: the C function
/// reaches ThreadSanitizer when its target was compiled for it, and is empty otherwise
/// (`locked_lock_acquired`); a release build calls nothing.
@inline(__always)
func _lockAcquired(_ lock: UnsafeMutableRawPointer) {
    #if DEBUG
        locked_lock_acquired(lock)
    #endif
}

/// Tells ThreadSanitizer that the lock named by `lock` is about to be given back (`_lockAcquired`).
@inline(__always)
func _lockReleasing(_ lock: UnsafeMutableRawPointer) {
    #if DEBUG
        locked_lock_releasing(lock)
    #endif
}
