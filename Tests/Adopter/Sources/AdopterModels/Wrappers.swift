import LockFreeObservation
import Observation

/// A generic state wrapper, as apps write around `@Observable`: the wrapped item, a `didSet` that
/// counts changes, and a plain subclass that adds behaviour and no stored property.
@TrackedModel open class ObservableState<Item>: TrackedObject {
    public var item: Item {
        didSet { changes += 1 }
    }
    public private(set) var changes = 0

    public init(_ item: Item) {
        self.item = item
        super.init()
    }
}

public final class Counter: ObservableState<Int> {
    public func increment() { item += 1 }
}

/// The same wrapper on Observation, the rules' reference.
@Observable open class ObservationState<Item> {
    public var item: Item {
        didSet { changes += 1 }
    }
    public private(set) var changes = 0

    public init(_ item: Item) { self.item = item }
}

/// A generic model with a constrained parameter: its `Equatable` values are compared.
@TrackedModel public final class Box<Value: Equatable & Sendable>: TrackedObject {
    public var value: Value

    public init(_ value: Value) {
        self.value = value
        super.init()
    }
}

/// An app's view model on the main actor.
@MainActor @TrackedModel public final class ViewModel: TrackedObject {
    public var title = ""
    public private(set) var isLoading = false

    public override init() { super.init() }

    public func load() async {
        isLoading = true
        await Task.yield()
        title = "Loaded"
        isLoading = false
    }
}

/// A model shared across tasks: `@unchecked Sendable`, its writes serialised by its owner.
@TrackedModel public final class SharedCounter: TrackedObject, @unchecked Sendable {
    public var value = 0

    public override init() { super.init() }
}

/// A model whose deinit reads one of its tracked properties.
@TrackedModel public final class Closing: TrackedObject {
    public var name = "open"
    private let onDeinit: @Sendable (String) -> Void

    public init(onDeinit: @escaping @Sendable (String) -> Void) {
        self.onDeinit = onDeinit
        super.init()
    }

    deinit { onDeinit(name) }
}

/// `SharedCounter` on Observation, the streams' reference.
@Observable public final class ObservedCounter: @unchecked Sendable {
    // `@unchecked Sendable`: its writes are serialised by its owner.
    public var value = 0

    public init() {}
}
