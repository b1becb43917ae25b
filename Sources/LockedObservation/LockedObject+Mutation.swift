@preconcurrency import CLockedTracking
import Synchronization

/// A write announced by `LockedObject.willMutate(_:)`, to be ended by `didMutate(_:)` right after
/// the store. Two words, on the stack.
@frozen
public struct LockedMutation {
    @usableFromInline let property: Int
    /// Whether the property was observed when the write was announced: the write then took the
    /// lock and is counted in flight until it ends.
    @usableFromInline let counted: Bool

    @inlinable init(property: Int, counted: Bool) {
        self.property = property
        self.counted = counted
    }
}

extension LockedObject {
    /// Announces that `property` is about to change: observers of the property are called
    /// synchronously, before the caller stores the new value (willSet). Store, then pass the result
    /// to `didMutate(_:)`; `withMutation(_:_:)` does both.
    ///
    /// Unobserved, this and `didMutate` cost what the lock-free registrar's do: one relaxed load,
    /// one atomic increment and one load, no lock.
    @inlinable @inline(__always)
    public final func willMutate(_ property: Int) -> LockedMutation {
        precondition(UInt(bitPattern: property) < UInt(LockedObject.propertyLimit), "property index out of range")
        // Before any observer runs: a write in a running scope's body is its own, not a change it missed.
        if _slowPath(_lockedRun != nil) { _countOwnWrite() }
        // Relaxed: this only chooses the protocol; each one orders its own accesses (see `_version`).
        if _slowPath(_observed.load(ordering: .relaxed) & (1 << UInt64(property & 63)) != 0) {
            _beginObservedWrite(property)
            return LockedMutation(property: property, counted: true)
        }
        return LockedMutation(property: property, counted: false)
    }

    /// Ends the write announced by `willMutate(_:)`, after the store.
    @inlinable @inline(__always)
    public final func didMutate(_ mutation: LockedMutation) {
        if _slowPath(mutation.counted) {
            _endObservedWrite(mutation.property)
            return
        }
        // seq_cst: the writer's half of the Dekker pair with a scope's install (see `_version`):
        // the count (a release of the store), then the mask.
        _ = _version.wrappingAdd(VersionWord.begunUnit, ordering: .sequentiallyConsistent)
        if _slowPath(_observed.load(ordering: .sequentiallyConsistent) & (1 << UInt64(mutation.property & 63)) != 0) {
            _notifyRacers(mutation.property)
        }
    }

    /// Runs `mutation` (the store) between `willMutate(property)` and `didMutate(_:)`.
    @inlinable @inline(__always)
    public final func withMutation<T>(_ property: Int, _ mutation: () throws -> T) rethrows -> T {
        let pending = willMutate(property)
        defer { didMutate(pending) }
        return try mutation()
    }

    /// An observed property's write begins: under the lock, counted begun and in flight, and the
    /// armed scopes watching it claimed; their callbacks run after the unlock (a callback may read
    /// or write this object again).
    @usableFromInline @inline(never)
    final func _beginObservedWrite(_ property: Int) {
        let thread = locked_tracking_state().unsafelyUnwrapped
        let start = thread.pointee.pendingCount
        _withObservers { slots in
            // Counted in flight for the runs about to begin (seq_cst, before the claim).
            locked_observed_write_begins()
            // Under the lock, which orders it with every re-check; release for lock-free readers.
            _ = _version.wrappingAdd(VersionWord.begin, ordering: .sequentiallyConsistent)
            slots.claim(watchersOf: property, straddlersOnly: false, into: thread)
        }
        _ScopeCore.runPending(thread, from: start)
    }

    /// An observed property's write ends, after its store: under the lock, no longer in flight, and
    /// the straddling slots watching it (scopes that read while it was in flight) claimed.
    @usableFromInline @inline(never)
    final func _endObservedWrite(_ property: Int) {
        let thread = locked_tracking_state().unsafelyUnwrapped
        let start = thread.pointee.pendingCount
        _withObservers { slots in
            // Release: a scope that loads the word later (without the lock) sees the store.
            let old = _version.wrappingSubtract(VersionWord.end, ordering: .releasing).oldValue
            if slots.straddlers > 0 {
                slots.claim(watchersOf: property, straddlersOnly: true, into: thread)
                // Every write in flight when a slot was marked has ended: none is owed anything.
                if VersionWord.inFlight(old) == 1 { slots.clearStraddling() }
            }
        }
        // After the store and the end (release: a run that loads the count after this sees both).
        locked_observed_write_ends()
        _ScopeCore.runPending(thread, from: start)
    }

    /// An unobserved write found its property observed after its store: a scope installed while it
    /// was under way. The scopes watching it are told now, after the store.
    @usableFromInline @inline(never)
    final func _notifyRacers(_ property: Int) {
        let thread = locked_tracking_state().unsafelyUnwrapped
        let start = thread.pointee.pendingCount
        _withObservers { slots in slots.claim(watchersOf: property, straddlersOnly: false, into: thread) }
        _ScopeCore.runPending(thread, from: start)
    }

    /// A write made by the body of the scope running on this thread: the scope expects it.
    @usableFromInline @inline(never) @_effects(releasenone)
    final func _countOwnWrite() {
        Unmanaged<_ScopeCore>.fromOpaque(locked_tracking_current.run.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
            $0.countOwnWrite(of: self)
        }
    }
}

extension _ObserverSlots {
    /// Claims every scope that watches `property` (strictly once for one-shot scopes) onto this
    /// thread's pending list, retained. Called under the object's lock; the callbacks run after it.
    /// A straddling slot served by the end of a write is owed nothing more: its mark is cleared.
    mutating func claim(
        watchersOf property: Int, straddlersOnly: Bool, into thread: UnsafeMutablePointer<locked_tracking_thread>
    ) {
        // A walk of the slots by address: the loop over those that do not watch the property is a
        // load and a compare or two per slot.
        var slot = base.unsafelyUnwrapped
        let end = slot + used
        while slot != end {
            defer { slot += 1 }
            guard slot.pointee.watches(property) else { continue }
            if straddlersOnly {
                guard slot.pointee.straddling else { continue }
                slot.pointee.straddling = false
                straddlers -= 1
            }
            let core = slot.pointee.core.unsafelyUnwrapped
            // The slot's retain keeps the scope alive while we hold the lock. A scope this thread
            // is running (armed while it runs) is not told of its own body's writes; such a write
            // may outlive the run, so its next run looks for writes in flight.
            if let claimed = Unmanaged<_ScopeCore>.fromOpaque(core)._withUnsafeGuaranteedRef({
                $0.runner.load(ordering: .relaxed) != UInt(bitPattern: thread) ? $0.claim() : $0.passedByOwnWrite()
            }) {
                if thread.pointee.pendingCount == thread.pointee.pendingCapacity {
                    locked_tracking_grow_pending(thread)
                }
                thread.pointee.pending[thread.pointee.pendingCount] = locked_claim(
                    core: UnsafeMutableRawPointer(Unmanaged<_ScopeCore>.fromOpaque(core).retain().toOpaque()),
                    phase: claimed)
                thread.pointee.pendingCount += 1
            }
        }
    }
}
