@preconcurrency import CLockedTracking
import CTrackingSupport
import LockFreeObservation
import Synchronization

/// The scope running on the calling thread, or nil: a load of the C thread-local (initial-exec
/// TLS), inlined into every getter. (`@preconcurrency`: the thread-local is per thread.)
@inlinable @inline(__always)
var _lockedRun: UnsafeMutableRawPointer? { locked_tracking_current.run }

extension LockedObject {
    /// Records a read of `property` in the scope running on the calling thread, if any.
    ///
    /// Without a running scope this is one thread-local load and a branch. Call it *before* reading
    /// the stored value (the version is loaded first, see `_version`).
    @inlinable @inline(__always)
    public final func trackAccess(_ property: Int) {
        if _lockedRun != nil {
            if _keepReadInline(property) { return }
            _lockedRecordAccess(self, property)
        }
    }

    /// The kept read of an outermost `LockedScope` run, inlined into the getter: both registrars'
    /// (`DependencyHead.keepRead(_:of:in:)`), on this registrar's cursor. The read the cursor
    /// expects next (the last run read this object there) of a property its slot watches, with no
    /// write in flight; and a further watched property of the dependency just kept or the one
    /// before it. Stores only to the scope's list and the thread's cursor: no lock, no shared
    /// write. Returns `false`, having changed nothing, for any other read (`_ScopeCore.record`
    /// takes it).
    ///
    /// Outside such a run, and in a scope nested in one, the cursor is a sentinel and
    /// `dependencyCount` 0 (`_ScopeCore.begin()`); two sentinels precede every list
    /// (`_DependencyList`): no bounds check here.
    @inlinable @inline(__always)
    final func _keepReadInline(_ property: Int) -> Bool {
        DependencyHead.keepRead(property, of: Unmanaged.passUnretained(self).toOpaque(), in: LockedRunCursor.self)
    }
}

/// This registrar's run cursor (`RunCursor`): `locked_tracking_current`'s. It has no schedule points.
@usableFromInline
enum LockedRunCursor: RunCursor {
    @inlinable
    static var cursor: UnsafeMutableRawPointer? {
        @inline(__always) get { locked_tracking_current.cursor }
        @inline(__always) set { locked_tracking_current.cursor = newValue }
    }

    @inlinable
    static var dependencyCount: Int {
        @inline(__always) get { locked_tracking_current.dependencyCount }
    }

    @inlinable
    static var bitsRead: Int {
        @inline(__always) get { locked_tracking_current.bitsRead }
        @inline(__always) set { locked_tracking_current.bitsRead = newValue }
    }

    @inlinable @inline(__always)
    static func keptAtCursor() {}
}

/// The slow half of `trackAccess`: a free function, so the inlined caller passes no metadata. It
/// only retains (a new dependency), so the caller's object stays at +0.
@usableFromInline @_effects(releasenone)
func _lockedRecordAccess(_ object: LockedObject, _ property: Int) {
    let thread = locked_tracking_state().unsafelyUnwrapped
    // A run whose cursor is held away from the getters, with no observed write in flight any more:
    // it lets go of the cursor (as the lock-free registrar's `_readWhileHeld`; a nested run sets
    // the held cursor aside, so this is the holding run's own read).
    if let held = thread.pointee.heldCursor, !locked_observed_writes_are_in_flight() {
        thread.pointee.cursor = held
        thread.pointee.heldCursor = nil
        if object._keepReadInline(property) { return }
    }
    // Still held: the getter's keep, with the version test it does not make, against the cursor
    // put back for it.
    if let held = thread.pointee.heldCursor,
        !withUnsafePointer(
            to: object._version, { tracking_write_in_flight(UnsafeRawPointer($0).assumingMemoryBound(to: UInt64.self)) }
        )
    {
        let shown = thread.pointee.cursor
        thread.pointee.cursor = held
        let kept = object._keepReadInline(property)
        thread.pointee.heldCursor = thread.pointee.cursor
        thread.pointee.cursor = shown
        if kept { return }
    }
    Unmanaged<_ScopeCore>.fromOpaque(thread.pointee.run.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
        $0.record(object, property)
    }
}
