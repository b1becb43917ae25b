@preconcurrency import CLockedTracking
import CTrackingSupport
import LockFreeObservation
import Synchronization

// The locked registrar's side of a write (`Design/Object+Mutation.swift`): whether a property is
// observed, and the slow paths, which take the object's lock to scan its slots.
extension LockedObject {
    /// Whether `property` may be observed: chooses the write's protocol (relaxed: each protocol
    /// orders its own accesses, see `_writes`).
    @inlinable @inline(__always)
    final func _mayBeObserved(_ property: Int) -> Bool {
        _observed.load(ordering: .relaxed) & (1 << UInt64(property & 63)) != 0
    }

    /// Whether `property` is observed, after an unobserved write's count (seq_cst: the writer's half
    /// of the Dekker pair with an install).
    @inlinable @inline(__always)
    final func _isObservedNow(_ property: Int) -> Bool {
        _observed.load(ordering: .sequentiallyConsistent) & (1 << UInt64(property & 63)) != 0
    }

    /// An observed property's write begins: under the lock, counted begun and in flight, and the
    /// scopes watching it claimed; their callbacks run after the unlock (a callback may read or
    /// write this object again).
    @usableFromInline @inline(never)
    final func _beginObservedWrite(of property: Int) {
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

    /// The end of an observed write found `straddled` set (after its store and its end): under the
    /// lock, the straddling slots watching the property are claimed and, once no write is in
    /// flight, `straddled` cleared (every install, which sets it, takes the lock).
    @inline(never)
    final func _endStraddle(of property: Int) {
        let thread = registrarThread()
        let start = thread.pointee.pendingCount
        _withObservers { slots in
            slots.claim(watchersOf: property, straddlersOnly: true, thread)
            if WriteWord.inFlight(_writes.load(ordering: .relaxed)) == 0 {
                _writes.bitwiseAnd(~WriteWord.straddled, ordering: .relaxed)
            }
        }
        LockedSlots.runClaimed(thread, from: start)
    }

    /// A write whose property is observed, told after its store (an unobserved write that a scope's
    /// install raced): under the lock, the scopes watching it are claimed.
    @inline(never)
    final func _notifyObservers(of property: Int) {
        let thread = registrarThread()
        let start = thread.pointee.pendingCount
        _withObservers { slots in slots.claim(watchersOf: property, straddlersOnly: false, thread) }
        LockedSlots.runClaimed(thread, from: start)
    }
}

extension LockedSlots {
    /// Claims every scope that watches `property` (strictly once for a one-shot scope, once per run
    /// for a reusable one) onto the thread's pending list, each slot as the design decides
    /// (`TrackingScope.notice`). Called under the object's lock; the callbacks run after it
    /// (`runClaimed`).
    mutating func claim(watchersOf property: Int, straddlersOnly: Bool, _ thread: UnsafeMutablePointer<tracking_thread>)
    {
        // A walk by address: the loop over the slots that do not concern the write is a load and a
        // compare or two per slot.
        // (None: an object whose slots its deinit has let go of, written by a deinit it runs.)
        guard var slot = base else { return }
        let end = slot + used
        while slot != end {
            defer { slot += 1 }
            let raw = slot.pointee
            if raw == 0 { continue }
            let content = SlotContent(raw: raw)
            if (straddlersOnly && !content.isStraddling) || !content.watches(property) { continue }
            let replacement = TrackingScope.notice(content, by: thread) { claim in
                if thread.pointee.pendingCount == thread.pointee.pendingCapacity { tracking_grow_pending(thread) }
                thread.pointee.pending[thread.pointee.pendingCount] = claim
                thread.pointee.pendingCount += 1
            }
            if let replacement {
                slot.pointee = replacement
                if replacement == 0 { hint = min(hint, slot - base.unsafelyUnwrapped) }
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
