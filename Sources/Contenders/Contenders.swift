/// Every contender. To add one: write `MyContender.swift` (models + the `Contender` functions) and
/// add it here; workloads and `bench` pick it up by name.
public enum Contenders {
    public static var all: [any Contender.Type] { [LockFree.self, Apple.self, Naive.self] }

    public static var names: [String] { all.map { $0.name } }
}
