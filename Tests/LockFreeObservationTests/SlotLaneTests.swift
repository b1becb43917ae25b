import CTrackingSupport
import RegistrarTestSupport
import Testing

@testable import LockFreeObservation

/// Runs `body` with the calling thread installing in lane `lane`'s chain, then gives the thread its
/// own lane back.
func inLane<T>(_ lane: UInt32, _ body: () throws -> T) rethrows -> T {
    let thread = tracking_thread_state()!
    let saved = thread.pointee.lane
    thread.pointee.lane = lane + 1
    defer { thread.pointee.lane = saved }
    return try body()
}

extension TrackedObject {
    /// The slots in use (not empty) in lane `lane`'s chain of this object.
    func slotsInUse(lane: UInt32) -> Int {
        var count = 0
        var block = SlotBlock(
            address: lane == 0
                ? SlotsWord.address(_slots.load(ordering: .acquiring)) : _laneSlots.load(ordering: .acquiring))
        while let current = block {
            for i in 0..<current.capacity where current.slot(i).pointee.load(ordering: .acquiring) != 0 { count += 1 }
            block = current.following
        }
        return count
    }
}

extension RegistrarTests {
    /// Each thread installs its scopes in its lane's chain of an object's slots
    /// (`TrackedObject._laneSlots`), so that two threads tracking the same objects claim slots on
    /// lines of their own. Writers, a dying object and a reusable scope dropping a dependency must
    /// find a scope in either chain. (`onThreads` gives its threads lanes 0, 1, 0, ... in turn, so
    /// every test on several threads runs both.)
    @Suite struct SlotLaneTests {
        /// A thread takes a lane at its first install and keeps it.
        @Test func aThreadTakesALaneAtItsFirstInstallAndKeepsIt() {
            let lanes = Unchecked(UnsafeMutablePointer<UInt32>.allocate(capacity: 3))
            defer { lanes.value.deallocate() }
            onNewThread {
                let thread = tracking_thread_state()!
                thread.pointee.lane = 0  // as a thread that never installed (`onThreads` sets lanes)
                lanes.value[0] = thread.pointee.lane
                let counters = Counters()
                withTracking({ _ = counters.count }, onChange: {})
                lanes.value[1] = thread.pointee.lane
                withTracking({ _ = Counters().other }, onChange: {})
                lanes.value[2] = thread.pointee.lane
                // The lane's chain holds the scope's slot; the other chain was never allocated.
                let lane = thread.pointee.lane - 1
                precondition(counters.slotsInUse(lane: lane) == 1 && counters.slotsInUse(lane: 1 - lane) == 0)
            }
            #expect(lanes.value[0] == 0)
            #expect(lanes.value[1] == 1 || lanes.value[1] == 2)
            #expect(lanes.value[2] == lanes.value[1])
        }

        /// Two scopes of one object, one per lane: each in its own chain, each told once of a write.
        @Test func scopesInBothLanesAreEachToldOnce() {
            let counters = Counters()
            let (first, second) = (Counter(), Counter())
            let tokens = [
                inLane(0) { withCancellableTracking({ _ = counters.count }, onChange: { first.bump() }).token },
                inLane(1) { withCancellableTracking({ _ = counters.count }, onChange: { second.bump() }).token },
            ]
            #expect(counters.slotsInUse(lane: 0) == 1)
            #expect(counters.slotsInUse(lane: 1) == 1)
            counters.count += 1
            counters.count += 1
            #expect(first.value == 1 && second.value == 1)
            #expect(tokens.allSatisfy { !$0.isArmed && isReturned($0) })
        }

        /// Every kind of scope, installed in either lane, is told of a write, as often as its kind
        /// says, and of none after it is cancelled: one-shot (installed at the read, and nested,
        /// installed at its end), continuous and reusable.
        @Test(arguments: [0, 1] as [UInt32])
        func everyKindOfScopeIsToldInEitherLane(lane: UInt32) {
            let counters = Counters()
            let (oneShot, nested, continuous) = (Counter(), Counter(), Counter())
            let observer = CountingObserver()
            let reusable = ReusableScope(notifying: observer)
            var tokens: [TrackingToken] = []
            inLane(lane) {
                tokens.append(withCancellableTracking({ _ = counters.count }, onChange: { oneShot.bump() }).token)
                withTracking(
                    {
                        tokens.append(
                            withCancellableTracking({ _ = counters.count }, onChange: { nested.bump() }).token)
                    }, onChange: {})
                tokens.append(observeChanges({ _ = counters.count }, onChange: { continuous.bump() }))
                _ = reusable.run { counters.count }
            }
            // One slot each: the first scope, the nested one and the one around it (its reads count
            // for both), the continuous and the reusable one; all in the lane's chain.
            #expect(counters.slotsInUse(lane: lane) == 5)
            #expect(counters.slotsInUse(lane: 1 - lane) == 0)
            counters.count += 1
            #expect(oneShot.value == 1 && nested.value == 1 && continuous.value == 1 && observer.count == 1)
            counters.count += 1
            #expect(oneShot.value == 1 && nested.value == 1 && continuous.value == 2 && observer.count == 1)
            #expect(tokens[2].cancel())
            counters.count += 1
            #expect(continuous.value == 2)
            _ = reusable.cancel()
        }

        /// An object that goes away closes the scopes it was the last object of, in either chain,
        /// and releases their callbacks.
        @Test func aDyingObjectClosesTheScopesOfBothLanes() {
            final class Captured: Sendable {
                let released: Counter
                init(_ released: Counter) { self.released = released }
                deinit { released.bump() }
            }
            let released = Counter()
            var tokens: [TrackingToken] = []
            do {
                let doomed = Counters()
                for lane: UInt32 in [0, 1, 1] {
                    let captured = Captured(released)
                    tokens.append(
                        inLane(lane) {
                            withCancellableTracking({ _ = doomed.count }, onChange: { _ = captured })
                        }.token)
                }
                #expect(doomed.slotsInUse(lane: 0) == 1 && doomed.slotsInUse(lane: 1) == 2)
                #expect(released.value == 0)
            }
            #expect(released.value == 3)
            #expect(tokens.allSatisfy { !$0.isArmed && isReturned($0) })
        }

        /// A reusable scope run on threads of different lanes has slots in both chains: a dropped
        /// dependency's slots are emptied in whichever chain holds them (one slot by its address,
        /// several, properties 20 and 21, by a search of the chains), and the kept ones still tell.
        @Test func aReusableScopeRunInBothLanesDropsAndKeepsExactlyItsSlots() {
            let (a, b) = (Row(), Row())
            let observer = CountingObserver()
            let scope = ReusableScope(notifying: observer)
            _ = inLane(0) { scope.run { a.read(1) } }
            _ = inLane(1) { scope.run { a.read(1) + b.read(20) + b.read(21) } }
            #expect(a.slotsInUse(lane: 0) == 1 && a.slotsInUse(lane: 1) == 0)
            #expect(b.slotsInUse(lane: 0) == 0 && b.slotsInUse(lane: 1) == 2)
            _ = inLane(0) { scope.run { b.read(20) + b.read(21) } }
            #expect(a.slots(of: scope) == 0 && a.slotsInUse(lane: 0) == 0)
            #expect(b.slots(of: scope) == 2 && b.slotsInUse(lane: 1) == 2)
            a.write(1, 5)
            #expect(observer.count == 0)
            b.write(21, 5)
            #expect(observer.count == 1)
            _ = inLane(1) { scope.run { a.read(1) } }
            #expect(b.slots(of: scope) == 0 && b.slotsInUse(lane: 1) == 0)
            #expect(a.slots(of: scope) == 1 && a.slotsInUse(lane: 1) == 1)
            b.write(20, 6)
            #expect(observer.count == 1)
            a.write(1, 6)
            #expect(observer.count == 2)
            _ = scope.cancel()
        }

        /// Lane 0's chain head shares its word with the observed mask (`SlotsWord`): a lane-1 install
        /// sets the mask while that head is still 0, and lane 0's first block, published after,
        /// keeps it (a publication that replaced the word would lose the bit, and every later
        /// write of the property would skip the scan: the lane-1 scope never told).
        @Test func laneZerosFirstBlockKeepsTheMaskAnotherLaneSet() {
            let row = Row()
            let (first, second) = (CountingObserver(), CountingObserver())
            let one = inLane(1) { withTracking({ _ = row.read(2) }, notifying: first).token }
            #expect(SlotsWord.address(row._slots.load(ordering: .relaxed)) == 0)
            #expect(row._slots.load(ordering: .relaxed) == SlotsWord.bit(2))
            let zero = inLane(0) { withTracking({ _ = row.read(5) }, notifying: second).token }
            #expect(SlotsWord.address(row._slots.load(ordering: .relaxed)) != 0)
            #expect(row._slots.load(ordering: .relaxed) & 0xFFFF == SlotsWord.bit(2) | SlotsWord.bit(5))
            row.write(2, 1)
            #expect(first.count == 1 && second.count == 0)
            row.write(5, 1)
            #expect(second.count == 1)
            #expect(!one.isArmed && !zero.isArmed)
        }

        /// The mask has a bit per property modulo 16: a property sharing an observed one's bit is
        /// written by the observed protocol and tells no one; any other stays on the fast path.
        @Test func propertiesThatShareABitAreScannedAndToldNothing() {
            #expect(SlotsWord.bits(of: 1 << 6) == SlotsWord.bit(70))  // word 1, property 70
            #expect(SlotsWord.bits(of: 1 << 17 | 1 << 3) == SlotsWord.bit(1) | SlotsWord.bit(3))
            let row = Row()
            let observer = CountingObserver()
            let (_, token) = withTracking({ _ = row.read(3) }, notifying: observer)
            let sharing = row.willMutate(19)  // 19 % 16 == 3
            #expect(sharing.counted)
            row.didMutate(sharing)
            let other = row.willMutate(4)
            #expect(!other.counted)
            row.didMutate(other)
            #expect(observer.count == 0 && token.isArmed)
            row.write(3, 1)
            #expect(observer.count == 1)
        }

        /// Three threads: one writes shared objects in rounds, two (lanes 1 and 0) track them
        /// with one-shot scopes and a reusable scope each. At each round's end, every scope still
        /// armed read the values the objects hold then (and one made after the writes is armed).
        @Test func twoLanesTrackingTheSameObjectsUnderAWriterMissNothing() {
            let cells = (0..<8).map { _ in Counters() }
            let ref = Unchecked(cells)
            let rounds = 300
            let barrier = RoundBarrier(threads: 3)
            let (stale, armed, scopes) = (Counter(), Counter(), Counter())
            onThreads(3) { thread in
                var random = SplitMix64(seed: 0x1A_4E5 &+ UInt64(thread))
                let observer = CountingObserver()
                let reusable = ReusableScope(notifying: observer)
                for round in 1...rounds {
                    if thread == 0 {
                        for k in 0..<16 { ref.value[random.below(8)].count = round * 100 + k }
                        barrier.wait(2 * round - 1)
                        barrier.wait(2 * round)
                        continue
                    }
                    var kept: [(value: [Int], token: TrackingToken)] = []
                    for _ in 0..<8 {
                        kept.append(withCancellableTracking({ ref.value.map(\.count) }, onChange: {}))
                    }
                    let notified = observer.count
                    let reread = reusable.run { ref.value.map(\.count) }
                    barrier.wait(2 * round - 1)
                    let now = ref.value.map(\.count)
                    // One scope made after the round's writes: nothing fires it, so every round
                    // checks at least one armed scope, whatever the threads' timing.
                    kept.append(withCancellableTracking({ ref.value.map(\.count) }, onChange: {}))
                    for scope in kept where scope.token.isArmed {
                        armed.bump()
                        if scope.value != now { stale.bump() }
                    }
                    if reusable.isArmed, reread != now { stale.bump() }
                    if !reusable.isArmed && observer.count == notified { stale.bump() }
                    for scope in kept { scope.token.cancel() }
                    scopes.raw.add(kept.count, ordering: .relaxed)
                    barrier.wait(2 * round)
                }
                _ = reusable.cancel()
            }
            #expect(scopes.value == 2 * rounds * 9)
            #expect(armed.value >= 2 * rounds, "a scope made after the writes was not armed")
            #expect(stale.value == 0, "\(stale.value) scopes read a stale value and were not told")
        }
    }
}
