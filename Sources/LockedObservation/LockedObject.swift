@preconcurrency import CLockedTracking
import CTrackingSupport
import Synchronization

/// The base class of models observed with the locked registrar: the lock-free registrar's design
/// (state inline in the object, a mask of observed properties, observer slots allocated on first
/// observation and reused across runs of a `LockedScope`) with the object's observer state behind
/// a lock instead of atomics. It answers how much of the lock-free registrar's speed is
/// lock-freedom and how much is the design.
///
/// Declare properties with hand-written accessors, one small distinct index per property of the
/// class hierarchy:
///
///     final class Book: LockedObject {
///         var _title = ""
///         var title: String {
///             get { trackAccess(0); return _title }
///             set { withMutation(0) { _title = newValue } }
///         }
///     }
///
/// A model's own `Equatable`, `Hashable` and `Codable` conformances are its own, as the lock-free
/// registrar's.
open class LockedObject {
    // Not `Sendable`, like `@Observable` classes: the registrar state below is safe to share, but
    // the subclass's properties are the app's to synchronise.

    /// Bit `p % 64` is set once property `p` (or another with the same bit) has had an observer.
    /// **Written only under `_observers`' lock** (by a scope installing its slot, a seq_cst OR) and
    /// never cleared while the object lives. Read without the lock only by `willMutate` (relaxed:
    /// it only chooses the protocol) and by `didMutate` of an unobserved write (seq_cst: the
    /// writer's half of the Dekker pair below), the same fast path as the lock-free registrar's.
    @usableFromInline let _observed = Atomic<UInt64>(0)

    /// The object's writes, a `VersionWord`:
    ///
    ///     bits 24..<64  begun      writes counted (wrapping; compared for equality only)
    ///     bits  0..<24  in flight  writes of observed properties begun and not ended
    ///
    /// **Changed under `_observers`' lock**, except by the end of an unobserved write (the fast
    /// path: `begun` + 1, one atomic add, no lock). Read without the lock by a tracked read (the
    /// version a dependency records, acquire) and under it by the end of a run (the re-check).
    ///
    /// Lost-change argument. A scope records the word *before* reading a value; at the end of its
    /// run it arms, then, for each object, under the lock: installs or updates its slot, publishes
    /// the mask bits (seq_cst), and loads the word (seq_cst). Any difference from the recorded word
    /// (other than this thread's own writes in the body) fires the scope at once.
    ///
    /// - **Observed write** (the bit was set at `willMutate`): under the lock, `begun` + 1 and
    ///   `in flight` + 1, then the slots are scanned and armed scopes watching the property are
    ///   claimed; their callbacks run after the unlock, before the store (willSet). The end, under
    ///   the lock again: `in flight` - 1 (release: a reader that loads the word later sees the
    ///   store). A scope's re-check is ordered with both by the lock: before the begin, the writer
    ///   finds the slot armed (the scope armed before taking the lock); after it, the scope sees
    ///   `begun` moved, unless it recorded the word after the begin: then it may hold the old value
    ///   with the store still to come. If the word still shows that write in flight, the scope
    ///   marks its slot *straddling*, and the write's end (under the lock, after the store) claims
    ///   the straddling slots that watch its property. Once nothing is in flight, no straddling
    ///   slot is owed anything and the marks are cleared.
    /// - **Unobserved write** (the fast path): store, then `begun` + 1 (seq_cst), then the mask
    ///   loaded (seq_cst); if the bit is set now, the lock is taken and the scopes found are
    ///   notified, after the store. Dekker's pattern in the total order of seq_cst operations:
    ///   either the scope's re-check load comes after the increment (it fires itself) or the
    ///   writer's mask load comes after the scope's mask OR (or after the OR the scope's seq_cst
    ///   load saw); the writer then takes the lock after the scope's critical section (had it come
    ///   before, the increment would happen before the re-check, which would see it), so it finds
    ///   the slot, and the scope armed.
    ///
    /// - **A kept read** (an outermost `LockedScope` run, `_ScopeCore.begin()`): the scope is armed
    ///   (seq_cst) before its body reads, with its slots installed since an earlier run, and the
    ///   read only tests this word for a write in flight (acquire). A writer counts its begin
    ///   (seq_cst) before it claims the scope (seq_cst compare-and-swap on its phase): either the
    ///   claim sees the scope armed and tells it, or the read's test comes after the begin and sees
    ///   the write in flight (the read is then recorded with its version, as above), or the write
    ///   had ended (release) and the read sees its store.
    ///
    /// The price is a spurious report when another property of the same object was written around
    /// the read. `begun` wraps after 2^40 writes.
    @usableFromInline let _version = Atomic<UInt64>(0)

    /// 1 + the index of this object's dependency in the running scope's list (a hint, verified
    /// before use), so a repeated read in a run finds its entry without a search. Written only when
    /// it changes, so a run whose dependencies are kept in place writes nothing here.
    @usableFromInline let _entryHint = Atomic<Int>(0)

    /// The observer slots: every field of `_ObserverSlots` is read and written under this lock.
    /// `Synchronization.Mutex` is a futex word on Linux (uncontended: one compare-and-swap to lock,
    /// one to unlock), the lock an app would reach for; a hand-made word lock would save nothing on
    /// the uncontended path measured here. Taken only through `_withObservers`, which shows it to
    /// ThreadSanitizer in its builds.
    let _observers = Mutex(_ObserverSlots())

    /// Property indices a tracked property can take: 0..<32768, as the lock-free registrar's.
    @inlinable public static var propertyLimit: Int { 32768 }

    public init() {}

    /// The property indices `@TrackedModel` has given this class and its superclasses (see
    /// `TrackedObject._trackedPropertyEnd`): 0 here.
    @inlinable open class var _trackedPropertyEnd: Int { 0 }

    deinit {
        // Every slot holds a scope that retains this object, so none is left now.
        _withObservers { $0.deallocate() }
    }

    /// Runs `body` under `_observers`' lock, shown to ThreadSanitizer (`_lockAcquired`) on the
    /// object's address.
    @inline(__always)
    final func _withObservers<Result>(_ body: (inout _ObserverSlots) -> sending Result) -> sending Result {
        let lock = Unmanaged.passUnretained(self).toOpaque()
        return _observers.withLock { slots in
            _lockAcquired(lock)
            defer { _lockReleasing(lock) }
            return body(&slots)
        }
    }

    /// Observer slots in use (diagnostics and tests).
    package final var _observerCount: Int { _withObservers { $0.live } }

    /// Observer slots allocated (diagnostics and tests).
    package final var _observerCapacity: Int { _withObservers { $0.capacity } }
}

/// The layout of `LockedObject._version`; the invariants are documented there.
@usableFromInline
enum VersionWord {
    /// Added at the start of an observed write: one more write begun, one more in flight.
    @inlinable static var begin: UInt64 { 1 << 24 | 1 }
    /// Subtracted at the end of an observed write.
    @inlinable static var end: UInt64 { 1 }
    /// One begun write: added by the end of an unobserved write.
    @inlinable static var begunUnit: UInt64 { 1 << 24 }
    /// Writes in flight: the low 24 bits (`TRACKING_IN_FLIGHT_MASK`), as `WriteWord`'s.
    @inlinable static func inFlight(_ word: UInt64) -> UInt64 { word & TRACKING_IN_FLIGHT_MASK }
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
