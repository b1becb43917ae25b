import LockFreeObservation
import LockedObservation
import Synchronization

/// A lock-free registrar's model whose properties (any index) all store one atomic value: enough
/// to test who is told.
public final class Row: TrackedObject, @unchecked Sendable {
    // `@unchecked Sendable`: its stored properties are atomic or immutable (a subclass cannot be
    // checked `Sendable`).
    public let value = Atomic<Int>(0)
    /// Runs in `deinit`: user code re-entering the registrar from a release.
    private let onDeinit: (@Sendable () -> Void)?

    public init(onDeinit: (@Sendable () -> Void)?) {
        self.onDeinit = onDeinit
        super.init()
    }

    public convenience override init() { self.init(onDeinit: nil) }

    deinit { onDeinit?() }

    public func read(_ property: Int) -> Int {
        trackAccess(property)
        return value.load(ordering: .relaxed)
    }

    public func write(_ property: Int, _ value: Int) {
        let mutation = willMutate(property)
        self.value.store(value, ordering: .relaxed)
        didMutate(mutation)
    }
}

/// The locked registrar's `Row`: properties (any index) that all store one atomic value.
public final class LockedRow: LockedObject, @unchecked Sendable {
    // `@unchecked Sendable`: its stored properties are atomic or immutable (a subclass cannot be
    // checked `Sendable`).
    public let value = Atomic<Int>(0)
    /// Runs in `deinit`: user code re-entering the registrar from a release.
    private let onDeinit: (@Sendable () -> Void)?

    public init(onDeinit: (@Sendable () -> Void)?) {
        self.onDeinit = onDeinit
        super.init()
    }

    public convenience override init() { self.init(onDeinit: nil) }

    deinit { onDeinit?() }

    public func read(_ property: Int) -> Int {
        trackAccess(property)
        return value.load(ordering: .acquiring)
    }

    public func write(_ property: Int, _ newValue: Int) {
        withMutation(property) { value.store(newValue, ordering: .releasing) }
    }
}
