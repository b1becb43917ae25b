/// Every contender. To add one: write `MyContender.swift` (models + the `Contender` functions) and
/// add one line to `visitAll`; workloads and `bench` pick it up by name.
public enum Contenders {
    /// Calls `visitor` with each contender's concrete type, so that generic workload code is
    /// specialised for each contender (no witness-table dispatch in the measured code).
    @inlinable
    public static func visitAll<V: ContenderVisitor>(_ visitor: V) -> [V.Result] {
        [
            visitor.visit(LockFree.self),
            visitor.visit(Locked.self),
            visitor.visit(Apple.self),
            visitor.visit(Naive.self),
            visitor.visit(Bridged.self),
            visitor.visit(BridgedScopes.self),
        ]
    }

    /// The contenders' types, in `visitAll` order.
    public static var all: [any Contender.Type] { visitAll(TypeCollector()) }

    public static var names: [String] { all.map { $0.name } }

    public struct TypeCollector: ContenderVisitor {
        public init() {}
        public func visit<C: Contender>(_: C.Type) -> any Contender.Type { C.self }
    }
}

/// Generic code to run once per contender with its concrete type.
public protocol ContenderVisitor {
    associatedtype Result
    func visit<C: Contender>(_: C.Type) -> Result
}
