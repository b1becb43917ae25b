import CTrackingSupport
import Glibc
import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockFreeObservation

/// A model whose write runs a hook between its announcement (`willMutate`) and its store, so that a
/// test can put another thread inside that window. The value is atomic: threads share it.
@TrackedModel final class PausingModel: TrackedObject, @unchecked Sendable {
    // `@unchecked Sendable`: the only state is atomic.
    let storage = Atomic<Int>(0)
    var value: Int {
        trackAccess(0)
        return storage.load(ordering: .relaxed)
    }
    func write(_ newValue: Int, inFlight: () -> Void) {
        let mutation = willMutate(0)
        inFlight()
        storage.store(newValue, ordering: .relaxed)
        didMutate(mutation)
    }
}

/// Holds a token that a callback installed earlier needs to reach.
final class TokenBox: @unchecked Sendable {
    // `@unchecked Sendable`: set before any callback can read it, never changed after.
    var token = TrackingToken.inert
}

/// Waits, yielding, until `counter` reaches `value`.
func wait(for counter: Counter, toReach value: Int) {
    while counter.value < value { sched_yield() }
}

extension RegistrarTests {
    /// One test per defect an adversarial review of the registrar found, each through the public API
    /// where the defect is reachable that way.
    @Suite struct AdversarialScheduleTests {
        // MARK: 1. A change that straddles a read

        /// A write begins (willSet done, no observer yet), a scope on another thread reads the old
        /// value and installs, then the write stores: the scope holds a stale value and must be
        /// told. It is, when the write ends.
        @Test func aWriteThatStraddlesTheReadIsNotLost() {
            let (begun, installed, fired) = (Counter(), Counter(), Counter())
            let (firedBeforeStore, read) = (Counter(-1), Counter(-1))
            let model = PausingModel()
            let ref = Unchecked(model)
            onThreads(2) { thread in
                if thread == 0 {
                    ref.value.write(1) {
                        begun.set(1)
                        wait(for: installed, toReach: 1)
                        firedBeforeStore.set(fired.value)
                    }
                } else {
                    wait(for: begun, toReach: 1)
                    read.set(withTracking({ ref.value.value }, onChange: { fired.bump() }))
                    installed.set(1)
                }
            }
            #expect(read.value == 0)  // it read the old value...
            #expect(model.value == 1)
            #expect(firedBeforeStore.value == 0)  // ...was not told before the store...
            #expect(fired.value == 1)  // ...and was told once it was stored
        }

        /// The same straddle, of a property already observed: the write is counted in flight and
        /// scans its observers before the store, so a scope that reads in the window installs after
        /// that scan and holds a value the store replaces. Only the write's end can tell it, through
        /// the straddling slot the read left (in the test above the first write of the property
        /// takes the unobserved protocol, whose scan comes after the store, and tells the scope
        /// without one).
        @Test func aWriteOfAnObservedPropertyThatStraddlesTheReadIsNotLost() {
            let (begun, installed, fired, earlier) = (Counter(), Counter(), Counter(), Counter())
            let (firedBeforeStore, read) = (Counter(-1), Counter(-1))
            let model = PausingModel()
            let ref = Unchecked(model)
            _ = withTracking({ model.value }, onChange: { earlier.bump() })
            onThreads(2) { thread in
                if thread == 0 {
                    ref.value.write(1) {
                        begun.set(1)
                        wait(for: installed, toReach: 1)
                        firedBeforeStore.set(fired.value)
                    }
                } else {
                    wait(for: begun, toReach: 1)
                    read.set(withTracking({ ref.value.value }, onChange: { fired.bump() }))
                    installed.set(1)
                }
            }
            #expect(earlier.value == 1)  // the write was observed when it began
            #expect(read.value == 0)
            #expect(firedBeforeStore.value == 0)
            #expect(fired.value == 1)
        }

        /// The plain stress: one thread writes, another tracks and keeps every scope; after
        /// the writer stops, no scope is armed on a value other than the final one.
        @Test func noScopeIsLeftArmedOnAStaleValue() {
            let model = Counters()
            let ref = Unchecked(model)
            let writes = 200_000
            let done = Counter()
            let staleArmed = Counter()
            let scopes = Counter()
            onThreads(2) { thread in
                if thread == 0 {
                    for i in 1...writes { ref.value.count = i }
                    done.set(1)
                } else {
                    var kept: [(value: Int, token: TrackingToken)] = []
                    // At most 200,000 scopes (how many fit in the writer's run depends on the
                    // threads' speeds: millions were seen in a debug build).
                    while kept.count < 10_000 || (done.value == 0 && kept.count < 200_000) {
                        kept.append(withCancellableTracking({ ref.value.count }, onChange: {}))
                    }
                    // Threads joined below; the writer is done now.
                    wait(for: done, toReach: 1)
                    let final = ref.value.count
                    for (value, token) in kept where token.isArmed && value != final { staleArmed.bump() }
                    for (_, token) in kept { token.cancel() }
                    scopes.set(kept.count)
                }
            }
            #expect(scopes.value >= 10_000)
            #expect(staleArmed.value == 0, "\(staleArmed.value) of \(scopes.value) scopes armed on a stale value")
        }

        // MARK: 2. No callback starts after cancel() returned true

        /// Two continuous observers of one property: the first one's `onChange` cancels the
        /// second, which the same write had already claimed. The second must not run.
        @Test func aContinuousCallbackCancelledByAnEarlierOneDoesNotStart() {
            let model = Counters()
            let box = TokenBox()
            let cancelled = Counter(-1)
            let second = Counter()
            let first = observeChanges({ _ = model.count }, onChange: { cancelled.set(box.token.cancel() ? 1 : 0) })
            box.token = observeChanges({ _ = model.count }, onChange: { second.bump() })
            model.count = 1
            #expect(cancelled.value == 1)
            #expect(second.value == 0)
            model.count = 2
            #expect(second.value == 0)
            #expect(first.cancel())
            #expect(isReturned(box.token))
        }

        /// The same across threads: the writer's first callback waits while another thread
        /// cancels the second observer; once `cancel()` has returned true, the second never starts.
        @Test func aContinuousCallbackCancelledFromAnotherThreadDoesNotStart() {
            let (inFirst, second, cancelReturned) = (Counter(), Counter(), Counter(-1))
            let box = TokenBox()
            let model = Counters()
            let ref = Unchecked(model)
            let first = observeChanges(
                { _ = model.count },
                onChange: {
                    inFirst.set(1)
                    wait(for: cancelReturned, toReach: 0)
                })
            box.token = observeChanges({ _ = model.count }, onChange: { second.bump() })
            onThreads(2) { thread in
                if thread == 0 {
                    ref.value.count = 1
                } else {
                    wait(for: inFirst, toReach: 1)
                    cancelReturned.set(box.token.cancel() ? 1 : 0)
                }
            }
            #expect(cancelReturned.value == 1)
            #expect(second.value == 0)
            #expect(first.cancel())
        }

        /// A one-shot scope claimed by the same write cannot be cancelled any more: `cancel()`
        /// returns false and its single callback runs.
        @Test func aOneShotScopeAlreadyClaimedIsNotCancelled() {
            let model = Counters()
            let box = TokenBox()
            let cancelled = Counter(-1)
            let second = Counter()
            withTracking({ _ = model.count }, onChange: { cancelled.set(box.token.cancel() ? 1 : 0) })
            box.token = withCancellableTracking({ _ = model.count }, onChange: { second.bump() }).token
            model.count = 1
            #expect(cancelled.value == 0)
            #expect(second.value == 1)
        }

        // MARK: 3. A deinit run by end() that tracks again

        /// The last reference to an object is the scope's own; the object's deinit (run by the
        /// scope's end) writes a property whose observer re-arms, which starts and ends a scope
        /// inside the first one's end. Each object is released once; the process survives. The
        /// scope is a continuous one, which retains what it reads until its end (an outermost
        /// `withTracking` installs at its reads and retains nothing): its end releases the
        /// entries one by one, each taken off the buffer first, so that the nested outermost end
        /// releases only what is left (`TrackingScope.releaseEntries`).
        @Test func aDeinitThatTracksAgainInsideEndReleasesEachObjectOnce() async {
            await #expect(processExitsWith: .success) {
                final class ReArming: @unchecked Sendable {
                    let model = Counters()
                    var calls = 0
                    func observe() {
                        withTracking(
                            { _ = model.count },
                            onChange: {
                                self.calls += 1
                                self.observe()
                            })
                    }
                }
                let observer = ReArming()
                observer.observe()
                let deinits = Counter()
                var dying: DyingInsideEnd? = DyingInsideEnd {
                    deinits.bump()
                    observer.model.count += 1
                }
                let other = Counters()
                let token = observeChanges(
                    {
                        _ = other.count
                        _ = dying!.x
                        dying = nil  // the scope's entry holds the last reference
                    }, onChange: {})
                token.cancel()
                precondition(deinits.value == 1, "deinit ran \(deinits.value) times")
                precondition(observer.calls == 2, "observer called \(observer.calls) times")
            }
        }

        // MARK: 4. Stale slots never match a later incarnation

        /// A scope fires through one object and leaves a stale slot in another. Its record is
        /// fast-forwarded to the last generation a slot can tell apart and armed again: the old
        /// object's deinit does not touch the new scope, which fires for its own change; then the
        /// record retires instead of wrapping to a generation an old slot could match.
        @Test func aRecordRetiresBeforeItsGenerationCouldAliasAStaleSlot() {
            let limit = ScopeState.generationLimit
            var attempts = 0
            while true {
                attempts += 1
                #expect(attempts < 100, "could not take the same record twice")
                if attempts >= 100 { return }
                var old: Counters? = Counters()
                let trigger = Counters()
                let (_, first) = withCancellableTracking(
                    {
                        _ = old!.count
                        _ = trigger.count
                    }, onChange: {})
                trigger.count = 1  // fires: the slot in `old` is left behind, stale
                #expect(!first.isArmed)
                // Other tests may take the freed record meanwhile: then try again.
                guard ScopeTable.shared._fastForward(first.record, toGeneration: limit - 1) else { continue }
                let fresh = Counters()
                let fired = Counter()
                let (_, second) = withCancellableTracking({ _ = fresh.count }, onChange: { fired.bump() })
                guard second.record == first.record else {
                    second.cancel()
                    continue
                }
                #expect(second.generation == limit - 1)
                old = nil  // its deinit meets the stale slot of the record's earlier incarnation
                #expect(second.isArmed)
                let retiredBefore = ScopeTable.shared.retired.load(ordering: .relaxed)
                fresh.count = 1
                #expect(fired.value == 1)
                // The record retired: its generation is at the limit, never armed again.
                #expect(ScopeTable.shared.retired.load(ordering: .relaxed) == retiredBefore + 1)
                let state = ScopeState(raw: ScopeTable.record(first.record).pointee.state.load(ordering: .acquiring))
                #expect(state.generation == limit && state.isFree)
                for _ in 0..<64 {
                    let (_, token) = withCancellableTracking({ _ = fresh.count }, onChange: {})
                    #expect(token.record != first.record)
                    token.cancel()
                }
                return
            }
        }

        /// A slot's generation is compared exactly: no two generations a record can be armed with
        /// share a slot's bits.
        @Test func slotGenerationsAreExactBelowTheLimit() {
            let limit = ScopeState.generationLimit
            for generation: UInt32 in [0, 1, 0x7F_FFFE, limit - 1] {
                let slot = SlotContent(record: 5, generation: generation, property: 3)
                #expect(slot.generation == generation)
                #expect(slot.isLive(in: ScopeState(generation: generation, phase: .armed)))
                for other: UInt32 in [0, 1, 0x7F_FFFE, limit - 1] where other != generation {
                    #expect(!slot.isLive(in: ScopeState(generation: other, phase: .armed)))
                }
                #expect(!slot.isLive(in: ScopeState(generation: generation, phase: .closing)))
            }
        }

        // MARK: 5. An own write does not hide another thread's change

        /// Inside a scope, an own write runs an observer that reads the object in a nested scope
        /// (merged into the outer one); then another thread changes what that nested read saw.
        /// The outer scope must report it: the own write is not counted against it.
        @Test func anOwnWriteDoesNotHideAnotherThreadsChange() {
            let model = Counters()
            let ref = Unchecked(model)
            withTracking({ _ = model.count }, onChange: { withTracking({ _ = ref.value.other }, onChange: {}) })
            let fired = Counter()
            withTracking(
                {
                    model.count = 1  // own write; its observer's nested read of `other` merges here
                    onNewThread { ref.value.other = 5 }  // another thread's change of `other`
                }, onChange: { fired.bump() })
            #expect(fired.value == 1)
        }

        /// A scope nested in another installs when it ends, so a write another thread makes during
        /// its body finds no slot: only the install's re-check reports it. The scope's own write of
        /// the same object is counted in its entry, and must not make the re-check expect more.
        @Test func anOwnWriteInANestedScopeDoesNotHideAnotherThreadsWriteOfTheObject() {
            let model = Counters()
            let ref = Unchecked(model)
            let fired = Counter()
            withTracking(
                {
                    withTracking(
                        {
                            _ = model.count
                            _ = model.other
                            model.count = 1  // own write
                            onNewThread { ref.value.other = 5 }  // another thread's, unobserved: no slot yet
                        }, onChange: { fired.bump() })
                }, onChange: {})
            #expect(fired.value == 1)
        }

        // MARK: 6. Property indices

        @Test func propertyIndicesBeyondTheLimitAreRefusedWhereTheyAreGiven() async {
            #expect(TrackedObject.propertyLimit == 32_768)
            await #expect(processExitsWith: .failure) {
                AtomicNode().write(TrackedObject.propertyLimit)
            }
            await #expect(processExitsWith: .failure) {
                let node = AtomicNode()
                withTracking({ node.read(40_000) }, onChange: {})
            }
            // The last index works end to end.
            let node = AtomicNode()
            let fired = Counter()
            withTracking({ node.read(TrackedObject.propertyLimit - 1) }, onChange: { fired.bump() })
            node.write(TrackedObject.propertyLimit - 2)
            #expect(fired.value == 0)
            node.write(TrackedObject.propertyLimit - 1)
            #expect(fired.value == 1)
        }

        // MARK: Entries per object

        /// Reads alternating between two 64-property words of one object keep one entry (and so
        /// one slot) per word, not one per read.
        @Test func alternatingReadsOfTwoWordsKeepOneEntryEach() {
            let node = AtomicNode()
            let other = AtomicNode()
            var entries = 0
            withTracking(
                {
                    for i in 0..<1000 {
                        node.read(i % 2 == 0 ? 0 : 64)
                        if i % 100 == 0 { other.read(200) }
                    }
                    entries = tracking_thread_state()!.pointee.count
                }, onChange: {})
            #expect(entries == 3)
            #expect(node._observerSlotCapacity == SlotBlock.firstCapacity)
        }
    }
}

/// A model whose deinit runs a closure (`aDeinitThatTracksAgainInsideEndReleasesEachObjectOnce`).
@TrackedModel final class DyingInsideEnd: TrackedObject {
    var x = 0
    let onDeinit: () -> Void
    init(onDeinit: @escaping () -> Void) {
        self.onDeinit = onDeinit
        super.init()
    }
    deinit { onDeinit() }
}
