import LockFreeObservation

/// The suite's own lock-free tracking registrar.
public enum LockFree: Contender {
    public static let name = "lockfree"
    public static let isFineGrained = true

    public final class Author: TrackedObject, AuthorModel {
        @Tracked(0) public var name = ""
        public init(name: String) {
            super.init()
            self.name = name
        }
    }

    public final class Book: TrackedObject, BookModel {
        public let id: Int
        @Tracked(0) public var title = ""
        @Tracked public var author: Author
        @Tracked(2) public var isAvailable = true
        @Tracked(3) public var isSelected = false

        public init(id: Int, title: String, author: Author, isAvailable: Bool) {
            self.id = id
            _author = Tracked(author, 1)
            super.init()
            self.title = title
            self.isAvailable = isAvailable
        }
    }

    public final class Library: TrackedObject, LibraryModel {
        @Tracked(0) public var books: [Book] = []
        @Tracked(1) public var selectedID = -1

        public init(books: [Book]) {
            super.init()
            self.books = books
        }

        public var availableBooksCount: Int {
            var count = 0
            for book in books where book.isAvailable { count += 1 }
            return count
        }
    }

    public final class Cell: TrackedObject, CellModel {
        @Tracked(0) public var value = 0.0
        public init(_ value: Double) {
            super.init()
            self.value = value
        }
    }

    /// `count` properties with indices 0..<count, declared by hand with the registrar's primitives.
    public final class Fields: TrackedObject, FieldsModel {
        private var values: [Int]
        public init(count: Int) {
            values = Array(repeating: 0, count: count)
            super.init()
        }
        public func value(at index: Int) -> Int {
            trackAccess(index)
            return values[index]
        }
        public func setValue(_ value: Int, at index: Int) {
            if values[index] == value { return }
            trackMutation(index)
            values[index] = value
        }
    }

    public final class Settings: TrackedObject, SettingsModel {
        @Tracked(0) public var fontSize = 14.0
        @Tracked(1) public var lineSpacing = 1.2
        @Tracked(2) public var theme = 0
        public override init() { super.init() }
    }

    public final class Record: TrackedObject, RecordModel {
        @Tracked(0) public var p0 = 0
        @Tracked(1) public var p1 = 0
        @Tracked(2) public var p2 = 0
        @Tracked(3) public var p3 = 0
        @Tracked(4) public var p4 = 0
        @Tracked(5) public var p5 = 0
        @Tracked(6) public var p6 = 0
        @Tracked(7) public var p7 = 0
        public override init() { super.init() }
    }

    public final class ObservableState<Item: Equatable>: TrackedObject {
        @Tracked public var item: Item
        public init(_ item: Item) {
            _item = Tracked(item, 0)
            super.init()
        }
    }
    public typealias SettingsState = ObservableState<SettingsValue>

    public typealias Subscription = TrackingToken

    public static func evaluate<T>(
        _ body: () -> T, holding: Holdings, observer: some ChangeObserver, subscription: inout TrackingToken?
    ) -> T {
        subscription?.cancel()
        let (value, token) = withTracking(body, notifying: observer)
        subscription = token
        return value
    }

    public static func unsubscribe(_ subscription: inout TrackingToken?) {
        subscription?.cancel()
        subscription = nil
    }

    public static func observeContinuously(
        _ apply: @escaping () -> Void, holding: Holdings, onChange: @escaping @Sendable () -> Void
    ) -> Cancellation {
        let token = observeChanges(apply, onChange: onChange)
        return Cancellation { token.cancel() }
    }
}

extension LockFree.ObservableState: SettingsStateModel where Item == SettingsValue {}
