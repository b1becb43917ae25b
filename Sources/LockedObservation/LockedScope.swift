import LockFreeObservation

/// A view's observation with dependency reuse, on the locked registrar: this module's
/// `ReusableScope` (the lock-free registrar's, compiled against `LockedObject`), with the observer
/// it tells, so that a view can ask whether its scope still tells the same observer.
///
/// Create it once per view, `run` the view's body at every evaluation, `cancel` it when the view
/// goes away; the promises are `ReusableScope`'s.
public struct LockedScope: Sendable {
    @usableFromInline let scope: ReusableScope
    @usableFromInline let observer: ObjectIdentifier?

    /// A scope that tells `observer`, which it holds until cancelled.
    public init(_ observer: some ChangeObserver) {
        scope = ReusableScope(notifying: observer)
        self.observer = ObjectIdentifier(observer)
    }

    /// A scope that calls `onChange`, which it holds until cancelled.
    public init(onChange: @escaping @Sendable () -> Void) {
        scope = ReusableScope(onChange: onChange)
        observer = nil
    }

    /// Evaluates `body`, tracking what it reads (`ReusableScope.run(_:)`).
    @inlinable
    public func run<T>(_ body: () throws -> T) rethrows -> T { try scope.run(body) }

    /// Ends the scope (`ReusableScope.cancel()`).
    @discardableResult
    public func cancel() -> Bool { scope.cancel() }

    /// Whether a change of the last run's dependencies would call back now.
    public var isArmed: Bool { scope.isArmed }

    /// Whether this scope tells `observer` (compared by identity).
    @inlinable
    public func isNotifying(_ observer: AnyObject) -> Bool { self.observer == ObjectIdentifier(observer) }

    /// The last run's dependencies (`ReusableScope.dependencyCount`; tests).
    package var dependencyCount: Int { scope.dependencyCount }

    /// Holes left among the dependencies (`ReusableScope.holeCount`; tests).
    var holeCount: Int { scope.holeCount }
}

/// A handle on a `withTracking` or `observeChanges` observation of the locked registrar.
public typealias LockedToken = TrackingToken

/// The locked registrar's one-shot and continuous observations, the counterparts of the lock-free
/// registrar's free functions (namespaced, so that a module importing both calls each unambiguously).
public enum LockedTracking {
    /// Tracks the properties `apply` reads and tells `observer` once, when the first of them is
    /// about to change (willSet), as `LockFreeObservation.withTracking(_:notifying:)`.
    @inlinable
    public static func withTracking<T>(
        _ apply: () throws -> T, notifying observer: some ChangeObserver
    ) rethrows -> (value: T, token: LockedToken) {
        try TrackingScope.track(apply, continuous: false, callback: .observer(observer))
    }

    /// `withTracking(_:notifying:)` calling `onChange`.
    @inlinable @discardableResult
    public static func withTracking<T>(
        _ apply: () throws -> T, onChange: @escaping @Sendable () -> Void
    ) rethrows -> (value: T, token: LockedToken) {
        try TrackingScope.track(apply, continuous: false, callback: .closure(onChange))
    }

    /// Continuous observation: calls `onChange` before every change of any property `apply` read,
    /// until the returned token is cancelled.
    @inlinable
    public static func observeChanges(
        _ apply: () throws -> Void, onChange: @escaping @Sendable () -> Void
    ) rethrows -> LockedToken {
        try TrackingScope.track(apply, continuous: true, callback: .closure(onChange)).1
    }

    /// Continuous observation notifying `observer`.
    @inlinable
    public static func observeChanges(
        _ apply: () throws -> Void, notifying observer: some ChangeObserver
    ) rethrows -> LockedToken {
        try TrackingScope.track(apply, continuous: true, callback: .observer(observer)).1
    }
}
