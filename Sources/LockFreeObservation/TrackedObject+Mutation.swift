@preconcurrency import CTrackingSupport
import Synchronization

extension TrackedObject {
    /// Announces that `property` is about to change: the "willSet" of Observation. Observers of the
    /// property are called synchronously, before the caller stores the new value.
    ///
    /// When nobody observes the property this is one atomic increment and one load. Call it from a
    /// hand-written setter right before the store; `@Tracked` calls it for you.
    @inlinable @inline(__always)
    public final func trackMutation(_ property: Int) {
        // Both seq_cst: the increment and the load below are the writer's half of the Dekker pair
        // with `TrackingScope.install` (publish observer, then load version). On x86 the increment
        // is the full barrier and the load is a plain load.
        _ = _version.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if _slowPath(_observed.load(ordering: .sequentiallyConsistent) & (1 << UInt64(property & 63)) != 0) {
            TrackedObject._notifyObservers(Unmanaged.passUnretained(self).toOpaque(), of: property)
        }
        if _slowPath(_trackingDepth != 0) {
            TrackedObject._countOwnWrite(Unmanaged.passUnretained(self).toOpaque())
        }
    }

    // The slow paths take the object unretained, so that the inlined fast path does not retain it.
    // The caller keeps the object alive: a mutation stores into it right after this call.
    @usableFromInline
    static func _notifyObservers(_ object: UnsafeMutableRawPointer, of property: Int) {
        Unmanaged<TrackedObject>.fromOpaque(object)._withUnsafeGuaranteedRef { $0._notifyObservers(of: property) }
    }

    @usableFromInline @_effects(releasenone)
    static func _countOwnWrite(_ object: UnsafeMutableRawPointer) {
        Unmanaged<TrackedObject>.fromOpaque(object)._withUnsafeGuaranteedRef { $0._countOwnWrite() }
    }

    /// A mutation inside a tracked closure moves the version without being a change the scope missed:
    /// count it in this thread's entries for the object, so that the install-time check expects it.
    final func _countOwnWrite() {
        let thread = tracking_thread_state()!
        let me = Unmanaged.passUnretained(self).toOpaque()
        let entries = thread.pointee.entries!
        for i in 0..<thread.pointee.count where entries[i].object == me {
            entries[i].ownWrites &+= 1
        }
    }
}
