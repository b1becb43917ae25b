import LockFreeObservation
import Testing

@testable import LockedObservation

/// The `locked` ablation's holes, as the lock-free registrar's (`DependencyHoleTests`): a
/// dependency dropped from a long list leaves a hole, an insertion there takes it, holes left run
/// after run are closed up, and the scope watches exactly its objects throughout.
@Suite struct LockedHoleTests {
    static let length = 2 * DependencyHoles.moveLimit + 10

    final class ListView {
        var counters = (0..<LockedHoleTests.length).map { _ in Counter() }
        var dropped: [Counter] = []
        let probe = Probe()
        let scope: LockedScope

        init() {
            scope = LockedScope(probe)
            run()
        }

        func run() { _ = scope.run { counters.reduce(0) { $0 + $1.value } } }

        func expectWatchesExactlyTheCounters(_ note: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(scope.dependencyCount == counters.count, "\(note)", sourceLocation: sourceLocation)
            #expect(counters.allSatisfy { $0._observerCount == 1 }, "\(note)", sourceLocation: sourceLocation)
            #expect(dropped.allSatisfy { $0._observerCount == 0 }, "\(note)", sourceLocation: sourceLocation)
            let told = probe.count
            for counter in dropped { counter.value += 1 }
            #expect(probe.count == told, "\(note): a dropped counter notified", sourceLocation: sourceLocation)
            counters[counters.count - 1].value += 1
            #expect(probe.count == told + 1, "\(note)", sourceLocation: sourceLocation)
            run()
            #expect(scope.isArmed, "\(note)", sourceLocation: sourceLocation)
        }
    }

    @Test func aCounterRemovedFromALongListLeavesAHoleThatAnInsertionFills() {
        let view = ListView()
        view.dropped.append(view.counters.remove(at: 10))
        view.run()
        #expect(view.scope.holeCount == 1)
        view.expectWatchesExactlyTheCounters("after the removal")
        #expect(view.scope.holeCount == 1)
        view.expectWatchesExactlyTheCounters("a run later")
        view.counters.insert(Counter(), at: 10)
        view.run()
        #expect(view.scope.holeCount == 0, "the inserted counter took the hole")
        view.expectWatchesExactlyTheCounters("after the insertion")
        view.scope.cancel()
    }

    @Test func adjacentHolesArePassedAndFilled() {
        let view = ListView()
        view.dropped.append(view.counters.remove(at: 10))
        view.run()
        view.dropped.append(view.counters.remove(at: 10))
        view.run()
        #expect(view.scope.holeCount == 2)
        view.expectWatchesExactlyTheCounters("two holes side by side")
        view.counters.insert(contentsOf: [Counter(), Counter()], at: 10)
        view.run()
        #expect(view.scope.holeCount == 0)
        view.expectWatchesExactlyTheCounters("both filled")
        view.scope.cancel()
    }

    @Test func holesLeftRunAfterRunAreClosedUp() {
        let view = ListView()
        view.dropped.append(view.counters.remove(at: 10))
        view.run()
        for _ in 1..<DependencyHoles.runLimit { view.run() }
        #expect(view.scope.holeCount == 1)
        view.run()
        #expect(view.scope.holeCount == 0)
        view.expectWatchesExactlyTheCounters("closed up")
        view.scope.cancel()
    }

    @Test func aRunThatRebuildsItsListDropsItsHoles() {
        let view = ListView()
        view.dropped.append(view.counters.remove(at: 10))
        view.run()
        #expect(view.scope.holeCount == 1)
        view.counters.reverse()
        view.run()
        #expect(view.scope.holeCount == 0)
        view.expectWatchesExactlyTheCounters("rebuilt")
        view.scope.cancel()
    }
}
