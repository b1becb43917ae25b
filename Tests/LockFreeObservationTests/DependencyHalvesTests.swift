import RegistrarTestSupport
import Testing

@testable import LockFreeObservation

extension RegistrarTests {
    /// A dependency's two halves (`DependencyHead`, `DependencyRest`): the getter touches the head,
    /// and the slow paths find the rest a fixed distance after it (`tracking_run.restOffset`), in
    /// the inline buffers and in grown ones alike. A rest found at the wrong place loses the
    /// version a slow read loaded or the body's own writes, and the re-check then reports a change
    /// that did not happen (or misses one).
    @Suite struct DependencyHalvesTests {
        /// Rows read by a scope's run: its dependencies, in a buffer grown past the inline one
        /// when `count` is above `DependencyStore.inlineCapacity`.
        static func keptScope(over count: Int) -> (rows: [Row], observer: CountingObserver, scope: ReusableScope) {
            let rows = (0..<count).map { _ in Row() }
            let observer = CountingObserver()
            let scope = ReusableScope(notifying: observer)
            for _ in 0..<2 { _ = scope.run { rows.reduce(0) { $0 + $1.read(1) } } }
            return (rows, observer, scope)
        }

        /// A run reads a property outside a kept dependency's installed slots (its rest keeps the
        /// version loaded then) and writes that property itself (its rest counts the write): the
        /// re-check after the reinstall expects exactly that write, so the scope is not told of
        /// its own write; a later write by another is told once.
        @Test(arguments: [2, 64])
        func theBodysOwnWriteToAPropertyReadOutsideTheSlotsIsNotAChange(rows count: Int) {
            let (rows, observer, scope) = Self.keptScope(over: count)
            let target = rows[count - 1]
            _ = scope.run {
                let sum = rows.reduce(0) { $0 + $1.read(1) }
                let before = target.read(2)
                target.write(2, before + 1)
                return sum
            }
            #expect(observer.count == 0)
            #expect(scope.isArmed)
            #expect(scope.dependencyCount == count)
            target.write(2, 7)
            #expect(observer.count == 1)
            scope.cancel()
        }

        /// The version a slow read loads into the rest is the one the re-check compares: a write
        /// by another thread between that read and the run's end (here, on the same thread but
        /// outside the body's own count: begun before the run, ended inside it) is reported as the
        /// change the run may have missed, once.
        @Test(arguments: [2, 64])
        func aWriteEndingDuringARunIsReportedThroughTheRestsVersion(rows count: Int) {
            let (rows, observer, scope) = Self.keptScope(over: count)
            // The last dependency read: the read below finds it as the one just kept.
            let target = rows[count - 1]
            let pending = Unchecked(PendingBox())
            let shared = Unchecked(target)
            onNewThread { pending.value.mutation = shared.value.willMutate(2) }
            _ = scope.run {
                let sum = rows.reduce(0) { $0 + $1.read(1) }
                // Outside the slots (property 2) and during a write in flight: the slow path loads
                // the version into the rest, and the run is reshaped.
                let value = target.read(2)
                onNewThread {
                    shared.value.value.store(5, ordering: .relaxed)
                    shared.value.didMutate(pending.value.mutation!)
                }
                return sum + value
            }
            // The write ended after the read: the reinstall's re-check sees it and tells the scope.
            #expect(observer.count == 1)
            #expect(scope.dependencyCount == count)
            scope.cancel()
        }

        /// The same read, after a write that ended before it (to a property the slots do not
        /// watch, so nobody was told): the version the read loads into the rest already counts
        /// that write, so the re-check finds nothing to report. (A rest that kept an earlier
        /// run's version would report it: an unnecessary notification.)
        @Test(arguments: [2, 64])
        func aWriteEndedBeforeTheReadIsNotReported(rows count: Int) {
            let (rows, observer, scope) = Self.keptScope(over: count)
            let target = rows[count - 1]
            target.write(2, 3)
            #expect(observer.count == 0)
            _ = scope.run { rows.reduce(0) { $0 + $1.read(1) } + target.read(2) }
            #expect(observer.count == 0)
            #expect(scope.isArmed)
            target.write(2, 4)
            #expect(observer.count == 1)
            scope.cancel()
        }

        /// A rebuild (a run whose reads change too much for the list to be updated in place) that
        /// needs a larger buffer: the old list's dropped objects are released exactly once, each,
        /// and the kept ones held (the reconciliation reads the old list before it grows the spare
        /// buffer over it; the other order read freed memory).
        @Test func aRebuildThatOutgrowsTheListReleasesExactlyTheDroppedObjects() {
            let (old, observer, scope) = Self.keptScope(over: 8)
            let added = (0..<200).map { _ in Row() }
            let before = old.map { _getRetainCount($0) }
            _ = scope.run { added.reduce(0) { $0 + $1.read(1) } + old[7].read(1) }
            #expect(scope.dependencyCount == 201)
            #expect(observer.count == 0)
            #expect(old[0..<7].allSatisfy { $0.slots(of: scope) == 0 })
            #expect(old[7].slots(of: scope) == 1)
            // The scope's retain of each dropped object released once; the kept one's kept.
            #expect(
                old.map { _getRetainCount($0) }
                    == before.enumerated().map { $0.offset < 7 ? $0.element - 1 : $0.element })
            added[199].write(1, 1)
            #expect(observer.count == 1)
            scope.cancel()
            // Every retain the scope took, released once: the dropped ones at the rebuild, the
            // kept one now.
            #expect(old.map { _getRetainCount($0) } == before.map { $0 - 1 })
        }
    }
}

private final class PendingBox: @unchecked Sendable {
    var mutation: PendingMutation?
}
