import LockFreeObservation

/// The suite's own lock-free tracking registrar.
public enum LockFree: Contender {
    public static let name = "lockfree"
    public static let isFineGrained = true

    // The models are declared as an adopter declares them, with `@TrackedModel`, shape for shape
    // `apple`'s `@Observable` ones. Public, from another module: the macro makes their accessors
    // `@inlinable`, as an app's models in the module that uses them inline anyway.

    @TrackedModel public final class Author: TrackedObject, AuthorModel {
        public var name: String
        public init(name: String) { self.name = name }
    }

    @TrackedModel public final class Book: TrackedObject, BookModel {
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

    @TrackedModel public final class Library: TrackedObject, LibraryModel {
        public var books: [Book]
        public var selectedID = -1

        public init(books: [Book]) { self.books = books }

        public var availableBooksCount: Int {
            var count = 0
            for book in books where book.isAvailable { count += 1 }
            return count
        }
    }

    @TrackedModel public final class Cell: TrackedObject, CellModel {
        public var value: Double
        public init(_ value: Double) { self.value = value }
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
            withMutation(index) { values[index] = value }
        }
    }

    @TrackedModel public final class Settings: TrackedObject, SettingsModel {
        public var fontSize = 14.0
        public var lineSpacing = 1.2
        public var theme = 0
        public override init() { super.init() }
    }

    @TrackedModel public final class Record: TrackedObject, RecordModel {
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

    @TrackedModel public final class ObservableState<Item: Equatable>: TrackedObject {
        public var item: Item
        public init(_ item: Item) { self.item = item }
    }
    public typealias SettingsState = ObservableState<SettingsValue>

    /// A view evaluated once (mounted, perhaps never rendered again) keeps a one-shot scope, which
    /// holds nothing after it is installed; from its second evaluation on, a view keeps one
    /// reusable scope, and the dependencies it read last time cost nothing to keep.
    public enum Subscription {
        case once(TrackingToken)
        case reusable(ReusableScope)
    }

    @inlinable
    public static func evaluate<T>(
        _ body: () -> T, holding: Holdings, observer: some ChangeObserver, subscription: inout Subscription?
    ) -> T {
        #if BENCH_SELFCHECK_EXTRA_NOTIFICATION
            let observer = _DoubleNotifier(observer)
        #endif
        let value: T
        switch subscription {
        case .reusable(let scope)?:
            value = scope.run(body)
        case .once(let token)?:
            token.cancel()
            let scope = ReusableScope(notifying: observer)
            subscription = .reusable(scope)
            value = scope.run(body)
        case nil:
            let token: TrackingToken
            (value, token) = withTracking(body, notifying: observer)
            subscription = .once(token)
        }
        #if BENCH_SELFCHECK_EXTRA_ALLOCATION
            _selfCheckAllocation()
        #endif
        return value
    }

    @inlinable
    public static func unsubscribe(_ subscription: inout Subscription?) {
        switch subscription {
        case .once(let token)?: token.cancel()
        case .reusable(let scope)?: scope.cancel()
        case nil: break
        }
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
