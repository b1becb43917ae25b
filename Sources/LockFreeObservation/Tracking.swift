/// Tracks the tracked properties `apply` reads and calls `onChange` once, when the first of them is
/// about to change. The lock-free counterpart of Observation's `withObservationTracking`.
///
/// `onChange` runs synchronously on the mutating thread, before the new value is stored (willSet),
/// strictly once even under re-entrant or racing mutations. No change is lost: a write by another
/// thread made between a read in `apply` and the end of this call makes `onChange` run before this
/// returns; one that overlaps the end of this call, on the writer's thread or before this returns;
/// a write that was already under way when `apply` read (its willSet done, its store
/// still to come, as when this call is made inside another scope's `onChange`) makes it run when
/// that write has stored.
@inlinable @discardableResult
public func withTracking<T>(
    _ apply: () throws -> T, onChange: @escaping @Sendable () -> Void
) rethrows -> T {
    try TrackingScope.track(apply, continuous: false, callback: .closure(onChange)).0
}

/// `withTracking(_:onChange:)` that also returns a token to cancel the observation.
@inlinable
public func withCancellableTracking<T>(
    _ apply: () throws -> T, onChange: @escaping @Sendable () -> Void
) rethrows -> (value: T, token: TrackingToken) {
    try TrackingScope.track(apply, continuous: false, callback: .closure(onChange))
}

/// One-shot tracking that notifies a long-lived `observer` instead of a closure: a steady-state
/// track / fire cycle allocates nothing.
@inlinable
public func withTracking<T>(
    _ apply: () throws -> T, notifying observer: some ChangeObserver
) rethrows -> (value: T, token: TrackingToken) {
    try TrackingScope.track(apply, continuous: false, callback: .observer(observer))
}

/// Continuous observation: calls `onChange` before every change of any property `apply` read,
/// until the returned token is cancelled. Dependencies are those of this one run of `apply`.
///
/// With Observation the same needs `withObservationTracking` re-armed inside every `onChange`.
@inlinable
public func observeChanges(
    _ apply: () throws -> Void, onChange: @escaping @Sendable () -> Void
) rethrows -> TrackingToken {
    try TrackingScope.track(apply, continuous: true, callback: .closure(onChange)).1
}

/// Continuous observation notifying a long-lived `observer`.
@inlinable
public func observeChanges(
    _ apply: () throws -> Void, notifying observer: some ChangeObserver
) rethrows -> TrackingToken {
    try TrackingScope.track(apply, continuous: true, callback: .observer(observer)).1
}
