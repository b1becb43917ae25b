/// Tracks the tracked properties `apply` reads, and calls `onChange` once, when the first of them
/// is about to change: the lock-free counterpart of Observation's `withObservationTracking`.
///
/// ```swift
/// withTracking {
///     print(library.availableBooksCount)
/// } onChange: {
///     print("a book or its availability is about to change")
/// }
/// ```
///
/// `onChange` runs synchronously on the writing thread, before the new value is stored (willSet),
/// strictly once even under re-entrant or racing writes. No change is lost: a write by another
/// thread made between a read in `apply` and the end of this call makes `onChange` run before this
/// returns; one that overlaps the end of this call, on the writer's thread or before this returns;
/// a write that was already under way when `apply` read (its willSet done, its store still to
/// come, as when this call is made inside another scope's `onChange`) makes it run when that write
/// has stored. The price is a spurious call when another property of an object `apply` read is
/// written around the read.
///
/// - Parameters:
///   - apply: The computation to track, run synchronously on the calling thread before this
///     returns. Its own writes are not changes; the reads of scopes nested in it count for it too.
///   - onChange: Called at most once, on the writing thread. It may read and write models (the
///     property being written too), track and re-arm, run reusable scopes, cancel any observation
///     and drop objects.
/// - Returns: What `apply` returns.
/// - Throws: What `apply` throws; nothing is then observed.
///
/// Cost: a scope record from a lock-free pool, and observer slots in each object `apply` read (one
/// for all its properties below 15 that were read, one for each other property read), installed
/// at the read when this is the thread's outermost scope, with no reference held to the object. `onChange` is an allocation of
/// its own; ``withTracking(_:notifying:)`` calls a long-lived observer instead. An observation
/// whose objects are all deallocated is cancelled: `onChange` is released, never called.
@inlinable @discardableResult
public func withTracking<T>(
    _ apply: () throws -> T, onChange: @escaping @Sendable () -> Void
) rethrows -> T {
    try TrackingScope.track(apply, continuous: false, callback: .closure(onChange)).0
}

/// ``withTracking(_:onChange:)``, returning a token that cancels the observation.
///
/// - Parameters:
///   - apply: The computation to track, run synchronously on the calling thread.
///   - onChange: Called at most once, on the writing thread, before the store.
/// - Returns: What `apply` returns, and a token that cancels the observation
///   (``TrackingToken/inert`` if `apply` read no tracked property).
/// - Throws: What `apply` throws; nothing is then observed.
@inlinable
public func withCancellableTracking<T>(
    _ apply: () throws -> T, onChange: @escaping @Sendable () -> Void
) rethrows -> (value: T, token: TrackingToken) {
    try TrackingScope.track(apply, continuous: false, callback: .closure(onChange))
}

/// One-shot tracking that tells a long-lived `observer` instead of calling a closure: a
/// steady-state track and fire cycle allocates nothing.
///
/// The promises of ``withTracking(_:onChange:)``.
///
/// - Parameters:
///   - apply: The computation to track, run synchronously on the calling thread.
///   - observer: Told at most once, on the writing thread, before the store. Held until the
///     observation has fired or been cancelled.
/// - Returns: What `apply` returns, and a token that cancels the observation
///   (``TrackingToken/inert`` if `apply` read no tracked property).
/// - Throws: What `apply` throws; nothing is then observed.
@inlinable
public func withTracking<T>(
    _ apply: () throws -> T, notifying observer: some ChangeObserver
) rethrows -> (value: T, token: TrackingToken) {
    try TrackingScope.track(apply, continuous: false, callback: .observer(observer))
}

/// Continuous observation: calls `onChange` before every change of any property `apply` read,
/// until the returned token is cancelled.
///
/// The properties watched are those this one run of `apply` read. With Observation the same needs
/// `withObservationTracking` re-armed inside every `onChange`.
///
/// - Parameters:
///   - apply: The computation to track, run once, synchronously on the calling thread.
///   - onChange: Called before each change, on the writing thread: on several threads at once
///     when several write. It may do what ``withTracking(_:onChange:)``'s may.
/// - Returns: A token that ends the observation (``TrackingToken/inert`` if `apply` read no
///   tracked property).
/// - Throws: What `apply` throws; nothing is then observed.
///
/// The observation holds no reference to the objects it watches: once they are all deallocated,
/// it is cancelled and `onChange` released.
@inlinable
public func observeChanges(
    _ apply: () throws -> Void, onChange: @escaping @Sendable () -> Void
) rethrows -> TrackingToken {
    try TrackingScope.track(apply, continuous: true, callback: .closure(onChange)).1
}

/// Continuous observation telling a long-lived `observer`: ``observeChanges(_:onChange:)`` with no
/// closure to allocate.
///
/// - Parameters:
///   - apply: The computation to track, run once, synchronously on the calling thread.
///   - observer: Told before each change, on the writing thread. Held until the observation is
///     cancelled.
/// - Returns: A token that ends the observation (``TrackingToken/inert`` if `apply` read no
///   tracked property).
/// - Throws: What `apply` throws; nothing is then observed.
@inlinable
public func observeChanges(
    _ apply: () throws -> Void, notifying observer: some ChangeObserver
) rethrows -> TrackingToken {
    try TrackingScope.track(apply, continuous: true, callback: .observer(observer)).1
}
