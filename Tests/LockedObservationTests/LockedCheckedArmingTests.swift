import Foundation
import Synchronization
import Testing

@testable import LockedObservation

/// Runs `scope` over `body` once more and expects the run to hold nothing: no observed write is in
/// flight (the tests run alone, `runsAlone`), so from then on the scope is armed since a checked
/// run.
private func settle(_ scope: LockedScope, _ body: () -> Int) {
    let held = scope.run {
        _ = body()
        return LockedScope.holdsItsCursor
    }
    #expect(!held, "a run with no write in flight holds nothing")
}

/// `locked`'s runs of a scope armed since a checked run look at no count, and the run's own write
/// that outlives it makes the next run look: as `CheckedArmingTests` for the lock-free registrar.
@Suite(.serialized, .enabled(if: runsAlone, "needs no observed write in flight in the process: runs alone")) struct LockedCheckedArmingTests {
    @Test func aScopeArmedSinceACheckedRunLooksAtNoCount() {
        let counter = Counter()
        let probe = Probe()
        let scope = LockedScope(probe)
        for _ in 0..<2 { _ = scope.run { counter.value } }
        settle(scope) { counter.value }
        let write = AnotherObjectsWriteInFlight()
        let held = scope.run {
            _ = counter.value
            return LockedScope.holdsItsCursor
        }
        #expect(!held, "armed since a checked run: no look at the writes in flight")
        counter.value = 4
        #expect(probe.count == 1 && !scope.isArmed)
        let heldAfterTold = scope.run {
            _ = counter.value
            return LockedScope.holdsItsCursor
        }
        #expect(heldAfterTold, "armed again: the run looks, and another write is in flight")
        #expect(scope.run { counter.value } == 4)
        write.end()
        counter.value = 5
        #expect(probe.count == 2)
        scope.cancel()
    }

    @Test func aRunsOwnWriteThatOutlivesItMakesTheNextRunLook() {
        let counter = Counter()
        let probe = Probe()
        let scope = LockedScope(probe)
        for _ in 0..<2 { _ = scope.run { counter.value } }
        settle(scope) { counter.value }
        var pending: LockedMutation?
        let first = scope.run {
            let value = counter.value
            pending = counter.willMutate(0)  // the run's own write: it does not tell the scope
            return value
        }
        #expect(first == 0 && probe.count == 0 && scope.isArmed, "the run's own write is not a change")
        #expect(scope.run { counter.value } == 0)  // the write is in flight: the old value
        counter.storeValue(7)
        counter.didMutate(pending!)
        #expect(probe.count == 1, "the second run read the old value and must hear of the store")
        #expect(scope.run { counter.value } == 7)
        counter.value = 8
        #expect(probe.count == 2)
        scope.cancel()
    }

    /// An install that finds another thread's write in flight marks its slot straddling, and the
    /// next run looks (and holds while that write is in flight).
    @Test func aStraddlingInstallMakesTheNextRunLook() {
        let (counter, added) = (Counter(), Counter())
        let probe = Probe()
        let scope = LockedScope(probe)
        for _ in 0..<2 { _ = scope.run { counter.value } }
        settle(scope) { counter.value }
        let watcher = LockedScope(Probe())
        _ = watcher.run { added.value }  // observed, so the write below is an observed one
        final class Pending: @unchecked Sendable { var mutation: LockedMutation? }
        let pending = Pending()
        let first = scope.run {
            let value = counter.value
            onAnotherThread { [added] in pending.mutation = added.willMutate(0) }  // begun after the look
            return value + added.value  // read while the write is in flight: the install straddles
        }
        #expect(first == 0 && probe.count == 0)
        let held = scope.run {
            let value = counter.value + added.value
            return LockedScope.holdsItsCursor ? value : -1
        }
        #expect(held == 0, "the run after a straddling install looks, and holds")
        onAnotherThread { [added] in
            added.storeValue(3)
            added.didMutate(pending.mutation!)
        }
        #expect(probe.count == 1, "the straddling slot is told at the write's end")
        #expect(scope.run { counter.value + added.value } == 3)
        scope.cancel()
        watcher.cancel()
    }
}
