@preconcurrency import CTrackingSupport

// The registrar the scopes (`Design/`) are compiled against here (see `Design/RegistrarWords.swift`).

/// The class of this registrar's objects.
@usableFromInline typealias RegistrarObject = TrackedObject

/// The calling thread's tracking state (`tracking_current`, an initial-exec thread-local: its
/// address is one %fs-relative computation).
@inlinable @inline(__always)
func registrarThread() -> UnsafeMutablePointer<tracking_thread> { tracking_thread_state().unsafelyUnwrapped }

/// The calling thread's tracking state, the C thread-local itself: its fields are read and
/// written as plain %fs-relative accesses, inline (through `registrarThread()`'s address the
/// getters would call for it).
@inlinable
var _registrarCurrent: tracking_thread {
    @inline(__always) _read { yield tracking_current }
    @inline(__always) _modify { yield &tracking_current }
}

/// The registrar's process-wide words.
@inlinable @inline(__always)
func registrarWords() -> UnsafeMutablePointer<tracking_registrar> { tracking_lockfree_registrar() }
