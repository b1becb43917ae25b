import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockFreeObservation

/// A model whose `deinit` runs a hook (a write, a read, a scope of its own), and counts itself.
@TrackedModel final class Dying: TrackedObject, @unchecked Sendable {
    // `@unchecked Sendable`: the hook is set at init and never changed.
    var x = 0
    let onDeinit: (Dying) -> Void
    init(onDeinit: @escaping (Dying) -> Void = { _ in }) {
        self.onDeinit = onDeinit
        super.init()
    }
    deinit { onDeinit(self) }
}

extension RegistrarTests {
    /// User code re-entering the registrar from every place the registrar runs it: bodies, nested
    /// runs, callbacks, and the deinits of objects it releases (Documentation/Guarantees.md,
    /// "Re-entrancy"). Each test names the mechanism it proves.
    @Suite struct ReentrancyTests {
        /// A dependency a run drops is released once the run has ended (`TrackingScope.releaseLater`,
        /// drained at the thread's outermost end): its deinit's write of a property the scope
        /// still watches tells the scope, as any other thread's write would. Released inside the
        /// run, the write was taken for the body's own and lost.
        @Test func aDroppedDependencysDeinitWriteIsTold() {
            let keeper = Counters()
            let told = Counter()
            let deinits = Counter()
            var dying: Dying? = Dying { _ in
                deinits.bump()
                keeper.count += 1
            }
            let scope = ReusableScope { told.bump() }
            scope.run {
                _ = keeper.count
                _ = dying!.x
            }
            dying = nil  // the scope holds the last reference
            #expect(deinits.value == 0)
            scope.run { _ = keeper.count }  // drops it
            #expect(deinits.value == 1)
            #expect(told.value == 1, "the deinit's write of a watched property was lost")
            #expect(!scope.isArmed)
            scope.cancel()
        }

        /// A deinit that reads its own tracked property while a scope is open on its thread: the
        /// read is not recorded (the object is deallocating: `swift_isDeallocating`), where it
        /// used to retain the object being destroyed and abort the process.
        @Test func aDeinitReadingItsOwnPropertyReleasedByAReconciliation() async {
            await #expect(processExitsWith: .success) { DyingReadRoute.releasedByAReconciliation.run() }
        }

        @Test func aDeinitReadingItsOwnPropertyReleasedInARunsBody() async {
            await #expect(processExitsWith: .success) { DyingReadRoute.releasedInARunsBody.run() }
        }

        @Test func aDeinitReadingItsOwnPropertyReleasedByACancelInsideARun() async {
            await #expect(processExitsWith: .success) { DyingReadRoute.releasedByACancelInsideARun.run() }
        }

        @Test func aDeinitReadingItsOwnPropertyReleasedInANestedOneShotScope() async {
            await #expect(processExitsWith: .success) { DyingReadRoute.releasedInANestedOneShotScope.run() }
        }

        /// A scope cannot run inside its own run: refused with a precondition.
        @Test func aRunInsideItsOwnRunIsRefused() async {
            await #expect(processExitsWith: .failure) {
                let scope = ReusableScope {}
                scope.run { scope.run {} }
            }
        }

    }
}

/// Where a deinit that reads its own tracked property runs (`aDeinitThatReadsItsOwnPropertyInsideAScope`).
enum DyingReadRoute {
    case releasedByAReconciliation, releasedInARunsBody, releasedByACancelInsideARun, releasedInANestedOneShotScope

    func run() {
        let deinits = Counter()
        let reader: (Dying) -> Void = { dying in
            _ = dying.x
            deinits.bump()
        }
        switch self {
        case .releasedByAReconciliation:
            var dying: Dying? = Dying(onDeinit: reader)
            let scope = ReusableScope {}
            scope.run { _ = dying!.x }
            dying = nil
            let outer = ReusableScope {}
            outer.run { scope.run {} }
            scope.cancel()
            outer.cancel()
        case .releasedInARunsBody:
            var dying: Dying? = Dying(onDeinit: reader)
            let scope = ReusableScope {}
            scope.run {
                withExtendedLifetime(dying) {}
                dying = nil
            }
            scope.cancel()
        case .releasedByACancelInsideARun:
            var dying: Dying? = Dying(onDeinit: reader)
            let child = ReusableScope {}
            child.run { _ = dying!.x }
            dying = nil
            let parent = ReusableScope {}
            parent.run { _ = child.cancel() }
            parent.cancel()
        case .releasedInANestedOneShotScope:
            var dying: Dying? = Dying(onDeinit: reader)
            withTracking(
                {
                    withTracking(
                        {
                            withExtendedLifetime(dying) {}
                            dying = nil
                        }, onChange: {})
                }, onChange: {})
        }
        precondition(deinits.value == 1, "deinit ran \(deinits.value) times")
    }
}
