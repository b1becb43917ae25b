import LockFreeObservation
import Observation

/// Swift's Observation framework, with the real `@Observable` macro: the anchor of every comparison.
public enum Apple: Contender {
    public static let name = "apple"
    public static let isFineGrained = true

    @Observable public final class Author: AuthorModel {
        public var name: String
        public init(name: String) { self.name = name }
    }

    @Observable public final class Book: BookModel {
        @ObservationIgnored public let id: Int
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

    @Observable public final class Library: LibraryModel {
        public var books: [Book]
        public var selectedID = -1

        public init(books: [Book]) { self.books = books }

        public var availableBooksCount: Int {
            var count = 0
            for book in books where book.isAvailable { count += 1 }
            return count
        }
    }

    @Observable public final class Cell: CellModel {
        public var value: Double
        public init(_ value: Double) { self.value = value }
    }

    /// `count` properties declared by hand on the registrar, one key path per index, as Apple's
    /// documentation shows for custom observable storage.
    public final class Fields: FieldsModel, Observable {
        private var values: [Int]
        private let registrar = ObservationRegistrar()
        public init(count: Int) { values = Array(repeating: 0, count: count) }
        public func value(at index: Int) -> Int {
            registrar.access(self, keyPath: \Fields.values[index])
            return values[index]
        }
        public func setValue(_ value: Int, at index: Int) {
            if values[index] == value { return }
            registrar.withMutation(of: self, keyPath: \Fields.values[index]) { values[index] = value }
        }
    }

    @Observable public final class Settings: SettingsModel {
        public var fontSize = 14.0
        public var lineSpacing = 1.2
        public var theme = 0
        public init() {}
    }

    @Observable public final class Record: RecordModel {
        public var p0 = 0
        public var p1 = 0
        public var p2 = 0
        public var p3 = 0
        public var p4 = 0
        public var p5 = 0
        public var p6 = 0
        public var p7 = 0
        public init() {}
    }

    @Observable public final class ObservableState<Item> {
        public var item: Item
        public init(_ item: Item) { self.item = item }
    }
    public typealias SettingsState = ObservableState<SettingsValue>

    /// Observation has no cancellation: a view keeps a generation, and an `onChange` from an older
    /// evaluation (or after unmounting) finds it moved on and does nothing.
    public final class Subscription: @unchecked Sendable {
        // `@unchecked Sendable`: `generation` is only touched on the thread that renders the view.
        @usableFromInline var generation = 0
        @usableFromInline init() {}
    }

    @inlinable
    public static func evaluate<T>(
        _ body: () -> T, holding: Holdings, observer: some ChangeObserver, subscription: inout Subscription?
    ) -> T {
        let current = subscription ?? Subscription()
        current.generation += 1
        subscription = current
        let generation = current.generation
        let target = UncheckedSendable(observer as any ChangeObserver)
        return withObservationTracking(body) {
            if current.generation == generation { target.value.observedValueWillChange() }
        }
    }

    @inlinable
    public static func unsubscribe(_ subscription: inout Subscription?) {
        subscription?.generation += 1
        subscription = nil
    }

    /// Continuous observation with Observation: re-arm `withObservationTracking` inside every
    /// `onChange`, which is what its users write by hand.
    public static func observeContinuously(
        _ apply: @escaping () -> Void, holding: Holdings, onChange: @escaping @Sendable () -> Void
    ) -> Cancellation {
        let state = ContinuousObservation(apply: apply, onChange: onChange)
        state.arm()
        return Cancellation { state.isCancelled = true }
    }

    final class ContinuousObservation: @unchecked Sendable {
        // `@unchecked Sendable`: the workloads mutate observed models from one thread at a time.
        let apply: () -> Void
        let onChange: @Sendable () -> Void
        var isCancelled = false

        init(apply: @escaping () -> Void, onChange: @escaping @Sendable () -> Void) {
            self.apply = apply
            self.onChange = onChange
        }

        func arm() {
            withObservationTracking(apply) { [self] in
                guard !isCancelled else { return }
                onChange()
                // onChange runs at willSet: re-arming now would read the old value and re-register
                // on the property being changed, which is what the pattern does.
                arm()
            }
        }
    }
}

extension Apple.ObservableState: SettingsStateModel where Item == SettingsValue {}
