/// A stored property of a `TrackedObject` whose reads are tracked and whose changes notify observers.
///
/// `@Tracked(i)` takes the property's index, small and distinct within the class hierarchy.
/// Reads and writes compile to direct accesses of the storage (no key path is used at run time).
/// The setter ignores a write of an equal value, like `@Observable`'s; in-place mutation
/// (`+=`, `append`, ...) always notifies, like `@Observable`'s `_modify`.
@propertyWrapper
public struct Tracked<Value: Equatable> {
    @usableFromInline var _value: Value
    @usableFromInline let _property: UInt16

    @inlinable
    public init(wrappedValue: Value, _ property: Int) {
        precondition(property >= 0 && property < TrackedObject.propertyLimit, "property index out of range")
        _value = wrappedValue
        _property = UInt16(property)
    }

    /// For a property declared without a default value: `_author = Tracked(author, 1)` in `init`.
    @inlinable
    public init(_ value: Value, _ property: Int) {
        self.init(wrappedValue: value, property)
    }

    @available(*, unavailable, message: "@Tracked is only available on properties of a TrackedObject subclass")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    @inlinable
    public static subscript<EnclosingSelf: TrackedObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        // The key paths are literals that the optimiser folds into direct field accesses. Each
        // access of the storage is instantaneous (no call inside it), so no dynamic exclusivity
        // check is emitted; the registrar is called between them.
        // The read is recorded before the value is loaded, the write announced before the store
        // and ended after it: the order the lost-change argument needs (`TrackedObject._writes`).
        @inline(__always) get {
            object.trackAccess(Int(object[keyPath: storageKeyPath]._property))
            return object[keyPath: storageKeyPath]._value
        }
        @inline(__always) set {
            let property = Int(object[keyPath: storageKeyPath]._property)
            if object[keyPath: storageKeyPath]._value == newValue { return }
            let mutation = object.willMutate(property)
            object[keyPath: storageKeyPath]._value = newValue
            object.didMutate(mutation)
        }
        @_transparent _modify {
            let property = Int(object[keyPath: storageKeyPath]._property)
            object.trackAccess(property)
            let mutation = object.willMutate(property)
            defer { object.didMutate(mutation) }
            yield &object[keyPath: storageKeyPath]._value
        }
    }
}
