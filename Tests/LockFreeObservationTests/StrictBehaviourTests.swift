import CTrackingSupport
import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockFreeObservation

/// A model whose properties may be written from several threads at once: the storage is atomic,
/// the registrar primitives are called by hand (any index, 0 to 32767).
class AtomicNode: TrackedObject, @unchecked Sendable {
    // `@unchecked Sendable`: the only state is atomic.
    let storage = Atomic<Int>(0)
    func read(_ property: Int) {
        trackAccess(property)
        _ = storage.load(ordering: .relaxed)
    }
    func write(_ property: Int) {
        let mutation = willMutate(property)
        storage.add(1, ordering: .relaxed)
        didMutate(mutation)
    }
}

extension RegistrarTests {
    /// What the lock-free registrar promises beyond Observation 6.3: strict one-shot, no lost change,
    /// cancellation, continuous observation, pooled records, any number of properties.
    @Suite struct StrictBehaviourTests {
        // MARK: Strict one-shot

        @Test func reentrantMutationInsideOnChangeDoesNotFireAgain() {
            let model = Counters()
            let ref = Unchecked(model)
            let fired = Counter()
            let (_, token) = withCancellableTracking(
                { _ = model.count },
                onChange: {
                    fired.bump()
                    ref.value.count += 1  // in place, re-entrant, same property
                    ref.value.count = 100  // through the setter
                })
            model.count = 1
            #expect(fired.value == 1)
            #expect(!token.isArmed)
            model.count = 2
            #expect(fired.value == 1)
        }

        @Test func reentrantMutationNotifyingAnObserverDoesNotFireAgain() {
            let model = Counters()
            let ref = Unchecked(model)
            let observer = CountingObserver(hook: { ref.value.count += 1 })
            _ = withTracking({ _ = model.count }, notifying: observer)
            model.count = 1
            #expect(observer.count == 1)
        }

        /// A scope armed inside `onChange` (the re-arming pattern) runs at willSet and reads the old
        /// value, which the running write is about to replace: it is told once that write has
        /// stored (when it ends), not before and not by a later write. Apple's registrar never
        /// tells it: its re-armed observer holds a stale value.
        @Test func scopeArmedInsideOnChangeIsToldWhenTheRunningWriteEnds() {
            let model = Counters()
            let ref = Unchecked(model)
            let first = Counter()
            let second = Counter()
            let readInside = Counter(-1)
            let seenBySecond = Counter(-1)
            withTracking(
                { _ = model.count },
                onChange: {
                    first.bump()
                    readInside.set(
                        withTracking(
                            { ref.value.count },
                            onChange: {
                                seenBySecond.set(ref.value.count)
                                second.bump()
                            }))
                    #expect(second.value == 0)  // not before the store
                })
            model.count = 1
            #expect(first.value == 1)
            #expect(readInside.value == 0)  // willSet: the old value
            #expect(second.value == 1)
            #expect(seenBySecond.value == 1)  // told after the store
            model.count = 2
            #expect(first.value == 1)
            #expect(second.value == 1)
        }

        /// The usual re-arming observer: each `onChange` tracks again. Per write it runs twice (at
        /// willSet, and at the end of the write for the scope re-armed on the old value), then
        /// holds the new value, armed for the next write; it never recurses further.
        @Test func reArmingObserverEndsEachWriteArmedOnTheNewValue() {
            final class Observer: @unchecked Sendable {
                // `@unchecked Sendable`: used on this thread only.
                let model: Counters
                var calls = 0
                var lastRead = -1
                init(_ model: Counters) { self.model = model }
                func observe() {
                    lastRead = withTracking(
                        { model.count },
                        onChange: {
                            self.calls += 1
                            self.observe()
                        })
                }
            }
            let model = Counters()
            let observer = Observer(model)
            observer.observe()
            for value in 1...5 {
                model.count = value
                #expect(observer.calls == 2 * value)
                #expect(observer.lastRead == value)
            }
        }

        /// Several threads mutate the observed property at the same moment: each scope's `onChange`
        /// runs exactly once. Repeated, with several scopes per round.
        @Test func concurrentMutationsFireEachScopeExactlyOnce() {
            let rounds = 500
            let scopesPerRound = 4
            let threads = 4
            var total = 0
            for _ in 0..<rounds {
                let node = AtomicNode()
                let counters = (0..<scopesPerRound).map { _ in Counter() }
                for counter in counters { withTracking({ node.read(5) }, onChange: { counter.bump() }) }
                onThreads(threads) { _ in
                    node.write(5)
                    node.write(5)
                }
                for counter in counters {
                    #expect(counter.value == 1)
                    total += counter.value
                }
            }
            #expect(total == rounds * scopesPerRound)
        }

        // MARK: No lost change

        /// A mutation on another thread between the read and the end of `withTracking` (before the
        /// observer is installed) is reported: `onChange` has run once when `withTracking` returns.
        @Test func mutationBetweenReadAndInstallIsNotLost() {
            let model = Counters()
            let ref = Unchecked(model)
            let fired = Counter()
            let firedInside = Counter(-1)
            let (value, token) = withCancellableTracking(
                { () -> Int in
                    let value = model.count
                    onNewThread { ref.value.count = 7 }
                    firedInside.set(fired.value)
                    return value
                }, onChange: { fired.bump() })
            #expect(value == 0)
            #expect(firedInside.value == 0)  // not yet: it comes from the install
            #expect(fired.value == 1)
            #expect(!token.isArmed)
            model.count = 8
            #expect(fired.value == 1)
        }

        @Test func lostChangeIsReportedEvenAfterTheClosuresOwnWrites() {
            let model = Counters()
            let ref = Unchecked(model)
            let observer = CountingObserver()
            let (_, token) = withTracking(
                {
                    _ = model.count
                    model.count = 1  // its own write: not a change to report...
                    onNewThread { ref.value.count = 2 }  // ...but this one is
                    model.other = 3
                }, notifying: observer)
            #expect(observer.count == 1)
            #expect(!token.isArmed)
        }

        @Test func lostChangeOnTheSecondObjectOfAScope() {
            let first = Counters()
            let second = Counters()
            let ref = Unchecked(second)
            let fired = Counter()
            withTracking(
                {
                    _ = first.count
                    _ = second.name
                    onNewThread { ref.value.name = "changed" }
                }, onChange: { fired.bump() })
            #expect(fired.value == 1)
            first.count = 1
            second.name = "again"
            #expect(fired.value == 1)
        }

        @Test func lostChangeInNestedScopesReachesBoth() {
            let model = Counters()
            let ref = Unchecked(model)
            let outer = Counter()
            let inner = Counter()
            withTracking(
                {
                    withTracking(
                        {
                            _ = model.count
                            onNewThread { ref.value.count = 1 }
                        }, onChange: { inner.bump() })
                    #expect(inner.value == 1)
                }, onChange: { outer.bump() })
            #expect(inner.value == 1)
            #expect(outer.value == 1)
        }

        @Test func lostChangeDuringContinuousObservationIsReportedAndStaysArmed() {
            let model = Counters()
            let ref = Unchecked(model)
            let fired = Counter()
            let token = observeChanges(
                {
                    _ = model.count
                    onNewThread { ref.value.count = 1 }
                }, onChange: { fired.bump() })
            #expect(fired.value == 1)
            #expect(token.isArmed)
            model.count = 2
            #expect(fired.value == 2)
            #expect(token.cancel())
        }

        // MARK: Cancellation

        @Test func cancelReturnsTrueOnceAndStopsNotifications() {
            let model = Counters()
            let fired = Counter()
            let (_, token) = withCancellableTracking({ _ = model.count }, onChange: { fired.bump() })
            #expect(token.isArmed)
            #expect(token.cancel())
            #expect(!token.isArmed)
            #expect(!token.cancel())
            model.count = 1
            model.count += 1
            #expect(fired.value == 0)
        }

        @Test func cancelAfterFiringReturnsFalse() {
            let model = Counters()
            let observer = CountingObserver()
            let (_, token) = withTracking({ _ = model.count }, notifying: observer)
            model.count = 1
            #expect(observer.count == 1)
            #expect(!token.isArmed)
            #expect(!token.cancel())
        }

        @Test func inertTokenOfAScopeThatReadNothing() {
            let fired = Counter()
            let (_, token) = withCancellableTracking({ 42 }, onChange: { fired.bump() })
            #expect(token == .inert)
            #expect(!token.isArmed)
            #expect(!token.cancel())
        }

        /// A stale token (its record recycled for another scope) neither reports nor cancels the new one.
        @Test func staleTokenDoesNotTouchTheRecordsNextScope() {
            let model = Counters()
            let (_, old) = withCancellableTracking({ _ = model.count }, onChange: {})
            #expect(old.cancel())
            // Several scopes, so that one of them very likely reuses `old`'s record.
            let fired = Counter()
            let tokens = (0..<8).map { _ in
                withCancellableTracking({ _ = model.count }, onChange: { fired.bump() }).token
            }
            #expect(!old.isArmed)
            #expect(!old.cancel())
            #expect(tokens.allSatisfy { $0.isArmed })
            model.count = 1
            #expect(fired.value == 8)
        }

        @Test func cancellingOneScopeLeavesTheOthersOnTheSameProperty() {
            let model = Counters()
            let counters = (0..<3).map { _ in Counter() }
            let tokens = counters.map { counter in
                withCancellableTracking({ _ = model.count }, onChange: { counter.bump() }).token
            }
            #expect(tokens[1].cancel())
            model.count = 1
            #expect(counters.map(\.value) == [1, 0, 1])
        }

        // MARK: Continuous observation

        @Test(arguments: [1, 10, 250])
        func continuousObservationCountsEveryChangeUntilCancelled(changes: Int) {
            let model = Counters()
            let fired = Counter()
            let token = observeChanges(
                {
                    _ = model.count
                    _ = model.items
                }, onChange: { fired.bump() })
            for i in 1...changes { model.count = i }
            #expect(fired.value == changes)
            model.count = changes  // equal value: not a change
            model.other = 1  // not read
            #expect(fired.value == changes)
            model.items.append(0)
            #expect(fired.value == changes + 1)
            #expect(token.isArmed)
            #expect(token.cancel())
            #expect(!token.isArmed)
            for i in 1...10 { model.count = -i }
            #expect(fired.value == changes + 1)
            #expect(!token.cancel())
        }

        @Test func continuousObservationNotifyingAnObserverSeesOldValues() {
            let model = Counters()
            let ref = Unchecked(model)
            let seen = Counter()
            let observer = CountingObserver(hook: { seen.raw.add(ref.value.count, ordering: .relaxed) })
            let token = observeChanges({ _ = model.count }, notifying: observer)
            for i in 1...5 { model.count = i }
            #expect(observer.count == 5)
            #expect(seen.value == 0 + 1 + 2 + 3 + 4)  // the old values
            #expect(token.cancel())
            model.count = 6
            #expect(observer.count == 5)
        }

        @Test func continuousObservationFromSeveralThreadsCountsExactly() {
            let node = AtomicNode()
            let fired = Counter()
            let token = observeChanges({ node.read(3) }, onChange: { fired.bump() })
            onThreads(4) { _ in
                for _ in 0..<1000 { node.write(3) }
            }
            #expect(fired.value == 4000)
            #expect(token.cancel())
            node.write(3)
            #expect(fired.value == 4000)
        }

        // MARK: Properties beyond 64

        @Test func propertyIndicesBeyond64AreDisjoint() {
            let node = AtomicNode()
            let indices = [0, 64, 1000, 128, 63]
            // Every index, twice: the second round fires them in the other order.
            for order in [indices, indices.reversed()] {
                let counters = indices.map { _ in Counter() }
                let all = Counter()
                for (index, counter) in zip(indices, counters) {
                    withTracking({ node.read(index) }, onChange: { counter.bump() })
                }
                withTracking({ for index in indices { node.read(index) } }, onChange: { all.bump() })
                node.write(1)  // shares bit 1 with nobody here, observed by no one
                node.write(1064)  // the same bit as 1000, in another word
                #expect(counters.map(\.value) == [0, 0, 0, 0, 0])
                #expect(all.value == 0)
                for (step, index) in order.enumerated() {
                    node.write(index)
                    let fired = indices.map { order[...step].contains($0) ? 1 : 0 }
                    #expect(counters.map(\.value) == fired, "after writing \(order[...step])")
                    #expect(all.value == 1)
                }
            }
        }

        // MARK: One slot for the first 15 properties

        @Test func slotContentWatchesItsMaskOrItsProperty() {
            let masked = SlotContent(record: 7, generation: 3, mask: 1 << 0 | 1 << 3 | 1 << 14)
            #expect((0..<40).filter { masked.watches($0) } == [0, 3, 14])
            #expect(masked.record == 7 && masked.generation == 3)
            let single = SlotContent(record: 7, generation: 3, property: 15)
            #expect((0..<40).filter { single.watches($0) } == [15])
            let last = SlotContent(record: 1, generation: 0, property: SlotContent.propertyLimit - 1)
            #expect(last.watches(32767) && !last.watches(32767 - 0x8000 + 3))
            let entry = tracking_entry(
                object: nil, mask: 1 << 0 | 1 << 14 | 1 << 15 | 1 << 63, version: 0, word: 0, ownWrites: 0,
                previous: -1, position: 0, dependency: -1)
            #expect(TrackingScope.slotCount(entry) == 3)  // one for 0 and 14, one each for 15 and 63
            var high = entry
            high.word = 1
            #expect(TrackingScope.slotCount(high) == 4)  // no mask form beyond word 0
        }

        @Test func scopeReadingPropertiesAcrossTheMaskBoundaryFiresForEachAndOnlyThose() {
            let read = [0, 3, 14, 15, 16, 70]
            for written in [0, 3, 14, 15, 16, 70, 1, 13, 17, 64, 6] {
                let node = AtomicNode()
                let fired = Counter()
                withTracking({ for p in read { node.read(p) } }, onChange: { fired.bump() })
                // Three objects' worth of slots: a second scope on the same object stays separate.
                let other = Counter()
                withTracking({ node.read(13) }, onChange: { other.bump() })
                node.write(written)
                #expect(fired.value == (read.contains(written) ? 1 : 0), "writing \(written)")
                #expect(other.value == (written == 13 ? 1 : 0), "writing \(written)")
            }
        }

        @Test func manyPropertiesOnOneObject() {
            let node = AtomicNode()
            let count = 300
            let counters = (0..<count).map { _ in Counter() }
            for (index, counter) in counters.enumerated() {
                withTracking({ node.read(index * 7) }, onChange: { counter.bump() })
            }
            for index in stride(from: 0, to: count, by: 2) { node.write(index * 7) }
            #expect(counters.enumerated().allSatisfy { $0.element.value == ($0.offset % 2 == 0 ? 1 : 0) })
            for index in 0..<count { node.write(index * 7) }
            #expect(counters.allSatisfy { $0.value == 1 })
        }
    }
}
