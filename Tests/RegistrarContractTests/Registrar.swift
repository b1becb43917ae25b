import LockFreeObservation
import RegistrarTestSupport
import Synchronization
import Testing

// The promises both registrars make, as one suite run against each: every test takes a
// `Registrar` argument and checks its body on that registrar's types (`RegistrarUnderTest`).
// A check of internal state goes through a hook each registrar answers from its own state
// (`lead(of:)`, `dependency(_:_:)`, ...; `LockFreeRegistrar.swift`, `LockedRegistrar.swift`, each
// importing its registrar alone: both compile the same scope types), so that both are held to the
// same value.

/// Every suite of this target, run one test at a time, as `RegistrarTests` in the lock-free
/// registrar's target: a test's counts must not see another test's scopes.
@Suite(.serialized) struct ContractTests {}

/// A model of the registrar under test: its properties (any index) all store one atomic value.
protocol ModelUnderTest: AnyObject, Sendable {
    associatedtype Mutation
    init()
    /// A model whose `deinit` runs `onDeinit`.
    init(onDeinit: (@Sendable () -> Void)?)
    func read(_ property: Int) -> Int
    func write(_ property: Int, _ value: Int)
    func willMutate(_ property: Int) -> Mutation
    func didMutate(_ mutation: Mutation)
    /// The value, untracked.
    var stored: Int { get }
    /// Stores `value` untold: the store between a `willMutate` and its `didMutate`.
    func store(_ value: Int)
}

/// A reusable scope of the registrar under test.
protocol ScopeUnderTest: SendableMetatype {
    func run<T>(_ body: () throws -> T) rethrows -> T
    @discardableResult func cancel() -> Bool
    var isArmed: Bool { get }
    var dependencyCount: Int { get }
    var holeCount: Int { get }
}

/// A registrar under test: its model and scope, and its answers about its own state.
protocol RegistrarUnderTest: SendableMetatype {
    associatedtype Model: ModelUnderTest
    associatedtype Scope: ScopeUnderTest
    static func scope(notifying observer: some ChangeObserver) -> Scope
    static func scope(onChange: @escaping @Sendable () -> Void) -> Scope
    /// Whether the calling thread's run holds its cursor (looked at the writes in flight and
    /// found one).
    static var holdsItsCursor: Bool { get }
    /// A removal this far from a long list's end leaves a hole.
    static var holeMoveLimit: Int { get }
    /// Runs in a row that may end with holes left; the next closes them up.
    static var holeRunLimit: Int { get }

    /// A one-shot scope: tracks what `apply` reads, calls `onChange` once at the first change.
    static func withTracking(_ apply: () -> Void, onChange: @escaping @Sendable () -> Void)
    /// Whether a scope (a run, a one-shot scope) is open on the calling thread.
    static var aScopeRunsOnThisThread: Bool { get }
    /// Whether the calling thread is outside every run and scope: nothing tracked, no cursor,
    /// nothing left to release.
    static var noRunOnThisThread: Bool { get }
    /// The observers `model` holds now, every scope's.
    static func observerCount(of model: Model) -> Int
    /// The slots of `model` that `scope` holds.
    static func slots(of model: Model, heldBy scope: Scope) -> Int
    /// The key's lead of the scope's first dependency.
    static func lead(of scope: Scope) -> UInt
    /// The scope's dependency at `index`: its object's address and its watched properties.
    static func dependency(_ scope: Scope, _ index: Int) -> (object: UnsafeMutableRawPointer?, mask: UInt64)
    /// Whether `scope`'s running run (on this thread) has put a new dependency in its last one's place.
    static func displacing(_ scope: Scope) -> Bool
    /// The scope's straddling dependencies.
    static func straddlingSlots(_ scope: Scope, of object: Model) -> Int
}

/// The registrars every contract test runs against.
enum Registrar: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case lockFree, locked

    var type: any RegistrarUnderTest.Type {
        switch self {
        case .lockFree: LockFree.self
        case .locked: Locked.self
        }
    }

    var testDescription: String { rawValue }
}

// MARK: - Fixtures over any registrar

extension RegistrarUnderTest {
    /// A write by another thread, joined before the caller goes on.
    static func writeElsewhere(_ model: Model, _ property: Int, _ value: Int) {
        let shared = Unchecked(model)
        onNewThread { shared.value.write(property, value) }
    }
}

/// A model watched by a scope of its own, with an observed write of its property 1 begun on
/// another thread and left in flight until `endWrite(storing:)`: every run that begins meanwhile
/// holds its cursor.
struct KeptRowWithAWriteInFlight<R: RegistrarUnderTest> {
    let row = R.Model()
    let observer = CountingObserver()
    let scope: R.Scope
    private let pending = Pending<R.Model.Mutation>()

    init() {
        scope = R.scope(notifying: observer)
        for _ in 0..<2 { _ = scope.run { [row] in row.read(1) } }
        let (shared, pending) = (Unchecked(row), pending)
        onNewThread { pending.mutation = shared.value.willMutate(1) }
    }

    func endWrite(storing value: Int) {
        let (shared, pending) = (Unchecked(row), pending)
        onNewThread {
            shared.value.store(value)
            shared.value.didMutate(pending.mutation!)
        }
    }
}

/// A write begun on one thread and ended on another.
final class Pending<Mutation>: @unchecked Sendable {
    // `@unchecked Sendable`: set and read on threads joined in between.
    var mutation: Mutation?
}
