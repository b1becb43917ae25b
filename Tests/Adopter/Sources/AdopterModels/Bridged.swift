import LockFreeObservation
import Observation

// Models that SwiftUI would observe: each conforms to `TrackedObservable`, so that Observation
// (`withObservationTracking`, `Observations`, and SwiftUI's `@Bindable`, `@Environment`) sees them
// too, from this module and any other.

/// A public model with a read-only-from-outside property, as a view model exposes its state.
@TrackedModel public final class Shelf: TrackedObject, TrackedObservable {
    public var title: String
    public private(set) var visits = 0
    public var books: [String] = []
    @Untracked public var cache: [String: Int] = [:]

    public init(title: String) {
        self.title = title
        super.init()
    }

    public func visit() { visits += 1 }
}

/// The generic wrapper of "Make @Observable Wrapper for Better State Control in Swift", bridged:
/// `didSet` counting changes, and a plain subclass.
@TrackedModel open class BridgedState<Item>: TrackedObject, TrackedObservable {
    public var item: Item {
        didSet { changes += 1 }
    }
    public private(set) var changes = 0

    public init(_ item: Item) {
        self.item = item
        super.init()
    }
}

public final class BridgedCounter: BridgedState<Int> {
    public func increment() { item += 1 }
}

/// A subclass of a bridged model, with properties of its own: Observation sees them too.
@TrackedModel open class FeaturedShelf: BridgedState<String> {
    public var badge = "new"
}

/// A main-actor view model, bridged, as a SwiftUI screen's.
@MainActor @TrackedModel public final class ScreenModel: TrackedObject, TrackedObservable {
    public var isLoading = false
    public var rows: [String] = []
    public override init() { super.init() }
}

/// Models that hold other bridged models, as a screen's state holds its rows; a property ported
/// from `@Observable` with its `@ObservationIgnored` kept.
@TrackedModel public final class Catalog: TrackedObject, TrackedObservable {
    public var featured: Shelf
    public var shelves: [Shelf]
    @ObservationIgnored public var lastOpened = 0

    public init(featured: Shelf, shelves: [Shelf] = []) {
        self.featured = featured
        self.shelves = shelves
        super.init()
    }
}

/// A model that is not bridged, whose bridged subclass is refused at compile time
/// (`Refused/BridgedSubclassOfAPlainModel.swift`, built by scripts/test.sh).
@TrackedModel open class PlainBase: TrackedObject {
    public var name = ""
    public override init() { super.init() }
}
