import CLockedTracking
import CTrackingSupport
import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockFreeObservation
@testable import LockedObservation

// The promises both registrars make, as one suite run against each: every test takes a
// `Registrar` argument and checks its body on that registrar's types (`RegistrarUnderTest`).
// A check of internal state goes through a hook each registrar answers from its own state
// (`lead(of:)`, `dependency(_:_:)`, ...), so that both are held to the same value.

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
protocol RegistrarUnderTest {
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
    /// Whether a body's write that a render nested in the run (a callback of that write) reads
    /// at willSet tells the enclosing scope at its end: the lock-free registrar keeps the nested
    /// read's version (it straddled the write) and tells it once; the locked one counts the write
    /// as the body's own there (Documentation/Guarantees.md, "Re-entrancy").
    static var aNestedRenderOfTheBodysWriteTellsTheEnclosingScope: Bool { get }
    /// Whether a scope (a run, a one-shot scope) is open on the calling thread.
    static var aScopeRunsOnThisThread: Bool { get }
    /// Whether the calling thread is outside every run and scope: nothing tracked, no cursor,
    /// nothing left to release.
    static var noRunOnThisThread: Bool { get }
    /// The observers `model` holds now, every scope's.
    static func observerCount(of model: Model) -> Int
    /// The slots of `model` that `scope` holds. (Locked: the model's live slots, every scope's;
    /// the tests that ask watch each model from one scope.)
    static func slots(of model: Model, heldBy scope: Scope) -> Int
    /// The key's lead of the scope's first dependency.
    static func lead(of scope: Scope) -> UInt
    /// The scope's dependency at `index`: its object's address and its watched properties.
    static func dependency(_ scope: Scope, _ index: Int) -> (object: UnsafeMutableRawPointer?, mask: UInt64)
    /// Whether `scope`'s running run (on this thread) has put a new dependency in its last one's place.
    static func displacing(_ scope: Scope) -> Bool
    /// Straddling slots: the scope's (lock-free) or the object's (locked).
    static func straddlingSlots(_ scope: Scope, of object: Model) -> Int
    /// The slot updates the scope's last run made, where the registrar counts them (locked).
    static func lastRunSlotUpdates(_ scope: Scope) -> Int?
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

// MARK: - The lock-free registrar

extension Row: ModelUnderTest {
    var stored: Int { value.load(ordering: .relaxed) }
    func store(_ value: Int) { self.value.store(value, ordering: .relaxed) }
}

extension ReusableScope: ScopeUnderTest {}

enum LockFree: RegistrarUnderTest {
    static func scope(notifying observer: some ChangeObserver) -> ReusableScope { ReusableScope(notifying: observer) }
    static func scope(onChange: @escaping @Sendable () -> Void) -> ReusableScope { ReusableScope(onChange: onChange) }
    static var holdsItsCursor: Bool { ReusableScope.holdsItsCursor }
    static var holeMoveLimit: Int { DependencyHoles.moveLimit }
    static var holeRunLimit: Int { DependencyHoles.runLimit }

    static func slots(of model: Row, heldBy scope: ReusableScope) -> Int {
        var count = 0
        model._forEachSlotBlock { block in
            for i in 0..<block.capacity {
                let content = SlotContent(raw: block.slot(i).pointee.load(ordering: .acquiring))
                if content.raw != 0 && content.record == scope.record && content.generation == scope.generation {
                    count += 1
                }
            }
        }
        return count
    }

    static func withTracking(_ apply: () -> Void, onChange: @escaping @Sendable () -> Void) {
        LockFreeObservation.withTracking(apply, onChange: onChange)
    }
    static var aNestedRenderOfTheBodysWriteTellsTheEnclosingScope: Bool { true }
    static var aScopeRunsOnThisThread: Bool { tracking_thread_state()!.pointee.depth != 0 }

    static var noRunOnThisThread: Bool {
        let thread = tracking_thread_state()!.pointee
        return thread.depth == 0 && thread.count == 0 && thread.releasedCount == 0 && thread.run.dependencyCount == 0
    }

    /// A slot word stays until a writer or an install reclaims it: the live ones are those whose
    /// scope is still in the incarnation they were written for, armed, idle or reading.
    static func observerCount(of model: Row) -> Int {
        var count = 0
        model._forEachSlotBlock { block in
            for i in 0..<block.capacity {
                let content = SlotContent(raw: block.slot(i).pointee.load(ordering: .acquiring))
                guard content.raw != 0 else { continue }
                let state = ScopeState(raw: ScopeTable.record(content.record).pointee.state.load(ordering: .acquiring))
                if state.generation == content.generation && (state.isArmed || state.isIdle || state.isReading) {
                    count += 1
                }
            }
        }
        return count
    }

    static func lead(of scope: ReusableScope) -> UInt {
        ScopeTable.store(scope.record).pointee.dependencies.base[0].key & DependencyHead.leadBits
    }

    static func dependency(_ scope: ReusableScope, _ index: Int) -> (object: UnsafeMutableRawPointer?, mask: UInt64) {
        let head = ScopeTable.store(scope.record).pointee.dependencies.base[index]
        return (head.object, head.mask)
    }

    static func displacing(_ scope: ReusableScope) -> Bool {
        tracking_thread_state()!.pointee.run.bitsRead >= RunReads.displacement
    }

    static func straddlingSlots(_ scope: ReusableScope, of object: Row) -> Int {
        Int(ScopeTable.store(scope.record).pointee.straddling)
    }

    static func lastRunSlotUpdates(_ scope: ReusableScope) -> Int? { nil }
}

// MARK: - The locked registrar

extension LockedRow: ModelUnderTest {
    var stored: Int { value.load(ordering: .acquiring) }
    func store(_ value: Int) { self.value.store(value, ordering: .releasing) }
}

extension LockedScope: ScopeUnderTest {}

enum Locked: RegistrarUnderTest {
    static func scope(notifying observer: some ChangeObserver) -> LockedScope { LockedScope(observer) }
    static func scope(onChange: @escaping @Sendable () -> Void) -> LockedScope { LockedScope(onChange: onChange) }
    static var holdsItsCursor: Bool { LockedScope.holdsItsCursor }
    static var holeMoveLimit: Int { DependencyHoles.moveLimit }
    static var holeRunLimit: Int { DependencyHoles.runLimit }

    static func withTracking(_ apply: () -> Void, onChange: @escaping @Sendable () -> Void) {
        LockedTracking.withTracking(apply, onChange: onChange)
    }
    static var aNestedRenderOfTheBodysWriteTellsTheEnclosingScope: Bool { false }
    static var aScopeRunsOnThisThread: Bool { locked_tracking_state()!.pointee.run != nil }

    static var noRunOnThisThread: Bool {
        let thread = locked_tracking_state()!.pointee
        return thread.run == nil && thread.cursor == tracking_no_dependencies_address() && thread.dependencyCount == 0
            && thread.heldCursor == nil && thread.releasedCount == 0
    }

    static func observerCount(of model: LockedRow) -> Int { model._observerCount }

    static func slots(of model: LockedRow, heldBy scope: LockedScope) -> Int { model._observerCount }

    static func lead(of scope: LockedScope) -> UInt {
        scope.handle.core.deps.heads[0].key & DependencyHead.leadBits
    }

    static func dependency(_ scope: LockedScope, _ index: Int) -> (object: UnsafeMutableRawPointer?, mask: UInt64) {
        let dependency = scope.handle.core.deps[index]
        return (dependency.object, dependency.mask)
    }

    static func displacing(_ scope: LockedScope) -> Bool { scope.handle.core.displacing }

    static func straddlingSlots(_ scope: LockedScope, of object: LockedRow) -> Int {
        object._withObservers { $0.straddlers }
    }

    static func lastRunSlotUpdates(_ scope: LockedScope) -> Int? { scope.lastRunSlotUpdates }
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
