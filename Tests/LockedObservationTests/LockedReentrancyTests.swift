import CLockedTracking
import CTrackingSupport
import Foundation
import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockedObservation

/// A model with two tracked properties, `count` (0) and `other` (1), that any thread may write.
final class Pair: LockedObject, @unchecked Sendable {
    // `@unchecked Sendable`: both values are atomic.
    private let countStorage = Atomic<Int>(0)
    private let otherStorage = Atomic<Int>(0)

    var count: Int {
        get {
            trackAccess(0)
            return countStorage.load(ordering: .acquiring)
        }
        set { withMutation(0) { countStorage.store(newValue, ordering: .releasing) } }
    }

    var other: Int {
        get {
            trackAccess(1)
            return otherStorage.load(ordering: .acquiring)
        }
        set { withMutation(1) { otherStorage.store(newValue, ordering: .releasing) } }
    }
}

/// A model whose deinit runs a hook (a write, a read of itself), and whether a scope was running
/// on its thread then.
final class Dying: LockedObject, @unchecked Sendable {
    // `@unchecked Sendable`: the hook is set at init and never changed.
    private var _count = 0
    var count: Int {
        get {
            trackAccess(0)
            return _count
        }
        set { withMutation(0) { _count = newValue } }
    }

    let onDeinit: (Dying) -> Void
    init(onDeinit: @escaping (Dying) -> Void = { _ in }) {
        self.onDeinit = onDeinit
        super.init()
    }

    deinit { onDeinit(self) }

    /// Whether a scope runs on the calling thread.
    static var aScopeRuns: Bool { locked_thread_state()!.pointee.depth != 0 }
}

/// A counter a callback bumps.
final class Told: Sendable {
    private let calls = Atomic<Int>(0)
    func bump() { calls.add(1, ordering: .relaxed) }
    var value: Int { calls.load(ordering: .relaxed) }
}

/// The calling thread is outside every run: no running scope, the cursor on the sentinel, none
/// held, nothing left to release.
func expectNoRun(_ note: Comment = "", sourceLocation: SourceLocation = #_sourceLocation) {
    let thread = locked_thread_state()!.pointee
    #expect(thread.depth == 0 && thread.count == 0, note, sourceLocation: sourceLocation)
    #expect(thread.run.cursor == tracking_no_dependencies_address(), note, sourceLocation: sourceLocation)
    #expect(thread.run.dependencyCount == 0 && thread.heldCursor == nil, note, sourceLocation: sourceLocation)
    #expect(thread.releasedCount == 0, note, sourceLocation: sourceLocation)
}

/// User code re-entering the `locked` registrar from every place it runs it: bodies, nested runs,
/// callbacks, and the deinits of the objects it releases, as the lock-free registrar's
/// `ReentrancyTests`. Each test names the mechanism it proves.
@Suite struct LockedReentrancyTests {
    /// A dependency a run drops is released once the run has ended (`TrackingScope.releaseLater`,
    /// drained at the thread's outermost end), not in the reconciliation: its deinit's write of a
    /// property the scope still watches tells the scope, whose callback renders it again at
    /// once. (The render reads the old value during the write, so the write's end tells it
    /// again: two calls a write.) Released inside the reconciliation, the render runs inside it
    /// and the list is reconciled twice (the dependency dropped twice: a crash, or a use after
    /// free).
    @Test func aDroppedDependencysDeinitWriteIsToldAfterTheRun() {
        let keeper = Pair()
        let told = Told()
        let deinits = Told()
        let deinitsInARun = Told()
        var dying: Dying? = Dying { _ in
            deinits.bump()
            if Dying.aScopeRuns { deinitsInARun.bump() }
            keeper.count += 1
        }
        let box = ScopeBox<LockedScope>()
        box.render = { box.scope!.run { _ = keeper.count } }
        box.scope = LockedScope {
            told.bump()
            box.render()
        }
        box.scope!.run {
            _ = keeper.count
            _ = dying!.count
        }
        dying = nil  // the scope holds the last reference
        #expect(deinits.value == 0)
        box.render()  // drops it
        expectNoRun()
        #expect(deinits.value == 1 && deinitsInARun.value == 0)
        #expect(told.value == 2, "the deinit's write of a watched property")
        #expect(box.scope!.isArmed && box.scope!.dependencyCount == 1 && keeper._observerCount == 1)
        keeper.count += 1
        #expect(told.value == 4)
        box.scope!.cancel()
        #expect(keeper._observerCount == 0)
    }

    /// Where a deinit that reads its own tracked property runs while a scope runs on its thread.
    enum DyingRead: CaseIterable {
        case releasedByANestedReconciliation, releasedInARunsBody, releasedByACancelInsideARun,
            releasedInANestedOneShotScope
    }

    /// A deinit that reads its own tracked property while a scope runs on its thread: the read is
    /// not recorded (the object is deallocating: `swift_isDeallocating`, in `append`). Recorded,
    /// it is retained while being destroyed, and the process aborts ("deallocated with non-zero
    /// retain count"). Released by a reconciliation or a cancel, the object's deinit also waits
    /// for the outermost end (`releaseLater`), where no scope runs.
    @Test(arguments: DyingRead.allCases)
    func aDeinitReadingItsOwnPropertyInsideAScope(_ route: DyingRead) {
        let deinits = Told()
        let deinitsInARun = Told()
        let reader: (Dying) -> Void = { dying in
            _ = dying.count
            deinits.bump()
            if Dying.aScopeRuns { deinitsInARun.bump() }
        }
        var dying: Dying? = Dying(onDeinit: reader)
        switch route {
        case .releasedByANestedReconciliation:
            let scope = LockedScope {}
            scope.run { _ = dying!.count }
            dying = nil
            let outer = LockedScope {}
            outer.run { scope.run {} }
            #expect(deinitsInARun.value == 0)
            scope.cancel()
            outer.cancel()
        case .releasedInARunsBody:
            let scope = LockedScope {}
            scope.run {
                withExtendedLifetime(dying) {}
                dying = nil
            }
            #expect(deinitsInARun.value == 1)
            scope.cancel()
        case .releasedByACancelInsideARun:
            let child = LockedScope {}
            child.run { _ = dying!.count }
            dying = nil
            let parent = LockedScope {}
            parent.run { _ = child.cancel() }
            #expect(deinitsInARun.value == 0)
            parent.cancel()
        case .releasedInANestedOneShotScope:
            LockedTracking.withTracking(
                {
                    LockedTracking.withTracking(
                        {
                            withExtendedLifetime(dying) {}
                            dying = nil
                        }, onChange: {})
                }, onChange: {})
            #expect(deinitsInARun.value == 1)
        }
        expectNoRun()
        #expect(deinits.value == 1)
    }

    /// A dying object lets go of the one-shot scopes whose last object it was: their callbacks are
    /// released, and a capture's deinit may write to the dying object. That runs outside the
    /// object's lock (`LockedObject.deinit`); inside it, the write takes the lock its own deinit
    /// holds (`Mutex` traps: "Recursive call to lock Mutex").
    @Test(.timeLimit(.minutes(1))) func aCallbackReleasedByADyingObjectMayWriteToIt() {
        final class WritesOnDeinit: @unchecked Sendable {
            // `@unchecked Sendable`: one thread. `unowned(unsafe)`: it writes to the object while
            // the object's deinit runs.
            unowned(unsafe) let model: Pair
            let wrote: Told
            init(_ model: Pair, _ wrote: Told) {
                self.model = model
                self.wrote = wrote
            }
            deinit {
                model.count = 7
                wrote.bump()
            }
        }
        let wrote = Told()
        var model: Pair? = Pair()
        let token: LockedToken
        do {
            let writer = WritesOnDeinit(model!, wrote)
            token = LockedTracking.withTracking({ _ = model!.count }, onChange: { [writer] in _ = writer }).token
        }
        #expect(token.isArmed && wrote.value == 0)
        model = nil  // its deinit cancels the scope, whose callback goes
        #expect(wrote.value == 1)
        #expect(!token.isArmed)
        expectNoRun()
    }

    /// A scope cannot run inside its own run: refused with a precondition (`ReusableScope.run`).
    @Test func aRunInsideItsOwnRunIsRefused() async {
        await #expect(processExitsWith: .failure) {
            let scope = LockedScope {}
            scope.run { scope.run {} }
        }
    }

}
