@preconcurrency import CLockedTracking
import LockFreeObservation

/// A view's observation with dependency reuse: create it once per view, `run` the view's body at
/// every evaluation, `cancel` it when the view goes away.
///
/// After each `run`, the observer is told once, before the store (willSet), at the first change of
/// any property that run read; then nothing until the next `run`. A run's reads are matched in
/// order against the previous run's: a kept dependency costs no retain, release, lock or shared
/// write while the body runs; only new or dropped dependencies (or a kept one whose properties
/// changed) take the object's lock to add, remove or update the scope's slot. At the end of the
/// run each object's version is re-checked under its lock, once per object (`LockedObject._version`).
///
/// No change is lost: a write by another thread between a read and the end of `run` makes the
/// observer be told before `run` returns, or on the writer's thread. A write made by the body
/// itself notifies nobody. Reads of a `run` nested in another scope's run on the same thread count
/// for both.
///
/// A copy shares the scope. `run` and `cancel` must not overlap (one view, one thread at a time),
/// but for a `cancel` inside the scope's own run, on its thread; writers may come from any thread.
/// The scope keeps the objects it depends on alive until a run no longer reads them or it is
/// cancelled; it is cancelled when its last copy goes away. Objects it lets go of while a scope
/// runs on the thread are released once the thread's outermost scope has ended, so that their
/// deinits run outside every scope.
public struct LockedScope {
    @usableFromInline let handle: _ScopeHandle

    /// A scope that tells `observer`, which it holds until cancelled.
    public init(_ observer: some ChangeObserver) {
        handle = _ScopeHandle(
            _ScopeCore(_Callback(observer: observer, closure: nil), continuous: false, closesWhenFired: false),
            observer: ObjectIdentifier(observer))
    }

    /// A scope that calls `onChange`, which it holds until cancelled.
    public init(onChange: @escaping @Sendable () -> Void) {
        handle = _ScopeHandle(
            _ScopeCore(_Callback(observer: nil, closure: onChange), continuous: false, closesWhenFired: false),
            observer: nil)
    }

    /// Evaluates `body`, tracking what it reads; re-arms the scope on those dependencies. A
    /// cancelled scope runs `body` untracked. Running the scope inside its own run is a
    /// precondition failure.
    @inlinable
    public func run<T>(_ body: () throws -> T) rethrows -> T {
        let frame = handle.core.begin()
        let result: T
        do {
            result = try body()
        } catch {
            handle.core.end(frame)
            throw error
        }
        handle.core.end(frame)
        return result
    }

    /// Ends the scope: no more calls back (one already running finishes), its slots and objects
    /// dropped, its observer released. Returns whether a call back was still to come: once it
    /// returned `true`, no call back starts.
    ///
    /// May be called inside the scope's own run, or inside a run nested in it, on the thread
    /// running it: the scope stops watching at once, and its run's end keeps nothing of what the
    /// run read (a run nested in another still counts for the enclosing one).
    @discardableResult
    public func cancel() -> Bool { handle.core.cancel() }

    /// Whether a change of the last run's dependencies would call back now.
    public var isArmed: Bool { handle.core.isArmed }

    /// Whether this scope tells `observer` (compared by identity).
    @inlinable
    public func isNotifying(_ observer: AnyObject) -> Bool { handle.observer == ObjectIdentifier(observer) }

    /// The last run's dependencies: one per object (and 64-property word) it read.
    package var dependencyCount: Int { handle.core.depCount - handle.core.holes }

    /// Holes left in the list (`_ScopeCore.holes`; diagnostics and tests).
    var holeCount: Int { handle.core.holes }

    /// Whether the calling thread's running scope holds its cursor away from the getters
    /// (`locked_tracking_thread.heldCursor`; tests).
    static var holdsItsCursor: Bool { locked_tracking_state()!.pointee.heldCursor != nil }

    /// Slots the last run added, removed or changed, each under an object's lock: 0 when it read
    /// what the run before it read.
    package var lastRunSlotUpdates: Int { handle.core.lastRunSlotUpdates }
}

/// Cancels its scope when the last `LockedScope` copy goes away.
@usableFromInline
final class _ScopeHandle {
    @usableFromInline let core: _ScopeCore
    @usableFromInline let observer: ObjectIdentifier?

    init(_ core: _ScopeCore, observer: ObjectIdentifier?) {
        self.core = core
        self.observer = observer
    }

    deinit { core.cancel() }
}

/// A handle on a `withTracking` or `observeChanges` observation: cancel it, or ask whether it is
/// still armed. It does not end the observation when it goes away.
public struct LockedToken: Sendable {
    let core: _ScopeCore?

    /// A token that observes nothing (a scope that read no tracked property).
    public static let inert = LockedToken(core: nil)

    /// Whether the observation is still armed: it has neither fired (one-shot) nor been cancelled.
    public var isArmed: Bool { core?.isArmed ?? false }

    /// Cancels the observation. Returns `true` if this call cancelled it, `false` if it had already
    /// fired (one-shot) or been cancelled.
    @discardableResult
    public func cancel() -> Bool { core?.cancel() ?? false }
}

/// The locked registrar's one-shot and continuous observations, the counterparts of the lock-free
/// registrar's free functions (namespaced, so that a module importing both calls each unambiguously).
public enum LockedTracking {
    /// Tracks the properties `apply` reads and tells `observer` once, when the first of them is
    /// about to change (willSet), strictly once; no change is lost (see `LockedScope`).
    public static func withTracking<T>(
        _ apply: () throws -> T, notifying observer: some ChangeObserver
    ) rethrows -> (value: T, token: LockedToken) {
        try track(apply, _Callback(observer: observer, closure: nil), continuous: false)
    }

    /// `withTracking(_:notifying:)` calling `onChange`.
    @discardableResult
    public static func withTracking<T>(
        _ apply: () throws -> T, onChange: @escaping @Sendable () -> Void
    ) rethrows -> (value: T, token: LockedToken) {
        try track(apply, _Callback(observer: nil, closure: onChange), continuous: false)
    }

    /// Continuous observation: calls `onChange` before every change of any property `apply` read,
    /// until the returned token is cancelled. Dependencies are those of this one run of `apply`.
    public static func observeChanges(
        _ apply: () throws -> Void, onChange: @escaping @Sendable () -> Void
    ) rethrows -> LockedToken {
        try track(apply, _Callback(observer: nil, closure: onChange), continuous: true).token
    }

    /// Continuous observation notifying `observer`.
    public static func observeChanges(
        _ apply: () throws -> Void, notifying observer: some ChangeObserver
    ) rethrows -> LockedToken {
        try track(apply, _Callback(observer: observer, closure: nil), continuous: true).token
    }

    static func track<T>(
        _ apply: () throws -> T, _ callback: _Callback, continuous: Bool
    ) rethrows -> (value: T, token: LockedToken) {
        let core = _ScopeCore(callback, continuous: continuous, closesWhenFired: true)
        let frame = core.begin()
        let result: T
        do {
            result = try apply()
        } catch {
            core.end(frame)
            core.cancel()
            core.handOverLists()
            throw error
        }
        core.end(frame)
        // (A write on another thread may fire the scope from its arming on, and close it: its
        // lists stay this thread's until `handOverLists()`.)
        let readNothing = core.depCount == 0
        if readNothing { core.cancel() }
        core.handOverLists()
        return (result, readNothing ? .inert : LockedToken(core: core))
    }
}
