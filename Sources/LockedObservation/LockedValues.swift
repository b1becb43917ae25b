import LockFreeObservation

/// `TrackedValues` on the locked registrar: the same stream and hand-off, armed with
/// `LockedTracking.withTracking` (the `locked` contender of the stream workloads, an ablation).
public typealias LockedValues<Element: Sendable, Failure: Error> = _ObservedValues<Element, Failure, _LockedOneShot>

/// The locked registrar's one-shot tracking, for `LockedValues`.
public enum _LockedOneShot: _OneShotTracking {
    public static func track<T>(_ apply: () -> T, onChange: @escaping @Sendable () -> Void) -> (T, LockedToken) {
        LockedTracking.withTracking(apply, onChange: onChange)
    }

    public static func cancel(_ token: LockedToken) { token.cancel() }
}
