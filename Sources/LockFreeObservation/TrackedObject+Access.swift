@preconcurrency import CTrackingSupport
import Synchronization

/// The calling thread's scope depth: a load of the C thread-local `tracking_current` (initial-exec
/// TLS), inlined into every getter. A plain global load, not a call, so the optimiser keeps the
/// object a getter reads at +0. (`@preconcurrency`: the thread-local is per thread, never shared.)
@inlinable @inline(__always)
var _trackingDepth: Int { tracking_current.depth }

extension TrackedObject {
    /// Records a read of `property` in the calling thread's active tracking scope, if any.
    ///
    /// Without an active scope this is one thread-local load and a branch. Call it *before* reading
    /// the stored value (the object's write count must be loaded first, see `_writes`), from a
    /// hand-written getter; `@Tracked` calls it for you.
    @inlinable @inline(__always)
    public final func trackAccess(_ property: Int) {
        if _slowPath(_trackingDepth != 0) {
            _trackingRecordAccess(self, property)
        }
    }

    /// A repeated read finds this object's entry through the hint and sets its bit; anything else
    /// goes to `_appendAccess` (out of line, so the repeated read needs no stack frame).
    @inline(__always)
    final func _recordAccess(_ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>) {
        let word = UInt32(truncatingIfNeeded: property >> 6)
        // Relaxed: the hint is only a guess, checked against this thread's own buffer. One unsigned
        // compare checks scopeStart <= hint < count.
        let hint = _entryHint.load(ordering: .relaxed) &- 1
        let start = thread.pointee.scopeStart
        if UInt(bitPattern: hint &- start) < UInt(bitPattern: thread.pointee.count &- start) {
            let entry = thread.pointee.entries.unsafelyUnwrapped + hint
            if UInt(bitPattern: entry.pointee.object) == UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()) {
                if entry.pointee.word == word {
                    entry.pointee.mask |= 1 << UInt64(property & 63)
                    return
                }
                _recordAccessOfAnotherWord(property, thread, hinted: hint)
                return
            }
        }
        _appendAccess(property, thread, previous: -1)
    }

    /// A first read of this object in this scope, or one the hint did not find: a new entry
    /// records the object's write count, loaded before the caller reads the value. `previous`
    /// links it to this scope's entry of the same object for another word, if any.
    @inline(never)
    final func _appendAccess(_ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>, previous: Int) {
        precondition(UInt(bitPattern: property) < UInt(TrackedObject.propertyLimit), "property index out of range")
        if thread.pointee.count == thread.pointee.capacity { tracking_grow_entries(thread) }
        let index = thread.pointee.count
        // Acquire: every write that ended before this load has its store visible to the caller's
        // read, which comes after (see `_writes`).
        let writes = _writes.load(ordering: .acquiring)
        // The scope holds the object until it has installed its observers.
        (thread.pointee.entries.unsafelyUnwrapped + index).initialize(
            to: tracking_entry(
                object: Unmanaged.passRetained(self).toOpaque(), mask: 1 << UInt64(property & 63), version: writes,
                word: UInt32(truncatingIfNeeded: property >> 6), ownWrites: 0,
                previous: Int32(truncatingIfNeeded: previous)))
        thread.pointee.count = index &+ 1
        _entryHint.store(index &+ 1, ordering: .relaxed)
        _schedulePoint()
    }

    /// The hinted entry (in this scope) is this object's, for another 64-property word: the
    /// object's other entries in this scope are found through their `previous` links, so a scope
    /// holds one entry per object and word however its reads alternate.
    @inline(never)
    final func _recordAccessOfAnotherWord(
        _ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>, hinted: Int
    ) {
        let word = UInt32(truncatingIfNeeded: property >> 6)
        let entries = thread.pointee.entries.unsafelyUnwrapped
        let start = thread.pointee.scopeStart
        var i = Int(entries[hinted].previous)
        while i >= start {
            if entries[i].word == word {
                entries[i].mask |= 1 << UInt64(property & 63)
                return
            }
            i = Int(entries[i].previous)
        }
        _appendAccess(property, thread, previous: hinted)
    }
}

/// The slow half of `trackAccess`: a free function, so the inlined caller passes no metadata, with
/// the record inlined into it. It is `releasenone` (it only retains): so the optimiser keeps the
/// caller's object at +0 (guaranteed), and an inlined getter does not retain and release the object
/// it reads.
@usableFromInline @_effects(releasenone)
func _trackingRecordAccess(_ object: TrackedObject, _ property: Int) {
    object._recordAccess(property, tracking_thread_state().unsafelyUnwrapped)
}
