import Foundation
import LockFreeObservation
import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockedObservation

@Suite struct LockedScopeTests {
    @Test func oneShotFiresOnce() {
        let counter = CounterModel()
        let observer = CountingObserver()
        let (value, token) = LockedTracking.withTracking({ counter.value }, notifying: observer)
        #expect(value == 0)
        #expect(token.isArmed)
        #expect(counter._observerCount == 1)
        counter.value = 1
        counter.value = 2
        counter.value = 3
        #expect(observer.count == 1)
        #expect(!token.isArmed)
        #expect(!token.cancel())
        // A fired `withTracking` scope drops its slot.
        #expect(counter._observerCount == 0)
    }

    @Test func oneShotCancelled() {
        let counter = CounterModel()
        let observer = CountingObserver()
        let token = LockedTracking.withTracking({ counter.value }, notifying: observer).token
        #expect(token.cancel())
        counter.value = 1
        #expect(observer.count == 0)
        #expect(counter._observerCount == 0)
    }

    @Test func scopeIsToldOncePerRun() {
        let counter = CounterModel()
        let observer = CountingObserver()
        let scope = LockedScope(observer)
        #expect(scope.run { counter.value } == 0)
        counter.value = 1
        counter.value = 2
        #expect(observer.count == 1)
        #expect(!scope.isArmed)
        #expect(scope.run { counter.value } == 2)
        counter.value = 3
        #expect(observer.count == 2)
        scope.cancel()
        #expect(counter._observerCount == 0)
        _ = scope.run { counter.value }
        counter.value = 4
        #expect(observer.count == 2)
    }

    @Test func reuseKeepsDependencies() {
        let counters = (0..<4).map { _ in CounterModel() }
        let observer = CountingObserver()
        let scope = LockedScope(observer)
        let body = { counters.reduce(0) { $0 + $1.value } + counters[0].label.count }
        _ = scope.run(body)
        #expect(scope.dependencyCount == 4)
        #expect(scope.lastRunSlotUpdates == 4)
        let capacity = counters.map(\._observerCapacity)
        for _ in 0..<1000 {
            _ = scope.run(body)
            #expect(scope.dependencyCount == 4)
            #expect(scope.lastRunSlotUpdates == 0)
        }
        #expect(counters.map(\._observerCount) == [1, 1, 1, 1])
        #expect(counters.map(\._observerCapacity) == capacity)
        counters[0].label = "x"
        #expect(observer.count == 1)
        scope.cancel()
        #expect(counters.map(\._observerCount) == [0, 0, 0, 0])
    }

    @Test func droppedDependencyNoLongerNotifiesAndNewOneDoes() {
        let a = CounterModel()
        let b = CounterModel()
        let c = CounterModel()
        let observer = CountingObserver()
        let scope = LockedScope(observer)
        _ = scope.run { a.value + b.value }
        #expect(scope.dependencyCount == 2)
        // b dropped (the cursor skips it), c new.
        _ = scope.run { a.value + c.value }
        #expect(scope.dependencyCount == 2)
        #expect(scope.lastRunSlotUpdates == 2)
        #expect(b._observerCount == 0)
        #expect(c._observerCount == 1)
        b.value = 1
        #expect(observer.count == 0)
        c.value = 1
        #expect(observer.count == 1)
        // A kept dependency whose properties changed updates its slot.
        _ = scope.run { a.label.count + c.value }
        #expect(scope.lastRunSlotUpdates == 1)
        a.value = 5
        #expect(observer.count == 1)
        a.label = "new"
        #expect(observer.count == 2)
        scope.cancel()
    }

    /// A kept read made while a write that began before the run is still in flight (the scope was
    /// told at its start, before the store) may read the old value: the getter declines it, the
    /// run records the version, and the write's end tells the scope again (straddling).
    @Test func aKeptReadDuringAWriteInFlightIsToldWhenItEnds() {
        final class Cell: LockedObject, @unchecked Sendable {
            // `@unchecked Sendable`: the threads are joined between accesses.
            var _value = 0
            var value: Int {
                get {
                    trackAccess(0)
                    return _value
                }
                set { withMutation(0) { _value = newValue } }
            }
        }
        final class Pending: @unchecked Sendable { var mutation: LockedMutation? }
        let cell = Cell()
        let observer = CountingObserver()
        let scope = LockedScope(observer)
        for _ in 0..<2 { _ = scope.run { cell.value } }
        let pending = Pending()
        onNewThread { [cell] in pending.mutation = cell.willMutate(0) }
        #expect(observer.count == 1, "told at the start of the write")
        #expect(scope.run { cell.value } == 0, "the store is still to come")
        #expect(observer.count == 1)
        onNewThread { [cell] in
            cell._value = 1
            cell.didMutate(pending.mutation!)
        }
        #expect(observer.count == 2, "the run read a value the write's end replaced")
        #expect(scope.run { cell.value } == 1)
        scope.cancel()
    }

    /// A run that begins while an observed write of another object is in flight holds its cursor
    /// away from the getters (`locked_tracking_thread.heldCursor`): every read is recorded, yet
    /// the run keeps what it kept (only the new dependency's slot is written), its own write
    /// included, and the runs after the write's end keep them inline again.
    @Test func aRunBegunDuringAnotherObjectsWriteKeepsItsDependencies() {
        let write = AnotherObjectsWriteInFlight()
        let (a, b, c) = (CounterModel(), CounterModel(), CounterModel())
        let observer = CountingObserver()
        let scope = LockedScope(observer)
        for _ in 0..<2 { _ = scope.run { a.value + a.label.count + b.value } }
        #expect(scope.run { a.value + a.label.count + a.value + b.value + c.value } == 0)
        #expect(observer.count == 0 && scope.dependencyCount == 3)
        #expect(scope.lastRunSlotUpdates == 1, "only the new dependency's slot is written")
        let own = scope.run {
            let first = a.value + a.label.count
            let value = b.value
            b.value = value
            return first + b.value + c.value
        }
        #expect(own == 0 && observer.count == 0, "the run's own write is not a change it missed")
        write.end()
        #expect(scope.run { a.value + a.label.count + b.value + c.value } == 0)
        #expect(scope.lastRunSlotUpdates == 0 && scope.dependencyCount == 3 && observer.count == 0)
        c.value = 5
        #expect(observer.count == 1, "the dependency added while the cursor was held is watched")
        #expect(scope.run { a.value + a.label.count + b.value + c.value } == 5)
        b.value = 1
        #expect(observer.count == 2)
        scope.cancel()
    }

    /// A run that reads a kept dependency again, further on, with a property its slot does not
    /// watch: the slot is widened, and a write of that property tells the scope.
    @Test func aKeptDependencyReadLaterWithANewPropertyWatchesIt() {
        let counters = (0..<4).map { _ in CounterModel() }
        let observer = CountingObserver()
        let scope = LockedScope(observer)
        for _ in 0..<2 { _ = scope.run { counters.reduce(0) { $0 + $1.value } } }
        _ = scope.run { counters.reduce(0) { $0 + $1.value } + counters[0].label.count }
        #expect(scope.dependencyCount == 4)
        #expect(scope.lastRunSlotUpdates == 1)
        for _ in 0..<3 { _ = scope.run { counters.reduce(0) { $0 + $1.value } + counters[0].label.count } }
        #expect(scope.lastRunSlotUpdates == 0)
        counters[0].label = "x"
        #expect(observer.count == 1)
        scope.cancel()
    }

    /// Reads in a new order every run: one slot per object however the list is rebuilt.
    @Test func reorderedReadsKeepOneSlotPerObject() {
        let counters = (0..<8).map { _ in CounterModel() }
        let observer = CountingObserver()
        let scope = LockedScope(observer)
        var order = Array(0..<8)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            order.shuffle(using: &random)
            _ = scope.run { order.reduce(0) { $0 + counters[$1].value } }
            #expect(scope.dependencyCount == 8)
        }
        #expect(counters.allSatisfy { $0._observerCount == 1 })
        for (i, counter) in counters.enumerated() {
            counter.value = i + 1
            _ = scope.run { order.reduce(0) { $0 + counters[$1].value } }
        }
        #expect(observer.count == 8)
        scope.cancel()
    }

    /// A long list edited a little (swapped: in place; removed, inserted, appended: from spans)
    /// keeps one slot per object it reads, none in the objects it dropped, and is told of a change
    /// of any of them.
    @Test func aLongListEditedALittleKeepsExactlyItsSlots() {
        var counters = (0..<200).map { _ in CounterModel() }
        var dropped: [CounterModel] = []
        let observer = CountingObserver()
        let scope = LockedScope(observer)
        let edits: [(inout [CounterModel], inout [CounterModel]) -> Void] = [
            { counters, _ in counters.swapAt(3, 150) },
            { counters, dropped in dropped.append(counters.remove(at: 10)) },
            { counters, _ in counters.insert(CounterModel(), at: 120) },
            { counters, _ in counters.append(CounterModel()) },
            { counters, dropped in dropped.append(counters.removeFirst()) },
            { counters, dropped in
                dropped.append(counters.remove(at: 5))
                counters.insert(CounterModel(), at: 100)
            },
            { counters, _ in
                counters.swapAt(0, counters.count - 1)
                counters.swapAt(20, 21)
            },
            { counters, dropped in
                dropped.append(counters[7])
                counters[7] = CounterModel()
            },
        ]
        _ = scope.run { counters.reduce(0) { $0 + $1.value } }
        for (n, edit) in edits.enumerated() {
            edit(&counters, &dropped)
            _ = scope.run { counters.reduce(0) { $0 + $1.value } }
            #expect(scope.dependencyCount == counters.count, "edit \(n)")
            #expect(counters.allSatisfy { $0._observerCount == 1 }, "edit \(n)")
            #expect(dropped.allSatisfy { $0._observerCount == 0 }, "edit \(n)")
            for counter in dropped { counter.value = n + 1 }
            #expect(observer.count == n, "edit \(n): a dropped counter notified")
            counters[(n * 37) % counters.count].value = n + 1
            #expect(observer.count == n + 1, "edit \(n)")
        }
        scope.cancel()
    }

    @Test func writesInTheBodyDoNotNotifyTheScope() {
        let counter = CounterModel()
        let observer = CountingObserver()
        let scope = LockedScope(observer)
        _ = scope.run { counter.value }
        _ = scope.run {
            let v = counter.value
            counter.value = v + 1  // observed property, written by the body itself
            return counter.value
        }
        #expect(observer.count == 0)
        #expect(scope.isArmed)
        counter.value = 10
        #expect(observer.count == 1)
        scope.cancel()
    }

    @Test func callbackSeesTheOldValueAndMayRerun() {
        let counter = CounterModel()
        let seen = Mutex<[Int]>([])
        final class Rerun: ChangeObserver, @unchecked Sendable {
            // `@unchecked Sendable`: single-threaded test.
            var scope: LockedScope?
            let counter: CounterModel
            let seen: (Int) -> Void
            init(_ counter: CounterModel, _ seen: @escaping (Int) -> Void) {
                self.counter = counter
                self.seen = seen
            }
            func observedValueWillChange() {
                seen(counter.value)
                // Re-run inside the callback, before the store: the scope reads the old value and
                // must be told again once the store lands.
                _ = scope?.run { counter.value }
            }
        }
        let observer = Rerun(counter) { v in seen.withLock { $0.append(v) } }
        let scope = LockedScope(observer)
        observer.scope = scope
        _ = scope.run { counter.value }
        counter.value = 1
        #expect(seen.withLock { $0 } == [0, 1])
        scope.cancel()
        observer.scope = nil
    }

    @Test func continuousObservationUntilCancelled() {
        let counter = CounterModel()
        let calls = Atomic<Int>(0)
        let token = LockedTracking.observeChanges({ _ = counter.value }) { calls.add(1, ordering: .relaxed) }
        for i in 1...40 { counter.value = i }
        counter.label = "other"
        #expect(calls.load(ordering: .relaxed) == 40)
        #expect(token.cancel())
        counter.value = 0
        #expect(calls.load(ordering: .relaxed) == 40)
        #expect(counter._observerCount == 0)
    }

    @Test func nestedRunsCountForTheEnclosingScope() {
        let a = CounterModel()
        let b = CounterModel()
        let outer = CountingObserver()
        let inner = CountingObserver()
        let outerScope = LockedScope(outer)
        let innerScope = LockedScope(inner)
        _ = outerScope.run { a.value + innerScope.run { b.value } }
        #expect(outerScope.dependencyCount == 2)
        #expect(innerScope.dependencyCount == 1)
        b.value = 1
        #expect(inner.count == 1)
        #expect(outer.count == 1)
        // A write in the nested body is the enclosing run's own write too.
        _ = outerScope.run {
            a.value
                + innerScope.run {
                    let v = a.value
                    a.value = v + 1
                    return b.value
                }
        }
        #expect(inner.count == 1)
        #expect(outer.count == 1)
        #expect(outerScope.isArmed && innerScope.isArmed)
        outerScope.cancel()
        innerScope.cancel()
    }

    @Test func droppedScopeReleasesItsObjects() {
        weak var weakCounter: CounterModel?
        do {
            let counter = CounterModel()
            weakCounter = counter
            let scope = LockedScope(CountingObserver())
            _ = scope.run { counter.value }
        }
        #expect(weakCounter == nil)
    }

    /// The value oracle: a writer increments a value N times while this thread re-runs a scope
    /// reading it whenever told; once the writer stops, the last value read is the final value.
    /// `startWriterFirst`: the first run races the writer's first writes (unobserved writes, the
    /// fast path, against the first install).
    @Test(arguments: [false, true])
    func concurrentWriterLosesNoChange(startWriterFirst: Bool) {
        let writes = 20_000
        for _ in 0..<5 {
            let counter = CounterModel()
            let told = CountingObserver()
            let scope = LockedScope(told)
            let done = Atomic<Bool>(false)
            let thread = Thread { [counter] in
                for i in 1...writes { counter.value = i }
                done.store(true, ordering: .releasing)
            }
            var lastRead = 0
            if startWriterFirst {
                thread.start()
                lastRead = scope.run { counter.value }
            } else {
                lastRead = scope.run { counter.value }
                thread.start()
            }
            var seen = 0
            var runs = 0
            while !done.load(ordering: .acquiring) {
                if told.count != seen {
                    seen = told.count
                    lastRead = scope.run { counter.value }
                    runs += 1
                }
            }
            if told.count != seen { lastRead = scope.run { counter.value } }
            #expect(lastRead == writes, "the last value read is the final one (\(runs) re-runs)")
            #expect(scope.dependencyCount == 1)
            scope.cancel()
        }
    }
}
