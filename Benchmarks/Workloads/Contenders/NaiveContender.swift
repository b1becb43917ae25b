import LockFreeObservation
import Synchronization

/// Publish-everything, object level, the way `ObservableObject` apps work: nothing tracks reads; a
/// view subscribes to the objects it holds; every write (setter or in-place, equal value or not)
/// publishes at willSet to all of the object's subscribers; a parent republishes its children's
/// changes (a `Book` its `Author`'s, a `Library` every `Book`'s). Hand-written and efficient: a
/// subscriber array and the parent links behind one `Mutex` per object, no Combine, no allocation
/// per publish.
public enum Naive: Contender {
    public static let name = "naive"
    public static let isFineGrained = false

    /// The publisher every naive model inherits.
    public class Publisher {
        /// `@unchecked Sendable`: observers are called under the lock on whichever thread publishes,
        /// as `objectWillChange` subscribers are; the workloads' observers only mark views dirty.
        struct State: @unchecked Sendable {
            var subscribers: ContiguousArray<(id: Int, observer: any ChangeObserver)> = []
            var nextID = 0
            /// Objects that republish this one's changes. Unowned: a parent unlinks itself before it
            /// goes away (`Book.deinit`, `Library.deinit`).
            var parents: ContiguousArray<Unmanaged<Publisher>> = []
        }
        let state = Mutex(State())

        init() {}

        /// objectWillChange: notifies every subscriber, then every parent republishes. Callbacks run
        /// under this object's lock, so they must not subscribe to or unsubscribe from it.
        public final func publish() {
            state.withLock { state in
                for subscriber in state.subscribers { subscriber.observer.observedValueWillChange() }
                for parent in state.parents { parent.takeUnretainedValue().publish() }
            }
        }

        @usableFromInline
        final func subscribe(_ observer: any ChangeObserver) -> Int {
            let observer = UncheckedSendable(observer)
            return state.withLock { state in
                state.nextID += 1
                state.subscribers.append((state.nextID, observer.value))
                return state.nextID
            }
        }

        @usableFromInline
        final func unsubscribe(_ id: Int) {
            state.withLock { state in
                if let i = state.subscribers.firstIndex(where: { $0.id == id }) { state.subscribers.remove(at: i) }
            }
        }

        final func link(parent: Publisher) {
            let parent = UncheckedSendable(Unmanaged.passUnretained(parent))
            state.withLock { $0.parents.append(parent.value) }
        }

        final func unlink(parent: Publisher) {
            let address = UInt(bitPattern: Unmanaged.passUnretained(parent).toOpaque())
            state.withLock { state in
                if let i = state.parents.firstIndex(where: { UInt(bitPattern: $0.toOpaque()) == address }) {
                    state.parents.remove(at: i)
                }
            }
        }
    }

    public final class Author: Publisher, AuthorModel {
        private var _name: String
        public var name: String {
            get { _name }
            set {
                publish()
                _name = newValue
            }
        }
        public init(name: String) { _name = name }
    }

    public final class Book: Publisher, BookModel {
        public let id: Int
        private var _title: String
        private var _author: Author
        private var _isAvailable: Bool
        private var _isSelected = false

        public var title: String {
            get { _title }
            set {
                publish()
                _title = newValue
            }
        }
        public var isAvailable: Bool {
            get { _isAvailable }
            set {
                publish()
                _isAvailable = newValue
            }
        }
        public var isSelected: Bool {
            get { _isSelected }
            set {
                publish()
                _isSelected = newValue
            }
        }
        public var author: Author {
            get { _author }
            set {
                publish()
                _author.unlink(parent: self)
                _author = newValue
                newValue.link(parent: self)
            }
        }

        public init(id: Int, title: String, author: Author, isAvailable: Bool) {
            self.id = id
            _title = title
            _author = author
            _isAvailable = isAvailable
            super.init()
            author.link(parent: self)
        }

        deinit { _author.unlink(parent: self) }
    }

    public final class Library: Publisher, LibraryModel {
        private var _books: [Book]
        private var _selectedID = -1

        /// Replacing the array relinks the books that differ (common prefix and suffix skipped).
        /// There is no `_modify`: in-place edits go through `insert`, `remove` and `swapAt`, which
        /// publish, mutate in place and link or unlink just the book concerned.
        public var books: [Book] {
            get { _books }
            set {
                publish()
                relink(from: _books, to: newValue)
                _books = newValue
            }
        }

        public func insert(_ book: Book, at index: Int) {
            publish()
            _books.insert(book, at: index)
            book.link(parent: self)
        }

        public func remove(at index: Int) -> Book {
            publish()
            let book = _books.remove(at: index)
            book.unlink(parent: self)
            return book
        }

        public func swapAt(_ i: Int, _ j: Int) {
            publish()
            _books.swapAt(i, j)
        }

        public var selectedID: Int {
            get { _selectedID }
            set {
                publish()
                _selectedID = newValue
            }
        }

        public init(books: [Book]) {
            _books = books
            super.init()
            for book in books { book.link(parent: self) }
        }

        deinit { for book in _books { book.unlink(parent: self) } }

        public var availableBooksCount: Int {
            var count = 0
            for book in _books where book.isAvailable { count += 1 }
            return count
        }

        /// Relinks only where the arrays differ (a common prefix and suffix are skipped), so an
        /// append, a removal or a swap costs the changed range, not the whole collection.
        private func relink(from old: [Book], to new: [Book]) {
            var prefix = 0
            while prefix < old.count && prefix < new.count && old[prefix] === new[prefix] { prefix += 1 }
            var suffix = 0
            while suffix < old.count - prefix && suffix < new.count - prefix
                && old[old.count - 1 - suffix] === new[new.count - 1 - suffix]
            {
                suffix += 1
            }
            for book in old[prefix..<(old.count - suffix)] { book.unlink(parent: self) }
            for book in new[prefix..<(new.count - suffix)] { book.link(parent: self) }
        }
    }

    public final class Cell: Publisher, CellModel {
        private var _value: Double
        public var value: Double {
            get { _value }
            set {
                publish()
                _value = newValue
            }
        }
        public init(_ value: Double) { _value = value }
    }

    public final class Fields: Publisher, FieldsModel {
        private var values: [Int]
        public init(count: Int) { values = Array(repeating: 0, count: count) }
        public func value(at index: Int) -> Int { values[index] }
        public func setValue(_ value: Int, at index: Int) {
            publish()
            values[index] = value
        }
    }

    public final class Settings: Publisher, SettingsModel {
        private var _fontSize = 14.0
        private var _lineSpacing = 1.2
        private var _theme = 0
        public var fontSize: Double {
            get { _fontSize }
            set {
                publish()
                _fontSize = newValue
            }
        }
        public var lineSpacing: Double {
            get { _lineSpacing }
            set {
                publish()
                _lineSpacing = newValue
            }
        }
        public var theme: Int {
            get { _theme }
            set {
                publish()
                _theme = newValue
            }
        }
        public override init() {}
    }

    public final class Record: Publisher, RecordModel {
        private var _p0 = 0, _p1 = 0, _p2 = 0, _p3 = 0, _p4 = 0, _p5 = 0, _p6 = 0, _p7 = 0
        public var p0: Int {
            get { _p0 }
            set {
                publish()
                _p0 = newValue
            }
        }
        public var p1: Int {
            get { _p1 }
            set {
                publish()
                _p1 = newValue
            }
        }
        public var p2: Int {
            get { _p2 }
            set {
                publish()
                _p2 = newValue
            }
        }
        public var p3: Int {
            get { _p3 }
            set {
                publish()
                _p3 = newValue
            }
        }
        public var p4: Int {
            get { _p4 }
            set {
                publish()
                _p4 = newValue
            }
        }
        public var p5: Int {
            get { _p5 }
            set {
                publish()
                _p5 = newValue
            }
        }
        public var p6: Int {
            get { _p6 }
            set {
                publish()
                _p6 = newValue
            }
        }
        public var p7: Int {
            get { _p7 }
            set {
                publish()
                _p7 = newValue
            }
        }
        public override init() {}
    }

    public final class ObservableState<Item>: Publisher {
        private var _item: Item
        public var item: Item {
            get { _item }
            set {
                publish()
                _item = newValue
            }
            _modify {
                publish()
                yield &_item
            }
        }
        public init(_ item: Item) { _item = item }
    }
    public typealias SettingsState = ObservableState<SettingsValue>

    /// The objects a view is subscribed to, with their subscription ids.
    public struct Subscription {
        @usableFromInline var first: (publisher: Publisher, id: Int)?
        @usableFromInline var second: (publisher: Publisher, id: Int)?
        @usableFromInline var rest: [(publisher: Publisher, id: Int)] = []
        @usableFromInline init() {}
    }

    @inlinable
    public static func evaluate<T>(
        _ body: () -> T, holding: Holdings, observer: some ChangeObserver, subscription: inout Subscription?
    ) -> T {
        // Subscriptions last until the view is evaluated with other inputs.
        if let current = subscription, current.first?.publisher === holding.first,
            current.second?.publisher === holding.second, current.rest.count == holding.rest.count,
            zip(current.rest, holding.rest).allSatisfy({ $0.publisher === $1 })
        {
            return body()
        }
        unsubscribe(&subscription)
        var next = Subscription()
        if let held = holding.first {
            let publisher = unsafeDowncast(held, to: Publisher.self)
            next.first = (publisher, publisher.subscribe(observer))
        }
        if let held = holding.second {
            let publisher = unsafeDowncast(held, to: Publisher.self)
            next.second = (publisher, publisher.subscribe(observer))
        }
        for held in holding.rest {
            let publisher = unsafeDowncast(held, to: Publisher.self)
            next.rest.append((publisher, publisher.subscribe(observer)))
        }
        subscription = next
        return body()
    }

    @inlinable
    public static func unsubscribe(_ subscription: inout Subscription?) {
        if let (publisher, id) = subscription?.first { publisher.unsubscribe(id) }
        if let (publisher, id) = subscription?.second { publisher.unsubscribe(id) }
        for (publisher, id) in subscription?.rest ?? [] { publisher.unsubscribe(id) }
        subscription = nil
    }

    /// A persistent subscription to the held objects.
    public static func observeContinuously(
        _ apply: @escaping () -> Void, holding: Holdings, onChange: @escaping @Sendable () -> Void
    ) -> Cancellation {
        let observer = ClosureObserver(onChange)
        var subscription: Subscription?
        evaluate(apply, holding: holding, observer: observer, subscription: &subscription)
        let held = UncheckedSendable(subscription)
        return Cancellation {
            var subscription = held.value
            unsubscribe(&subscription)
        }
    }

    final class ClosureObserver: ChangeObserver {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        func observedValueWillChange() { body() }
    }
}

extension Naive.ObservableState: SettingsStateModel where Item == SettingsValue {}
