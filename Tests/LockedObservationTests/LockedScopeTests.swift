import Foundation
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

    @Test func reuseKeepsDependencies() {
        let counters = (0..<4).map { _ in CounterModel() }
        let observer = CountingObserver()
        let scope = LockedScope(observer)
        let body = { counters.reduce(0) { $0 + $1.value } + counters[0].label.count }
        _ = scope.run(body)
        #expect(scope.dependencyCount == 4)
        let capacity = counters.map(\._observerCapacity)
        for _ in 0..<1000 {
            _ = scope.run(body)
            #expect(scope.dependencyCount == 4)
        }
        #expect(counters.map(\._observerCount) == [1, 1, 1, 1])
        #expect(counters.map(\._observerCapacity) == capacity)
        counters[0].label = "x"
        #expect(observer.count == 1)
        scope.cancel()
        #expect(counters.map(\._observerCount) == [0, 0, 0, 0])
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
        for _ in 0..<3 { _ = scope.run { counters.reduce(0) { $0 + $1.value } + counters[0].label.count } }
        counters[0].label = "x"
        #expect(observer.count == 1)
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

    /// An install looks for a free slot from after the slot last handed out, wrapping, as the
    /// lock-free registrar's slot blocks do, so that re-arming one of many scopes on one object
    /// (`stream/fan-out/consumers=10000`) does not walk every held slot before it. Slots 0 and 2
    /// free, the hint at 1: the next install takes slot 2 (a walk from the start would take 0).
    @Test func anInstallLooksFromAfterTheSlotLastHandedOut() {
        let counter = CounterModel()
        let observer = CountingObserver()
        func arm() -> LockedToken { LockedTracking.withTracking({ counter.value }, notifying: observer).token }
        func heldSlots() -> [Int] {
            counter._withObservers { slots in
                (0..<slots.used).filter {
                    let raw = slots.base.unsafelyUnwrapped[$0]
                    return raw != 0 && LockedSlots.isHeld(raw)
                }
            }
        }
        let first = (0..<4).map { _ in arm() }
        #expect(heldSlots() == [0, 1, 2, 3])
        #expect(first[0].cancel())
        let reused = arm()  // the walk wraps to slot 0
        #expect(heldSlots() == [0, 1, 2, 3])
        #expect(first[2].cancel())
        #expect(reused.cancel())
        #expect(heldSlots() == [1, 3])
        let last = arm()
        #expect(heldSlots() == [1, 2, 3])
        for token in [first[1], first[3], last] { #expect(token.cancel()) }
        #expect(observer.count == 0)
    }

    /// A scope retains what its last run read until it is cancelled (it is a handle, as
    /// `ReusableScope`: its last copy going away cancels nothing).
    @Test func aCancelledScopeReleasesItsObjects() {
        weak var weakCounter: CounterModel?
        let scope = LockedScope(CountingObserver())
        do {
            let counter = CounterModel()
            weakCounter = counter
            _ = scope.run { counter.value }
        }
        #expect(weakCounter != nil)
        scope.cancel()
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
