@preconcurrency import CLockedTracking
import CTrackingSupport
import LockFreeObservation
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
        if _slowPath(_trackingDepth != 0) { LockedObject._countOwnWrite(Unmanaged.passUnretained(self).toOpaque()) }
        // Relaxed: this only chooses the protocol; each one orders its own accesses (see `_writes`).
        if _slowPath(_observed.load(ordering: .relaxed) & (1 << UInt64(property & 63)) != 0) {
            _beginObservedWrite(property)
            return LockedMutation(property: property, counted: true)
        }
        _schedulePoint()
        return LockedMutation(property: property, counted: false)
    }

    /// Ends the write announced by `willMutate(_:)`, after the store.
    @inlinable @inline(__always)
    public final func didMutate(_ mutation: LockedMutation) {
        _schedulePoint()
        if _slowPath(mutation.counted) {
            _endObservedWrite(mutation.property)
            return
        }
        // seq_cst: the writer's half of the Dekker pair with a scope's install (see `_writes`):
        // the count (a release of the store), then the mask.
        _ = _writes.wrappingAdd(WriteWord.begunUnit, ordering: .sequentiallyConsistent)
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

    @usableFromInline @_effects(releasenone)
    static func _countOwnWrite(_ object: UnsafeMutableRawPointer) {
        Unmanaged<LockedObject>.fromOpaque(object)._withUnsafeGuaranteedRef { $0._countOwnWrite() }
    }

    /// An observed property's write begins: under the lock, counted begun and in flight, and the
    /// scopes watching it claimed; their callbacks run after the unlock (a callback may read or
    /// write this object again).
    @usableFromInline @inline(never)
    final func _beginObservedWrite(_ property: Int) {
        let thread = registrarThread()
        let start = thread.pointee.pendingCount
        _withObservers { slots in
            // Counted in flight for the runs about to begin (seq_cst, before the claim).
            Registrar.observedWriteBegins()
            _ = _writes.wrappingAdd(WriteWord.begin, ordering: .sequentiallyConsistent)
            _schedulePoint()
            slots.claim(watchersOf: property, straddlersOnly: false, thread)
        }
        LockedSlots.runClaimed(thread, from: start)
    }

    /// An observed property's write ends, after its store: under the lock, no longer in flight;
    /// if a scope read while it was in flight, the straddling slots watching it are claimed, and
    /// once no write is in flight none is owed anything more (`straddled` cleared).
    @usableFromInline @inline(never)
    final func _endObservedWrite(_ property: Int) {
        let thread = registrarThread()
        let start = thread.pointee.pendingCount
        _withObservers { slots in
            // Release: a scope that loads the word later (without the lock) sees the store.
            // Acquire: the straddling slots published before `straddled` was set are visible.
            let old = _writes.wrappingSubtract(WriteWord.end, ordering: .acquiringAndReleasing).oldValue
            if old & WriteWord.straddled != 0 {
                slots.claim(watchersOf: property, straddlersOnly: true, thread)
                // (Every other write's begin and end, and every install, take the lock.)
                if WriteWord.inFlight(old) == 1 {
                    _writes.bitwiseAnd(~WriteWord.straddled, ordering: .relaxed)
                }
            }
        }
        // After the store and the end (release: a run that loads the count after this sees both).
        Registrar.observedWriteEnds()
        LockedSlots.runClaimed(thread, from: start)
    }

    /// An unobserved write found its property observed after its store: a scope installed while it
    /// was under way. The scopes watching it are told now, after the store.
    @usableFromInline @inline(never)
    final func _notifyRacers(_ property: Int) {
        let thread = registrarThread()
        let start = thread.pointee.pendingCount
        _withObservers { slots in slots.claim(watchersOf: property, straddlersOnly: false, thread) }
        LockedSlots.runClaimed(thread, from: start)
    }
}

extension LockedSlots {
    /// Claims every scope that watches `property` (strictly once for a one-shot scope, once per run
    /// for a reusable one) onto the thread's pending list, as the lock-free registrar's scan
    /// (`TrackedObject._scanChain`): a slot whose scope no longer holds it is emptied; a scope this
    /// thread is running is passed by (its own write), and looks for writes in flight at its next
    /// run; a one-shot body still reading is marked changed. Called under the object's lock; the
    /// callbacks run after it (`runClaimed`).
    mutating func claim(watchersOf property: Int, straddlersOnly: Bool, _ thread: UnsafeMutablePointer<tracking_thread>)
    {
        // A walk by address: the loop over the slots that do not concern the write is a load and a
        // compare or two per slot.
        var slot = base.unsafelyUnwrapped
        let end = slot + used
        while slot != end {
            defer { slot += 1 }
            let raw = slot.pointee
            if raw == 0 { continue }
            let content = SlotContent(raw: raw)
            if (straddlersOnly && !content.isStraddling) || !content.watches(property) { continue }
            let record = ScopeTable.record(content.record)
            var state = ScopeState(raw: record.pointee.state.load(ordering: .sequentiallyConsistent))
            guard content.isHeld(in: state) else {
                slot.pointee = 0
                continue
            }
            guard state.takesNotice, record.pointee.runner.load(ordering: .relaxed) != UInt(bitPattern: thread) else {
                if state.takesNotice { ScopeTable.store(content.record).pointee.uncheckedArming = true }
                continue
            }
            if TrackingScope.claimCallback(record, &state, markingReading: true) {
                if thread.pointee.pendingCount == thread.pointee.pendingCapacity { tracking_grow_pending(thread) }
                thread.pointee.pending[thread.pointee.pendingCount] = Claim(record: content.record, state).raw
                thread.pointee.pendingCount += 1
            }
            if !content.isHeld(in: state) {
                slot.pointee = 0
            } else if content.isStraddling && state.isArmed {
                // A continuous scope just told of this write needs no second notice at its end.
                slot.pointee = content.settled.raw
            }
        }
    }

    /// Runs the callbacks claimed on this thread since `start`, in order, outside every lock. A
    /// callback may write again, which claims above.
    @inline(__always)
    static func runClaimed(_ thread: UnsafeMutablePointer<tracking_thread>, from start: Int) {
        var i = start
        while i < thread.pointee.pendingCount {
            TrackingScope.runCallback(of: Claim(raw: thread.pointee.pending[i]))
            i += 1
        }
        thread.pointee.pendingCount = start
    }
}
