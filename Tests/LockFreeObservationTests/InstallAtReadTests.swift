import CTrackingSupport
import Glibc
import RegistrarTestSupport
import Testing

@testable import LockFreeObservation

extension RegistrarTests {
    /// An outermost one-shot scope installs each object at its first read and holds no reference to
    /// it (`TrackingScope.installAtRead`): what that changes, and what it must not.
    @Suite struct InstallAtReadTests {
        /// No reference held: an object read and dropped in the body goes away in the body (a
        /// scope that retained it would keep it to its end), and a scope whose every object went
        /// away watches nothing and returns its record.
        @Test func anObjectReadAndDroppedGoesAwayDuringTheBody() {
            let fired = Counter()
            weak var gone: Counters?
            var goneInBody = false
            let (_, token) = withCancellableTracking(
                {
                    var model: Counters? = Counters()
                    gone = model
                    _ = model!.count
                    model = nil
                    goneInBody = gone == nil
                }, onChange: { fired.bump() })
            #expect(goneInBody)
            #expect(!token.isArmed)
            #expect(isReturned(token))
            #expect(fired.value == 0)
        }

        /// An object allocated, in the body, at the address of one the body read and dropped is
        /// another object: its read is installed, not mistaken for the first one's (which the
        /// scope's entries and `seen` table still name). Property 0 (a masked slot), 20 (a slot of
        /// its own) and 70 (another word).
        @Test(
            .disabled(
                if: addressSanitizerIsLoaded, "AddressSanitizer holds freed memory back: no address is handed out again"
            ),
            arguments: [0, 20, 70])
        func anObjectAtTheAddressOfOneThatWentAwayIsInstalled(property: Int) throws {
            let fired = Counter()
            var successor: AtomicNode?
            let (_, token) = withCancellableTracking(
                {
                    var first: AtomicNode? = AtomicNode()
                    first!.read(property)
                    let address = UInt(bitPattern: ObjectIdentifier(first!))
                    first = nil
                    // The allocator hands a freed block out again soon: keep every other candidate
                    // alive until one lands there.
                    var others: [AtomicNode] = []
                    while others.count < 10_000 {
                        let candidate = AtomicNode()
                        if UInt(bitPattern: ObjectIdentifier(candidate)) == address {
                            successor = candidate
                            break
                        }
                        others.append(candidate)
                    }
                    successor?.read(property)
                }, onChange: { fired.bump() })
            let node = try #require(successor, "no object was allocated at the first one's address")
            #expect(token.isArmed)
            node.write(property + 1)
            #expect(fired.value == 0)
            node.write(property)
            #expect(fired.value == 1)
            #expect(!token.isArmed)
        }

        /// A further property of an object installed at its first read is installed at its own read:
        /// in the same masked slot (widened: one slot for both), a slot of its own, or another word.
        /// A write of either property fires the scope once; a property not read does not.
        @Test(arguments: [(3, 9, 1), (3, 20, 2), (20, 21, 2), (3, 70, 2), (70, 130, 2)])
        func aFurtherPropertyIsInstalledAtItsRead(first: Int, further: Int, slots: Int) {
            let node = AtomicNode()
            for written in [first, further, 4] {
                let fired = Counter()
                let (_, token) = withCancellableTracking(
                    {
                        node.read(first)
                        node.read(further)
                        node.read(first)
                    }, onChange: { fired.bump() })
                #expect(node.slotsHeld(record: token.record, generation: token.generation) == slots)
                node.write(written)
                let read = written != 4
                #expect(fired.value == (read ? 1 : 0), "wrote \(written) after reading \(first), \(further)")
                #expect(token.isArmed == !read)
                token.cancel()
                #expect(isReturned(token))
            }
        }

        /// A write of another thread during the body is reported after the body, once, on the
        /// tracking thread (the record is reading: the writer only marks it), as `install`
        /// reported a change that raced a read.
        @Test func aWriteDuringTheBodyIsReportedAfterItOnTheTrackingThread() {
            let model = Counters()
            let ref = Unchecked(model)
            let tracking = UInt(pthread_self())
            let fired = Counter()
            let firedInBody = Counter(-1)
            let onTrackingThread = Counter(-1)
            let (value, token) = withCancellableTracking(
                { () -> Int in
                    let value = model.count
                    _ = model.other
                    onNewThread {
                        ref.value.other = 1
                        ref.value.count = 2
                    }
                    firedInBody.set(fired.value)
                    return value
                },
                onChange: {
                    fired.bump()
                    onTrackingThread.set(UInt(pthread_self()) == tracking ? 1 : 0)
                })
            #expect(value == 0)
            #expect(firedInBody.value == 0)
            #expect(fired.value == 1)
            #expect(onTrackingThread.value == 1)
            #expect(!token.isArmed)
            #expect(isReturned(token))
        }

        /// The body's own write of a property it read is not a change (its slot is already
        /// installed: the writer skips the scope it runs); a later write is.
        @Test func theBodysOwnWriteOfAnInstalledPropertyIsNotAChange() {
            let model = Counters()
            let fired = Counter()
            let (_, token) = withCancellableTracking(
                {
                    _ = model.count
                    model.count = 1
                    _ = model.count
                }, onChange: { fired.bump() })
            #expect(fired.value == 0)
            #expect(token.isArmed)
            model.count = 2
            #expect(fired.value == 1)
        }

        /// A body that throws leaves nothing watching: its record returns to the pool, later writes
        /// notify nobody, and the thread no longer installs at reads.
        @Test func aBodyThatThrowsLeavesNothingWatching() {
            struct Failure: Error {}
            let model = Counters()
            let fired = Counter()
            var scope = tracking_at_read()
            #expect(throws: Failure.self) {
                try withTracking(
                    { () throws -> Int in
                        _ = model.count
                        scope = tracking_thread_state()!.pointee.atRead
                        if scope.record != 0 { throw Failure() }
                        return 0
                    }, onChange: { fired.bump() })
            }
            #expect(scope.record != 0)
            #expect(isReturned(TrackingToken(record: scope.record, generation: scope.generation)))
            #expect(tracking_thread_state()!.pointee.atRead.record == 0)
            model.count = 1
            #expect(fired.value == 0)
        }

        /// A scope nested in the body records its reads for the body's scope too (retained, and
        /// installed when the body ends): a write of what only the nested scope read fires both.
        @Test(arguments: ["inner.count", "inner.other", "outer.count"])
        func readsOfANestedScopeAreWatchedByTheScopeAroundIt(written: String) {
            let (inner, outer) = (Counters(), Counters())
            let (innerFired, outerFired) = (Counter(), Counter())
            let (_, token) = withCancellableTracking(
                {
                    _ = outer.count
                    _ = withCancellableTracking({ inner.count }, onChange: { innerFired.bump() })
                    _ = inner.other
                }, onChange: { outerFired.bump() })
            switch written {
            case "inner.count": inner.count = 1
            case "inner.other": inner.other = 1
            default: outer.count = 1
            }
            #expect(innerFired.value == (written == "inner.count" ? 1 : 0))
            #expect(outerFired.value == 1)
            #expect(!token.isArmed)
        }

        /// One thread writes a property while another tracks it in one-shot scopes, so that writes
        /// land during bodies (marking them), at their end (racing the arming) and after it. After
        /// the writer stops: every scope fired at most once; every scope no longer armed fired
        /// exactly once (none was cancelled: a mark lost at the end would leave it neither armed
        /// nor told); every scope still armed read the final value.
        @Test func writesRacingTheEndOfBodiesFireEachScopeOnce() {
            let model = Counters()
            let ref = Unchecked(model)
            let writes = 100_000
            let done = Counter()
            let (twice, lost, stale, scopes) = (Counter(), Counter(), Counter(), Counter())
            onThreads(2) { thread in
                if thread == 0 {
                    for i in 1...writes { ref.value.count = i }
                    done.set(1)
                    return
                }
                var kept: [(value: Int, token: TrackingToken, fired: Counter)] = []
                // At most 100,000 scopes: how many fit in the writer's run depends on the threads'
                // speeds (2 million were seen in a debug build, and the writer's scan slows as the
                // slots of armed scopes pile up); the checks wait for the writer to stop.
                while kept.count < 5_000 || (done.value == 0 && kept.count < 100_000) {
                    let fired = Counter()
                    let (value, token) = withCancellableTracking({ ref.value.count }, onChange: { fired.bump() })
                    kept.append((value, token, fired))
                }
                wait(for: done, toReach: 1)
                let final = ref.value.count
                for scope in kept {
                    if scope.fired.value > 1 { twice.bump() }
                    if !scope.token.isArmed && scope.fired.value != 1 { lost.bump() }
                    if scope.token.isArmed && scope.value != final { stale.bump() }
                    scope.token.cancel()
                }
                scopes.set(kept.count)
            }
            #expect(scopes.value >= 5_000)
            #expect(twice.value == 0)
            #expect(lost.value == 0)
            #expect(stale.value == 0)
        }

        /// Two threads: one writes a few shared objects in rounds, the other tracks them in scopes
        /// whose bodies also read short-lived objects (each goes away in the body, and the next
        /// usually takes its address, so the scope forgets its entries again and again). At each
        /// round's end, every scope still armed read the values the objects hold then (and one made
        /// after the writes is armed).
        @Test func scopesWhoseObjectsComeAndGoNeverMissAChange() {
            let cells = (0..<8).map { _ in Counters() }
            let ref = Unchecked(cells)
            let rounds = 300
            let barrier = RoundBarrier(threads: 2)
            let (stale, armed, scopes) = (Counter(), Counter(), Counter())
            onThreads(2) { thread in
                var random = SplitMix64(seed: 0xA7_2EAD)
                for round in 1...rounds {
                    if thread == 0 {
                        for k in 0..<16 { ref.value[random.below(8)].count = round * 100 + k }
                        barrier.wait(2 * round - 1)
                        barrier.wait(2 * round)
                        continue
                    }
                    var kept: [(value: [Int], token: TrackingToken)] = []
                    for _ in 0..<16 {
                        kept.append(
                            withCancellableTracking(
                                { () -> [Int] in
                                    ref.value.map { cell in
                                        let passing = Counters()
                                        _ = passing.count
                                        return cell.count
                                    }
                                }, onChange: {}))
                    }
                    barrier.wait(2 * round - 1)
                    let now = ref.value.map(\.count)
                    // One scope made after the round's writes: nothing fires it, so every round
                    // checks at least one armed scope, whatever the threads' timing.
                    kept.append(withCancellableTracking({ ref.value.map(\.count) }, onChange: {}))
                    for scope in kept where scope.token.isArmed {
                        armed.bump()
                        if scope.value != now { stale.bump() }
                    }
                    for scope in kept {
                        scope.token.cancel()
                        if !isReturned(scope.token) { stale.bump() }
                    }
                    scopes.set(scopes.value + kept.count)
                    barrier.wait(2 * round)
                }
            }
            #expect(scopes.value == rounds * 17)
            #expect(armed.value >= rounds, "a scope made after the writes was not armed")
            #expect(
                stale.value == 0,
                "\(stale.value) of \(armed.value) armed scopes read a stale value or kept their record")
        }
    }
}
