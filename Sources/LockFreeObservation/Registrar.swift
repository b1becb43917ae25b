@preconcurrency import CTrackingSupport
import Synchronization

// What the scopes (`Design/`) are written against, the registrar's own: the class of its objects,
// its thread-local state, its scope table and its count of observed writes in flight. The locked
// registrar (`LockedObservation`) compiles the same scopes against its own.
// (`@preconcurrency`: the thread-local is per thread, never shared.)

/// The class of this registrar's objects.
@usableFromInline typealias RegistrarObject = TrackedObject

/// The calling thread's tracking state (`tracking_current`, an initial-exec thread-local: its
/// address is one %fs-relative computation).
@inlinable @inline(__always)
func registrarThread() -> UnsafeMutablePointer<tracking_thread> { tracking_thread_state().unsafelyUnwrapped }

/// The calling thread's scope depth: a load of the C thread-local `tracking_current` (initial-exec
/// TLS), inlined into every getter. A plain global load, not a call, so the optimiser keeps the
/// object a getter reads at +0. (`@preconcurrency`: the thread-local is per thread, never shared.)
@inlinable @inline(__always)
var _trackingDepth: Int { tracking_current.depth }

/// This registrar's run cursor (`RunCursor`): `tracking_current.run`, and a schedule point after a
/// read kept at the cursor (the window between the run's arming and the caller's load of the value).
@usableFromInline
enum TrackingRunCursor: RunCursor {
    @inlinable
    static var cursor: UnsafeMutableRawPointer? {
        @inline(__always) get { tracking_current.run.cursor }
        @inline(__always) set { tracking_current.run.cursor = newValue }
    }

    @inlinable
    static var dependencyCount: Int {
        @inline(__always) get { tracking_current.run.dependencyCount }
    }

    @inlinable
    static var bitsRead: Int {
        @inline(__always) get { tracking_current.run.bitsRead }
        @inline(__always) set { tracking_current.run.bitsRead = newValue }
    }

    @inlinable @inline(__always)
    static func keptAtCursor() { _schedulePoint() }
}

/// This registrar's process-wide words.
enum Registrar {
    /// Whether an observed write is in flight anywhere in the process (`tracking_observed_writes_in_flight`).
    @inline(__always)
    static var observedWritesAreInFlight: Bool { tracking_observed_writes_are_in_flight() }

    /// An observed write begins (before its write word's increment) or ends (after the word's end).
    @inline(__always) static func observedWriteBegins() { tracking_observed_write_begins() }
    @inline(__always) static func observedWriteEnds() { tracking_observed_write_ends() }

    /// The scope table's chunk arrays (`ScopeTable`): published once, read by every lookup.
    @inline(__always) static var scopeChunks: UnsafeMutableRawPointer? { tracking_scope_chunks_get() }
    @inline(__always) static var storeChunks: UnsafeMutableRawPointer? { tracking_store_chunks_get() }
    static func publishChunks(_ scopes: UnsafeMutableRawPointer, _ stores: UnsafeMutableRawPointer) {
        tracking_scope_chunks_publish(scopes, stores)
    }
}
