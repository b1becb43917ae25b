import LockFreeObservation

/// The suite's own lock-free tracking registrar.
public enum LockFree: Contender {
    public static let name = "lockfree"
    public static let isFineGrained = true

    // The models spell out their accessors with the registrar's primitives (`trackRead` is
    // `trackAccess`, see FaultInjections.swift), as `@Observable`'s macro expansion does, instead
    // of using `@Tracked`: an in-place mutation (`toggle()`, `+=`,
    // `append`) through `@Tracked` from another module runs the wrapper's `_modify` coroutine
    // un-inlined, with two key-path lookups and a frame allocation. See the README.
    // The accessors are `@inlinable` because the workloads use the models from another module;
    // an app's models usually live in the module that uses them, where they inline anyway.
    // `@exclusivity(unchecked)`: `_modify` yields the storage, which would otherwise make every
    // access pay a dynamic exclusivity check (as `@Observable`'s do).
    // The `String` setters are `@inline(__always)`: the optimiser leaves them out of line for the
    // string comparison, and then an equal write pays a retain and a release of the new value
    // (two atomics) just to compare it.

    public final class Author: TrackedObject, AuthorModel {
        @usableFromInline @exclusivity(unchecked) var _name: String
        @inlinable public var name: String {
            get { trackRead(0); return _name }
            @inline(__always) set { if _name != newValue { withMutation(0) { _name = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_name }
        }
        public init(name: String) { _name = name }
    }

    public final class Book: TrackedObject, BookModel {
        public let id: Int
        @usableFromInline @exclusivity(unchecked) var _title: String
        @usableFromInline @exclusivity(unchecked) var _author: Author
        @usableFromInline @exclusivity(unchecked) var _isAvailable: Bool
        @usableFromInline @exclusivity(unchecked) var _isSelected = false

        @inlinable public var title: String {
            get { trackRead(0); return _title }
            @inline(__always) set { if _title != newValue { withMutation(0) { _title = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_title }
        }
        @inlinable public var author: Author {
            get { trackRead(1); return _author }
            set { if _author !== newValue { withMutation(1) { _author = newValue } } }
        }
        @inlinable public var isAvailable: Bool {
            get { trackRead(2); return _isAvailable }
            set { if _isAvailable != newValue { withMutation(2) { _isAvailable = newValue } } }
            _modify { trackAccess(2); let mutation = willMutate(2); defer { didMutate(mutation) }; yield &_isAvailable }
        }
        @inlinable public var isSelected: Bool {
            get { trackRead(3); return _isSelected }
            set { if _isSelected != newValue { withMutation(3) { _isSelected = newValue } } }
            _modify { trackAccess(3); let mutation = willMutate(3); defer { didMutate(mutation) }; yield &_isSelected }
        }

        public init(id: Int, title: String, author: Author, isAvailable: Bool) {
            self.id = id
            _title = title
            _author = author
            _isAvailable = isAvailable
        }
    }

    public final class Library: TrackedObject, LibraryModel {
        @usableFromInline @exclusivity(unchecked) var _books: [Book]
        @usableFromInline @exclusivity(unchecked) var _selectedID = -1

        @inlinable public var books: [Book] {
            get { trackRead(0); return _books }
            set { if _books != newValue { withMutation(0) { _books = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_books }
        }
        @inlinable public var selectedID: Int {
            get { trackRead(1); return _selectedID }
            set { if _selectedID != newValue { withMutation(1) { _selectedID = newValue } } }
            _modify { trackAccess(1); let mutation = willMutate(1); defer { didMutate(mutation) }; yield &_selectedID }
        }

        public init(books: [Book]) { _books = books }

        public var availableBooksCount: Int {
            var count = 0
            for book in books where book.isAvailable { count += 1 }
            return count
        }
    }

    public final class Cell: TrackedObject, CellModel {
        @usableFromInline @exclusivity(unchecked) var _value: Double
        @inlinable public var value: Double {
            get { trackRead(0); return _value }
            set { if _value != newValue { withMutation(0) { _value = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_value }
        }
        public init(_ value: Double) { _value = value }
    }

    /// `count` properties with indices 0..<count, declared by hand with the registrar's primitives.
    public final class Fields: TrackedObject, FieldsModel {
        private var values: [Int]
        public init(count: Int) {
            values = Array(repeating: 0, count: count)
            super.init()
        }
        public func value(at index: Int) -> Int {
            trackRead(index)
            return values[index]
        }
        public func setValue(_ value: Int, at index: Int) {
            if values[index] == value { return }
            withMutation(index) { values[index] = value }
        }
    }

    public final class Settings: TrackedObject, SettingsModel {
        @usableFromInline @exclusivity(unchecked) var _fontSize = 14.0
        @inlinable public var fontSize: Double {
            get { trackRead(0); return _fontSize }
            set { if _fontSize != newValue { withMutation(0) { _fontSize = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_fontSize }
        }
        @usableFromInline @exclusivity(unchecked) var _lineSpacing = 1.2
        @inlinable public var lineSpacing: Double {
            get { trackRead(1); return _lineSpacing }
            set { if _lineSpacing != newValue { withMutation(1) { _lineSpacing = newValue } } }
            _modify { trackAccess(1); let mutation = willMutate(1); defer { didMutate(mutation) }; yield &_lineSpacing }
        }
        @usableFromInline @exclusivity(unchecked) var _theme = 0
        @inlinable public var theme: Int {
            get { trackRead(2); return _theme }
            set { if _theme != newValue { withMutation(2) { _theme = newValue } } }
            _modify { trackAccess(2); let mutation = willMutate(2); defer { didMutate(mutation) }; yield &_theme }
        }
        public override init() { super.init() }
    }

    public final class Record: TrackedObject, RecordModel {
        @usableFromInline @exclusivity(unchecked) var _p0 = 0
        @inlinable public var p0: Int {
            get { trackRead(0); return _p0 }
            set { if _p0 != newValue { withMutation(0) { _p0 = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_p0 }
        }
        @usableFromInline @exclusivity(unchecked) var _p1 = 0
        @inlinable public var p1: Int {
            get { trackRead(1); return _p1 }
            set { if _p1 != newValue { withMutation(1) { _p1 = newValue } } }
            _modify { trackAccess(1); let mutation = willMutate(1); defer { didMutate(mutation) }; yield &_p1 }
        }
        @usableFromInline @exclusivity(unchecked) var _p2 = 0
        @inlinable public var p2: Int {
            get { trackRead(2); return _p2 }
            set { if _p2 != newValue { withMutation(2) { _p2 = newValue } } }
            _modify { trackAccess(2); let mutation = willMutate(2); defer { didMutate(mutation) }; yield &_p2 }
        }
        @usableFromInline @exclusivity(unchecked) var _p3 = 0
        @inlinable public var p3: Int {
            get { trackRead(3); return _p3 }
            set { if _p3 != newValue { withMutation(3) { _p3 = newValue } } }
            _modify { trackAccess(3); let mutation = willMutate(3); defer { didMutate(mutation) }; yield &_p3 }
        }
        @usableFromInline @exclusivity(unchecked) var _p4 = 0
        @inlinable public var p4: Int {
            get { trackRead(4); return _p4 }
            set { if _p4 != newValue { withMutation(4) { _p4 = newValue } } }
            _modify { trackAccess(4); let mutation = willMutate(4); defer { didMutate(mutation) }; yield &_p4 }
        }
        @usableFromInline @exclusivity(unchecked) var _p5 = 0
        @inlinable public var p5: Int {
            get { trackRead(5); return _p5 }
            set { if _p5 != newValue { withMutation(5) { _p5 = newValue } } }
            _modify { trackAccess(5); let mutation = willMutate(5); defer { didMutate(mutation) }; yield &_p5 }
        }
        @usableFromInline @exclusivity(unchecked) var _p6 = 0
        @inlinable public var p6: Int {
            get { trackRead(6); return _p6 }
            set { if _p6 != newValue { withMutation(6) { _p6 = newValue } } }
            _modify { trackAccess(6); let mutation = willMutate(6); defer { didMutate(mutation) }; yield &_p6 }
        }
        @usableFromInline @exclusivity(unchecked) var _p7 = 0
        @inlinable public var p7: Int {
            get { trackRead(7); return _p7 }
            set { if _p7 != newValue { withMutation(7) { _p7 = newValue } } }
            _modify { trackAccess(7); let mutation = willMutate(7); defer { didMutate(mutation) }; yield &_p7 }
        }
        public override init() { super.init() }
    }

    public final class ObservableState<Item: Equatable>: TrackedObject {
        @usableFromInline @exclusivity(unchecked) var _item: Item
        @inlinable public var item: Item {
            get { trackRead(0); return _item }
            set { if _item != newValue { withMutation(0) { _item = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_item }
        }
        public init(_ item: Item) { _item = item }
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
        _selfCheckSink = [UInt32(truncatingIfNeeded: _selfCheckSink.count)]
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
