import LockFreeObservation

/// An observation system under test. Workloads are written once, generic over `Contender`, and run
/// with each contender's own idiomatic models and its own way of subscribing a view.
///
/// Adding a contender is one file (models conforming to the model protocols, plus this protocol's
/// three functions) and one line in `Contenders.all`.
public protocol Contender: SendableMetatype {
    /// The name used on the command line and in results (`lockfree`, `apple`, `naive`).
    static var name: String { get }
    /// Whether the contender tracks reads (fine-grained) rather than publishing whole objects.
    static var isFineGrained: Bool { get }

    associatedtype Author: AuthorModel
    associatedtype Book: BookModel where Book.Author == Author
    associatedtype Library: LibraryModel where Library.Book == Book
    associatedtype Cell: CellModel
    associatedtype Fields: FieldsModel
    associatedtype Settings: SettingsModel
    associatedtype Record: RecordModel
    associatedtype SettingsState: SettingsStateModel

    /// What a view keeps between evaluations to stay subscribed.
    associatedtype Subscription

    /// Evaluates a view's body and subscribes `observer` to what it depends on: the properties the
    /// body reads (fine-grained contenders), or the objects the view holds (`naive`). Replaces the
    /// view's previous subscription. `observer` is told, once, before the first relevant change
    /// (a one-shot contender) or before every published change (`naive`).
    static func evaluate<T>(
        _ body: () -> T, holding: Holdings, observer: some ChangeObserver, subscription: inout Subscription?
    ) -> T

    /// Ends a view's subscription (the view is unmounted).
    static func unsubscribe(_ subscription: inout Subscription?)

    /// Observation outside views: calls `onChange` before every change of what `apply` reads (or of
    /// the held objects, for `naive`), until the returned cancellation is called.
    static func observeContinuously(
        _ apply: @escaping () -> Void, holding: Holdings, onChange: @escaping @Sendable () -> Void
    ) -> Cancellation
}

/// The objects a view holds (its inputs and environment objects), as `@ObservedObject` would mark
/// them. Every contender receives them; only `naive` subscribes to them. Up to two without
/// allocating; more in `rest`.
public struct Holdings {
    public var first: AnyObject?
    public var second: AnyObject?
    public var rest: [AnyObject]

    public init(_ first: AnyObject? = nil, _ second: AnyObject? = nil) {
        self.first = first
        self.second = second
        self.rest = []
    }

    /// Holdings of any number of objects.
    public init(all objects: [AnyObject]) {
        first = objects.first
        second = objects.count > 1 ? objects[1] : nil
        rest = objects.count > 2 ? Array(objects[2...]) : []
    }

}

/// Stops a continuous observation.
public struct Cancellation {
    let body: () -> Void
    public init(_ body: @escaping () -> Void) { self.body = body }
    public func cancel() { body() }
}

/// A reference that may cross to another thread. `@unchecked Sendable`: used only for observers that
/// the workloads drive from one thread at a time, or whose callbacks touch only atomics.
public struct UncheckedSendable<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}
