@preconcurrency import CTrackingSupport
import Synchronization

// What the scopes reach of their registrar through the names each registrar's module gives
// (`Registrar.swift`: `RegistrarObject`, the class of its objects; `_registrarCurrent` and
// `registrarThread()`, the calling thread's state, as the C thread-local itself, which a getter
// reads inline, and as its address; `registrarWords()`, its process-wide words). (`@preconcurrency`: the
// thread-local is per thread, never shared.)

/// The calling thread's scope depth: a load of the registrar's C thread-local (initial-exec TLS,
/// `_registrarCurrent`), inlined into every getter. A plain global load, not a call, so the
/// optimiser keeps the object a getter reads at +0.
@inlinable @inline(__always)
var _trackingDepth: Int { _registrarCurrent.depth }

/// This registrar's run cursor (`RunCursor`): the thread's `run`, and a schedule point after a
/// read kept at the cursor (the window between the run's arming and the caller's load of the value).
@usableFromInline
enum TrackingRunCursor: RunCursor {
    @inlinable
    static var cursor: UnsafeMutableRawPointer? {
        @inline(__always) get { _registrarCurrent.run.cursor }
        @inline(__always) set { _registrarCurrent.run.cursor = newValue }
    }

    @inlinable
    static var dependencyCount: Int {
        @inline(__always) get { _registrarCurrent.run.dependencyCount }
    }

    @inlinable
    static var bitsRead: Int {
        @inline(__always) get { _registrarCurrent.run.bitsRead }
        @inline(__always) set { _registrarCurrent.run.bitsRead = newValue }
    }

    @inlinable @inline(__always)
    static func keptAtCursor() { _schedulePoint() }
}

/// The registrar's process-wide words (`tracking_registrar`).
enum Registrar {
    /// Whether an observed write is in flight anywhere in the process.
    @inline(__always)
    static var observedWritesAreInFlight: Bool { tracking_observed_writes_are_in_flight(registrarWords()) }

    /// An observed write begins (before its write word's increment) or ends (after the word's end).
    @inline(__always) static func observedWriteBegins() { tracking_observed_write_begins(registrarWords()) }
    @inline(__always) static func observedWriteEnds() { tracking_observed_write_ends(registrarWords()) }

    /// The scope table's chunk arrays (`ScopeTable`): published once, read by every lookup.
    @inline(__always) static var scopeChunks: UnsafeMutableRawPointer? { tracking_scope_chunks_get(registrarWords()) }
    @inline(__always) static var storeChunks: UnsafeMutableRawPointer? { tracking_store_chunks_get(registrarWords()) }
    static func publishChunks(_ scopes: UnsafeMutableRawPointer, _ stores: UnsafeMutableRawPointer) {
        tracking_scope_chunks_publish(registrarWords(), scopes, stores)
    }
}
