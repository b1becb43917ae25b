import CTrackingSupport
import Synchronization

/// The calling thread's scope depth (`CTrackingSupport`, Swift calling convention). A call that the
/// optimiser knows to be read-only: an inlined C check is opaque to it, and made every read retain
/// and release the object it reads.
@usableFromInline @_effects(readonly) @_silgen_name("tracking_depth_swiftcall")
func _trackingDepth() -> Int

extension TrackedObject {
    /// Records a read of `property` in the calling thread's active tracking scope, if any.
    ///
    /// Without an active scope this is one thread-local load and a branch. Call it after reading
    /// the stored value. Call it from a
    /// hand-written getter; `@Tracked` calls it for you.
    @inlinable @inline(__always)
    public final func trackAccess(_ property: Int) {
        let object = Unmanaged.passUnretained(self).toOpaque()
        if _slowPath(_trackingDepth() != 0) {
            TrackedObject._recordAccess(object, property)
            #if BENCH_SELFCHECK_SLOW_TRACKED_READ
            // scripts/gate-selfcheck.sh: a deliberate 2x slowdown of the tracked read.
            TrackedObject._recordAccess(object, property)
            #endif
        }
    }

    /// The object goes as a raw pointer and the function is `releasenone` (it only retains): so the
    /// optimiser keeps the caller's object at +0, and an inlined getter does not retain and release
    /// the object it reads.
    @usableFromInline @_effects(releasenone)
    static func _recordAccess(_ object: UnsafeMutableRawPointer, _ property: Int) {
        let thread = tracking_thread_state()!
        Unmanaged<TrackedObject>.fromOpaque(object)._withUnsafeGuaranteedRef { $0._recordAccess(property, thread) }
    }

    final func _recordAccess(_ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>) {
        let word = UInt32(truncatingIfNeeded: property >> 6)
        let bit: UInt64 = 1 << UInt64(property & 63)
        let me = Unmanaged.passUnretained(self).toOpaque()
        // Relaxed: the hint is only a guess, checked against this thread's own buffer.
        let hint = _entryHint.load(ordering: .relaxed) - 1
        if hint >= thread.pointee.scopeStart && hint < thread.pointee.count {
            let entry = thread.pointee.entries + hint
            if entry.pointee.object == me && entry.pointee.word == word {
                entry.pointee.mask |= bit
                return
            }
        }
        if thread.pointee.count == thread.pointee.capacity { tracking_grow_entries(thread) }
        let index = thread.pointee.count
        // Acquire: a later read of the property sees at least the mutations counted so far.
        let version = _version.load(ordering: .acquiring)
        // The scope holds the object until it has installed its observers.
        (thread.pointee.entries + index).initialize(
            to: tracking_entry(
                object: Unmanaged.passRetained(self).toOpaque(), mask: bit, version: version, word: word,
                ownWrites: 0))
        thread.pointee.count = index + 1
        _entryHint.store(index + 1, ordering: .relaxed)
    }
}
