import LockFreeObservation
import LockedObservation

/// The ablation: the lock-free registrar's design (inline state, masks, slots, dependency reuse)
/// with each object's observer state behind a lock (`LockedObservation`). Against `lockfree` it
/// tells how much of the win is lock-freedom and how much is the design.
public enum Locked: Contender {
    public static let name = "locked"
    public static let isFineGrained = true

    // The models are `lockfree`'s, shape for shape: the same property indices, the same
    // `@inlinable` accessors and `@exclusivity(unchecked)` storage (see LockFreeContender.swift for
    // why), spelled with this registrar's primitives. The getters call `trackAccess` directly: the
    // gate's fault injections (FaultInjections.swift) are compiled into `lockfree` only.

    public final class Author: LockedObject, AuthorModel {
        @usableFromInline @exclusivity(unchecked) var _name: String
        @inlinable public var name: String {
            get { trackAccess(0); return _name }
            @inline(__always) set { if _name != newValue { withMutation(0) { _name = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_name }
        }
        public init(name: String) { _name = name }
    }

    public final class Book: LockedObject, BookModel {
        public let id: Int
        @usableFromInline @exclusivity(unchecked) var _title: String
        @usableFromInline @exclusivity(unchecked) var _author: Author
        @usableFromInline @exclusivity(unchecked) var _isAvailable: Bool
        @usableFromInline @exclusivity(unchecked) var _isSelected = false

        @inlinable public var title: String {
            get { trackAccess(0); return _title }
            @inline(__always) set { if _title != newValue { withMutation(0) { _title = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_title }
        }
        @inlinable public var author: Author {
            get { trackAccess(1); return _author }
            set { if _author !== newValue { withMutation(1) { _author = newValue } } }
        }
        @inlinable public var isAvailable: Bool {
            get { trackAccess(2); return _isAvailable }
            set { if _isAvailable != newValue { withMutation(2) { _isAvailable = newValue } } }
            _modify { trackAccess(2); let mutation = willMutate(2); defer { didMutate(mutation) }; yield &_isAvailable }
        }
        @inlinable public var isSelected: Bool {
            get { trackAccess(3); return _isSelected }
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

    public final class Library: LockedObject, LibraryModel {
        @usableFromInline @exclusivity(unchecked) var _books: [Book]
        @usableFromInline @exclusivity(unchecked) var _selectedID = -1

        @inlinable public var books: [Book] {
            get { trackAccess(0); return _books }
            set { if _books != newValue { withMutation(0) { _books = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_books }
        }
        @inlinable public var selectedID: Int {
            get { trackAccess(1); return _selectedID }
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

    public final class Cell: LockedObject, CellModel {
        @usableFromInline @exclusivity(unchecked) var _value: Double
        @inlinable public var value: Double {
            get { trackAccess(0); return _value }
            set { if _value != newValue { withMutation(0) { _value = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_value }
        }
        public init(_ value: Double) { _value = value }
    }

    /// `count` properties with indices 0..<count, declared by hand with the registrar's primitives.
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

    public final class Settings: LockedObject, SettingsModel {
        @usableFromInline @exclusivity(unchecked) var _fontSize = 14.0
        @inlinable public var fontSize: Double {
            get { trackAccess(0); return _fontSize }
            set { if _fontSize != newValue { withMutation(0) { _fontSize = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_fontSize }
        }
        @usableFromInline @exclusivity(unchecked) var _lineSpacing = 1.2
        @inlinable public var lineSpacing: Double {
            get { trackAccess(1); return _lineSpacing }
            set { if _lineSpacing != newValue { withMutation(1) { _lineSpacing = newValue } } }
            _modify { trackAccess(1); let mutation = willMutate(1); defer { didMutate(mutation) }; yield &_lineSpacing }
        }
        @usableFromInline @exclusivity(unchecked) var _theme = 0
        @inlinable public var theme: Int {
            get { trackAccess(2); return _theme }
            set { if _theme != newValue { withMutation(2) { _theme = newValue } } }
            _modify { trackAccess(2); let mutation = willMutate(2); defer { didMutate(mutation) }; yield &_theme }
        }
        public override init() { super.init() }
    }

    public final class Record: LockedObject, RecordModel {
        @usableFromInline @exclusivity(unchecked) var _p0 = 0
        @inlinable public var p0: Int {
            get { trackAccess(0); return _p0 }
            set { if _p0 != newValue { withMutation(0) { _p0 = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_p0 }
        }
        @usableFromInline @exclusivity(unchecked) var _p1 = 0
        @inlinable public var p1: Int {
            get { trackAccess(1); return _p1 }
            set { if _p1 != newValue { withMutation(1) { _p1 = newValue } } }
            _modify { trackAccess(1); let mutation = willMutate(1); defer { didMutate(mutation) }; yield &_p1 }
        }
        @usableFromInline @exclusivity(unchecked) var _p2 = 0
        @inlinable public var p2: Int {
            get { trackAccess(2); return _p2 }
            set { if _p2 != newValue { withMutation(2) { _p2 = newValue } } }
            _modify { trackAccess(2); let mutation = willMutate(2); defer { didMutate(mutation) }; yield &_p2 }
        }
        @usableFromInline @exclusivity(unchecked) var _p3 = 0
        @inlinable public var p3: Int {
            get { trackAccess(3); return _p3 }
            set { if _p3 != newValue { withMutation(3) { _p3 = newValue } } }
            _modify { trackAccess(3); let mutation = willMutate(3); defer { didMutate(mutation) }; yield &_p3 }
        }
        @usableFromInline @exclusivity(unchecked) var _p4 = 0
        @inlinable public var p4: Int {
            get { trackAccess(4); return _p4 }
            set { if _p4 != newValue { withMutation(4) { _p4 = newValue } } }
            _modify { trackAccess(4); let mutation = willMutate(4); defer { didMutate(mutation) }; yield &_p4 }
        }
        @usableFromInline @exclusivity(unchecked) var _p5 = 0
        @inlinable public var p5: Int {
            get { trackAccess(5); return _p5 }
            set { if _p5 != newValue { withMutation(5) { _p5 = newValue } } }
            _modify { trackAccess(5); let mutation = willMutate(5); defer { didMutate(mutation) }; yield &_p5 }
        }
        @usableFromInline @exclusivity(unchecked) var _p6 = 0
        @inlinable public var p6: Int {
            get { trackAccess(6); return _p6 }
            set { if _p6 != newValue { withMutation(6) { _p6 = newValue } } }
            _modify { trackAccess(6); let mutation = willMutate(6); defer { didMutate(mutation) }; yield &_p6 }
        }
        @usableFromInline @exclusivity(unchecked) var _p7 = 0
        @inlinable public var p7: Int {
            get { trackAccess(7); return _p7 }
            set { if _p7 != newValue { withMutation(7) { _p7 = newValue } } }
            _modify { trackAccess(7); let mutation = willMutate(7); defer { didMutate(mutation) }; yield &_p7 }
        }
        public override init() { super.init() }
    }

    public final class ObservableState<Item: Equatable>: LockedObject {
        @usableFromInline @exclusivity(unchecked) var _item: Item
        @inlinable public var item: Item {
            get { trackAccess(0); return _item }
            set { if _item != newValue { withMutation(0) { _item = newValue } } }
            _modify { trackAccess(0); let mutation = willMutate(0); defer { didMutate(mutation) }; yield &_item }
        }
        public init(_ item: Item) { _item = item }
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
