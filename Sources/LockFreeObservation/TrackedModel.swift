/// Tracks every stored `var` of a `TrackedObject` subclass, as Observation's `@Observable` does:
/// reads are recorded by the running tracking scope, writes tell the scopes that read them.
///
/// ```swift
/// @TrackedModel final class Book: TrackedObject {
///     var title: String
///     var author: Author
///     @Untracked var cache: [String: Int] = [:]
///     init(title: String, author: Author) {
///         self.title = title
///         self.author = author
///     }
/// }
/// ```
///
/// Each tracked property gets its storage and accessors, and an index no other property of the
/// class hierarchy has: a model may subclass another `@TrackedModel` class. `let`, computed,
/// `static` and `lazy` properties are left alone, and ``Untracked()`` opts a stored `var` out.
/// `willSet` and `didSet` run around the store, after the scopes are told; `weak`, `unowned` and
/// implicitly unwrapped properties are tracked like any other.
///
/// Writing a value equal to the current one (`Equatable`), or the same object, stores it and tells
/// no one; in-place mutation (`+=`, `append`) always tells. The class must inherit from
/// ``TrackedObject`` (or from another model): the registrar keeps its per-object state there.
/// A `public` or `open` property gets `@inlinable` accessors, so that another module reads and
/// writes it with no call.
///
/// ## Observed by Observation too
///
/// A model that conforms to ``TrackedObservable`` (which refines `Observable`) is observed by
/// Swift's Observation as well: SwiftUI, `@Bindable`, `@Environment(Model.self)`,
/// `withObservationTracking` and `Observations` see it, and its subclasses, as an `@Observable`
/// class. Each write that changes a value tells both systems' observers, each once.
///
/// ```swift
/// @TrackedModel final class Book: TrackedObject, TrackedObservable {
///     var title = ""
/// }
/// ```
///
/// A getter costs ``TrackedObject/trackAccess(_:)`` and the load; a setter compares, then
/// ``TrackedObject/willMutate(_:)``, the store and ``TrackedObject/didMutate(_:)``. The accessors
/// synchronise nothing: a model's properties are the app's to synchronise, as an `@Observable`
/// class's are.
@attached(member, names: named(_trackedPropertyEnd), named(_observationBridge))
@attached(memberAttribute)
public macro TrackedModel() = #externalMacro(module: "LockFreeObservationMacros", type: "TrackedModelMacro")

/// Marks a stored `var` of a ``TrackedModel()`` class as not tracked, as Observation's
/// `@ObservationIgnored` does: reading it records nothing, writing it tells no one.
///
/// The property keeps the plain stored property's accessors and cost. It may mark a declaration
/// of several properties (`@Untracked var width = 0, height = 0`), which `@TrackedModel` cannot
/// track.
@attached(peer)
public macro Untracked() = #externalMacro(module: "LockFreeObservationMacros", type: "UntrackedMacro")

/// The storage and accessors of one tracked property; ``TrackedModel()`` applies it with the
/// property's index. Not for direct use.
///
/// - Parameter index: The property's index, unique in the class hierarchy.
@attached(accessor, names: named(init), named(get), named(set), named(_modify))
@attached(peer, names: prefixed(_), prefixed(_observationAccess_))
public macro _TrackedProperty(_ index: Int) =
    #externalMacro(module: "LockFreeObservationMacros", type: "TrackedPropertyMacro")

/// The storage and accessors of one tracked property of a model that Observation may observe too
/// (it lists ``TrackedObservable``, or it subclasses another model, which may): they tell
/// Observation's registrar as well where `model` conforms to ``TrackedObservable``. Not for direct
/// use.
///
/// - Parameters:
///   - index: The property's index, unique in the class hierarchy.
///   - model: The name of the class that declares the property, the root of its key path (a
///     name, not a type: the type is still being checked where the attribute is).
@attached(accessor, names: named(init), named(get), named(set), named(_modify))
@attached(peer, names: prefixed(_), prefixed(_observationAccess_))
public macro _TrackedProperty(_ index: Int, _ model: String) =
    #externalMacro(module: "LockFreeObservationMacros", type: "TrackedPropertyMacro")

// Whether a write of `new` over `old` tells the scopes that read the property: Observation's rule,
// chosen by overload resolution on the property's type where the setter is generated.

/// Whether a write of `new` over `old` tells the scopes that read the property, for a value that
/// is neither `Equatable` nor a class reference: every write tells. Called by ``TrackedModel()``'s
/// setters; not for direct use.
///
/// - Parameters:
///   - old: The property's current value.
///   - new: The value about to be stored.
/// - Returns: `true`.
@inlinable @inline(__always)
public func _trackedShouldNotify<Value>(_ old: Value, _ new: Value) -> Bool { true }

/// Whether a write of `new` over `old` tells the scopes that read the property, for an `Equatable`
/// value: a write of an equal value tells no one. Called by ``TrackedModel()``'s setters.
///
/// - Parameters:
///   - old: The property's current value.
///   - new: The value about to be stored.
/// - Returns: Whether the values differ.
@inlinable @inline(__always)
public func _trackedShouldNotify<Value: Equatable>(_ old: Value, _ new: Value) -> Bool { old != new }

/// Whether a write of `new` over `old` tells the scopes that read the property, for a class
/// reference: a write of the same object tells no one. Called by ``TrackedModel()``'s setters.
///
/// - Parameters:
///   - old: The property's current object.
///   - new: The object about to be stored.
/// - Returns: Whether they are different objects.
@inlinable @inline(__always)
public func _trackedShouldNotify<Value: AnyObject>(_ old: Value, _ new: Value) -> Bool { old !== new }

/// Whether a write of `new` over `old` tells the scopes that read the property, for an `Equatable`
/// class: its own equality decides. Called by ``TrackedModel()``'s setters.
///
/// - Parameters:
///   - old: The property's current object.
///   - new: The object about to be stored.
/// - Returns: Whether the objects are unequal.
@inlinable @inline(__always)
public func _trackedShouldNotify<Value: Equatable & AnyObject>(_ old: Value, _ new: Value) -> Bool { old != new }
