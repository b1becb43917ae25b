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
        /// The same through a one-shot scope between the two runs.
        @Test func aRunNestedInAOneShotScopeInARunKeepsTheOuterScopesDependencies() {
            let a = Counters()
            let b = Counters()
            let x = Counters()
            let outerTold = Counter()
            let innerTold = Counter()
            let oneShotTold = Counter()
            let outer = ReusableScope { outerTold.bump() }
            let inner = ReusableScope { innerTold.bump() }
            for round in 0..<4 {
                outer.run {
                    _ = a.count
                    withTracking({ inner.run { _ = x.count } }, onChange: { oneShotTold.bump() })
                    _ = b.count
                }
                let (outerBefore, innerBefore, oneShotBefore) = (outerTold.value, innerTold.value, oneShotTold.value)
                x.count += 1
                #expect(outerTold.value == outerBefore + 1, "round \(round)")
                #expect(innerTold.value == innerBefore + 1, "round \(round)")
                #expect(oneShotTold.value == oneShotBefore + 1, "round \(round)")
            }
            outer.cancel()
            inner.cancel()
        }

        /// A callback that re-renders another view inside a run: the body's write tells the inner
        /// scope, whose callback runs it again, nested in the outer run, at the write's willSet.
        /// That render reads the value the write replaces, so its read straddles the write: the
        /// write's end tells the inner scope again (a second render), and the outer scope, which
        /// read it through the nested render, is told once, at its end's re-check. Exact counts,
        /// round after round; and the outer's dependencies survive the nested renders (without
        /// `forgetTakeovers`, the second round trapped in `clearSlots`).
        @Test func aCallbackThatRerendersAViewInsideARunKeepsBothScopesExact() {
            let a = Counters()
            let y = Counters()
            let x = Counters()
            let outerTold = Counter()
            let innerRenders = Counter()
            let box = ScopeBox<ReusableScope>()
            box.render = {
                innerRenders.bump()
                box.scope!.run {
                    _ = x.count
                    _ = y.count
                }
            }
            box.scope = ReusableScope { box.render() }
            let outer = ReusableScope { outerTold.bump() }
            box.render()
            for round in 0..<4 {
                let (renders, told) = (innerRenders.value, outerTold.value)
                outer.run {
                    _ = a.count
                    y.count += 1  // tells the inner scope, which renders again here
                    _ = a.other
                }
                #expect(innerRenders.value == renders + 2, "round \(round)")
                #expect(outerTold.value == told + 1, "round \(round)")
                x.count += 1
                #expect(outerTold.value == told + 1, "round \(round): told twice in one run")
                // At x's willSet and, the render having read x's old value, at its end.
                #expect(innerRenders.value == renders + 4, "round \(round)")
            }
            // Renders nested in runs that write nothing: the outer keeps what it read through them.
            for round in 0..<3 {
                outer.run {
                    _ = a.count
                    box.render()
                    _ = a.other
                }
                let told = outerTold.value
                x.count += 1
                #expect(outerTold.value == told + 1, "round \(round): the outer run read x through the nested render")
            }
            outer.cancel()
            box.scope!.cancel()
        }

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

        /// The same when the run is nested: released at the end of the outermost scope.
        @Test func aDependencyDroppedByANestedRunIsReleasedAfterTheOutermostScope() {
            let keeper = Counters()
            let outerTold = Counter()
            let innerTold = Counter()
            let depthAtDeinit = Counter(-1)
            var dying: Dying? = Dying { _ in
                depthAtDeinit.set(_trackingDepth)
                keeper.count += 1
            }
            let outer = ReusableScope { outerTold.bump() }
            let inner = ReusableScope { innerTold.bump() }
            inner.run {
                _ = keeper.count
                _ = dying!.x
            }
            dying = nil
            outer.run {
                _ = keeper.other
                inner.run { _ = keeper.count }  // drops it
                #expect(depthAtDeinit.value == -1, "released inside the outer run")
            }
            #expect(depthAtDeinit.value == 0)
            #expect(innerTold.value == 1)
            #expect(outerTold.value == 1, "the outer run read keeper.count through the inner run")
            outer.cancel()
            inner.cancel()
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

        /// `cancel()` of a scope inside its own run: allowed, exact. It returns whether the scope
        /// was armed, no callback comes after, and the run's end keeps nothing: every object read
        /// is released and no write tells the scope.
        @Test func aScopeCancelledInsideItsOwnRunKeepsNothing() {
            let model = Counters()
            var late: Counters? = Counters()
            weak let weakLate = late
            let told = Counter()
            let scope = ReusableScope { told.bump() }
            scope.run { _ = model.count }
            var cancelled = false
            scope.run {
                _ = model.count
                cancelled = scope.cancel()
                _ = late!.count
                _ = model.other
            }
            #expect(cancelled)
            #expect(!scope.isArmed)
            model.count += 1
            model.other += 1
            late!.count += 1
            #expect(told.value == 0)
            #expect(model.slotsHeld(record: scope.record, generation: scope.generation) == 0)
            late = nil
            #expect(weakLate == nil, "the cancelled run kept what it read after the cancel")
            #expect(!scope.cancel())
        }

        /// A scope cannot run inside its own run: refused with a precondition.
        @Test func aRunInsideItsOwnRunIsRefused() async {
            await #expect(processExitsWith: .failure) {
                let scope = ReusableScope {}
                scope.run { scope.run {} }
            }
        }

        /// A write during a run whose cursor passed a hole counts the run's own writes over its kept
        /// dependencies, holes among them (`TrackedObject._countOwnWrite` skips holes: a hole has no
        /// object, and debug builds trapped reading it).
        @Test func aWriteInARunThatPassedAHoleSkipsTheHole() {
            let length = 2 * DependencyHoles.moveLimit + 10
            var rows = (0..<length).map { _ in Row() }
            let observer = CountingObserver()
            let scope = ReusableScope(notifying: observer)
            let other = Counters()
            _ = scope.run { rows.reduce(0) { $0 + $1.read(1) } }
            rows.remove(at: 10)
            _ = scope.run { rows.reduce(0) { $0 + $1.read(1) } }
            #expect(scope.holeCount == 1)
            _ = scope.run {
                let sum = rows.reduce(0) { $0 + $1.read(1) }
                rows[rows.count - 1].write(1, 7)  // the body's own write, past the hole
                withTracking({ other.count += 1 }, onChange: {})
                return sum
            }
            #expect(observer.count == 0, "the body's own write told its own scope")
            rows[0].write(1, 8)
            #expect(observer.count == 1)
            scope.cancel()
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
            parent.run { child.cancel() }
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
