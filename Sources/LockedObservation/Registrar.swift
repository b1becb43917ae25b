@preconcurrency import CLockedTracking
import CTrackingSupport
import LockFreeObservation

// The registrar the scopes (`Design/`, the lock-free registrar's, linked) are compiled against here
// (see `Design/RegistrarWords.swift`).

/// The observers both registrars tell (the lock-free registrar's protocol), by the name the scopes use.
public typealias ChangeObserver = LockFreeObservation.ChangeObserver

/// The class of this registrar's objects.
@usableFromInline typealias RegistrarObject = LockedObject

/// The calling thread's tracking state (`locked_tracking_current`).
@inlinable @inline(__always)
func registrarThread() -> UnsafeMutablePointer<tracking_thread> { locked_thread_state().unsafelyUnwrapped }

/// The calling thread's tracking state, the C thread-local itself: its fields are read and
/// written as plain %fs-relative accesses, inline (through `registrarThread()`'s address the
/// getters would call for it).
@inlinable
var _registrarCurrent: tracking_thread {
    @inline(__always) _read { yield locked_tracking_current }
    @inline(__always) _modify { yield &locked_tracking_current }
}

/// The registrar's process-wide words.
@inlinable @inline(__always)
func registrarWords() -> UnsafeMutablePointer<tracking_registrar> { locked_registrar() }
