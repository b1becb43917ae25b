import LockFreeObservation
import Observation

/// What a SwiftUI app pays for this registrar's models: `lockfree`'s models, shape for shape,
/// bridged to Observation (`TrackedObservable`), observed through Observation's own tracking, as
/// SwiftUI observes a body. Views subscribe exactly as `apple`'s do (`Apple.evaluate`): only the
/// models differ, so the two rows compare the registrars under the same tracking.
public enum Bridged: Contender {
    public static let name = "bridged"
    public static let isFineGrained = true

    @TrackedModel public final class Author: TrackedObject, TrackedObservable, AuthorModel {
        public var name: String
        public init(name: String) { self.name = name }
    }

    @TrackedModel public final class Book: TrackedObject, TrackedObservable, BookModel {
        public let id: Int
        public var title: String
        public var author: Author
        public var isAvailable: Bool
        public var isSelected = false

        public init(id: Int, title: String, author: Author, isAvailable: Bool) {
            self.id = id
            self.title = title
            self.author = author
            self.isAvailable = isAvailable
        }
    }

    @TrackedModel public final class Library: TrackedObject, TrackedObservable, LibraryModel {
        public var books: [Book]
        public var selectedID = -1

        public init(books: [Book]) { self.books = books }

        public var availableBooksCount: Int {
            var count = 0
            for book in books where book.isAvailable { count += 1 }
            return count
        }
    }

    @TrackedModel public final class Cell: TrackedObject, TrackedObservable, CellModel {
        public var value: Double
        public init(_ value: Double) { self.value = value }
    }

    /// `count` properties declared by hand: this registrar's index, and Observation's key path
    /// (`apple`'s, one per index), made only while Observation tracks the read.
    public final class Fields: TrackedObject, TrackedObservable, FieldsModel {
        public let _observationBridge = ObservationBridgeStorage()
        private var values: [Int]
        public init(count: Int) {
            values = Array(repeating: 0, count: count)
            super.init()
        }
        public func value(at index: Int) -> Int {
            trackAccess(index)
            _observationAccess(self, \Fields.values[index])
            return values[index]
        }
        public func setValue(_ value: Int, at index: Int) {
            if values[index] == value { return }
            let mutation = willMutate(index)
            _observationMutation(self, \Fields.values[index]) { values[index] = value }
            didMutate(mutation)
        }
    }

    @TrackedModel public final class Settings: TrackedObject, TrackedObservable, SettingsModel {
        public var fontSize = 14.0
        public var lineSpacing = 1.2
        public var theme = 0
        public override init() { super.init() }
    }

    @TrackedModel public final class Record: TrackedObject, TrackedObservable, RecordModel {
        public var p0 = 0
        public var p1 = 0
        public var p2 = 0
        public var p3 = 0
        public var p4 = 0
        public var p5 = 0
        public var p6 = 0
        public var p7 = 0
        public override init() { super.init() }
    }

    @TrackedModel public final class ObservableState<Item: Equatable>: TrackedObject, TrackedObservable {
        public var item: Item
        public init(_ item: Item) { self.item = item }
    }
    public typealias SettingsState = ObservableState<SettingsValue>

    public typealias Subscription = Apple.Subscription

    @inlinable
    public static func evaluate<T>(
        _ body: () -> T, holding: Holdings, observer: some ChangeObserver, subscription: inout Subscription?
    ) -> T {
        Apple.evaluate(body, holding: holding, observer: observer, subscription: &subscription)
    }

    @inlinable
    public static func unsubscribe(_ subscription: inout Subscription?) { Apple.unsubscribe(&subscription) }

    public static func observeContinuously(
        _ apply: @escaping () -> Void, holding: Holdings, onChange: @escaping @Sendable () -> Void
    ) -> Cancellation {
        Apple.observeContinuously(apply, holding: holding, onChange: onChange)
    }
}

extension Bridged.ObservableState: SettingsStateModel where Item == SettingsValue {}

/// `bridged`'s models observed only by this registrar's scopes, subscribed exactly as `lockfree`'s
/// are (`LockFree.evaluate`): what bridging costs a model that Observation never watches, against
/// `lockfree`'s unbridged ones.
public enum BridgedScopes: Contender {
    public static let name = "bridged-scopes"
    public static let isFineGrained = true

    public typealias Author = Bridged.Author
    public typealias Book = Bridged.Book
    public typealias Library = Bridged.Library
    public typealias Cell = Bridged.Cell
    public typealias Fields = Bridged.Fields
    public typealias Settings = Bridged.Settings
    public typealias Record = Bridged.Record
    public typealias SettingsState = Bridged.SettingsState
    public typealias Subscription = LockFree.Subscription

    @inlinable
    public static func evaluate<T>(
        _ body: () -> T, holding: Holdings, observer: some ChangeObserver, subscription: inout Subscription?
    ) -> T {
        LockFree.evaluate(body, holding: holding, observer: observer, subscription: &subscription)
    }

    @inlinable
    public static func unsubscribe(_ subscription: inout Subscription?) { LockFree.unsubscribe(&subscription) }

    public static func observeContinuously(
        _ apply: @escaping () -> Void, holding: Holdings, onChange: @escaping @Sendable () -> Void
    ) -> Cancellation {
        LockFree.observeContinuously(apply, holding: holding, onChange: onChange)
    }
}
