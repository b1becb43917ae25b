import LockFreeObservation
import LockedObservation

/// The ablation: the lock-free registrar's design (inline state, masks, slots, dependency reuse)
/// with each object's observer state behind a lock (`LockedObservation`). Against `lockfree` it
/// tells how much of the win is lock-freedom and how much is the design.
public enum Locked: Contender {
    public static let name = "locked"
    public static let isFineGrained = true

    // The models are `lockfree`'s, shape for shape, declared with the same `@TrackedModel`: its
    // accessors call this registrar's primitives, which have the same names.

    @TrackedModel public final class Author: LockedObject, AuthorModel {
        public var name: String
        public init(name: String) { self.name = name }
    }

    @TrackedModel public final class Book: LockedObject, BookModel {
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

    @TrackedModel public final class Library: LockedObject, LibraryModel {
        public var books: [Book]
        public var selectedID = -1

        public init(books: [Book]) { self.books = books }

        public var availableBooksCount: Int {
            var count = 0
            for book in books where book.isAvailable { count += 1 }
            return count
        }
    }

    @TrackedModel public final class Cell: LockedObject, CellModel {
        public var value: Double
        public init(_ value: Double) { self.value = value }
    }

    public final class Fields: LockedObject, FieldsModel {
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

    @TrackedModel public final class Settings: LockedObject, SettingsModel {
        public var fontSize = 14.0
        public var lineSpacing = 1.2
        public var theme = 0
        public override init() { super.init() }
    }

    @TrackedModel public final class Record: LockedObject, RecordModel {
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

    @TrackedModel public final class ObservableState<Item: Equatable>: LockedObject {
        public var item: Item
        public init(_ item: Item) { self.item = item }
    }
    public typealias SettingsState = ObservableState<SettingsValue>

    public typealias Subscription = LockedScope

    /// A view keeps one scope for its lifetime and re-runs it at each evaluation, so that its kept
    /// dependencies cost no lock (dependency reuse); a new observer gets a new scope.
    @inlinable
    public static func evaluate<T>(
        _ body: () -> T, holding: Holdings, observer: some ChangeObserver, subscription: inout LockedScope?
    ) -> T {
        if let scope = subscription, scope.isNotifying(observer) { return scope.run(body) }
        subscription?.cancel()
        let scope = LockedScope(observer)
        subscription = scope
        return scope.run(body)
    }

    @inlinable
    public static func unsubscribe(_ subscription: inout LockedScope?) {
        subscription?.cancel()
        subscription = nil
    }

    public static func observeContinuously(
        _ apply: @escaping () -> Void, holding: Holdings, onChange: @escaping @Sendable () -> Void
    ) -> Cancellation {
        let token = LockedTracking.observeChanges(apply, onChange: onChange)
        return Cancellation { token.cancel() }
    }
}

extension Locked.ObservableState: SettingsStateModel where Item == SettingsValue {}
