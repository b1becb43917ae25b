@preconcurrency import CLockedTracking

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
        if _slowPath(_lockedRun != nil) {
            _lockedRecordAccess(self, property)
        }
    }
}

/// The slow half of `trackAccess`: a free function, so the inlined caller passes no metadata. It
/// only retains (a new dependency), so the caller's object stays at +0.
@usableFromInline @_effects(releasenone)
func _lockedRecordAccess(_ object: LockedObject, _ property: Int) {
    Unmanaged<_ScopeCore>.fromOpaque(locked_tracking_current.run.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
        $0.record(object, property)
    }
}
