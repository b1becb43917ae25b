import CLockedTracking
import Foundation
import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockedObservation

/// The `locked` ablation under threads, as `lockfree`'s `concurrentListsWithHolesNeverMissAChange`:
/// threads re-run views over long lists (counters removed near the front, leaving holes, and put
/// back) whenever told, while every thread also writes counters. Oracle, at a barrier after each
/// round, with every thread stopped: a view still armed read what every counter holds now.
/// Also run under ThreadSanitizer, which sees the objects' locks through `_lockAcquired`.
@Suite struct LockedConcurrencyTests {
    /// Under ThreadSanitizer (its runtime loaded), the C target was compiled for it, so the locks
    /// reach it (`locked_lock_acquired`); in other builds they do not.
    @Test func theLocksAreShownToThreadSanitizerExactlyInItsBuilds() {
        let sanitized = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_acquire") != nil
        #expect(locked_lock_is_visible_to_tsan() == sanitized)
    }

    final class View: @unchecked Sendable {
        // `@unchecked Sendable`: `order` and `reads` belong to the owning thread and are read by
        // the checking thread only while every thread waits at the barrier; `dirty` is atomic.
        let dirty = Atomic<Int>(0)
        var order: [Int] = []
        var reads: [(counter: Int, value: Int)] = []
        var scope: LockedScope!
    }

    final class Shared: Sendable {
        let next = Atomic<Int>(1)
        let arrived = Atomic<Int>(0)
        let stale = Atomic<Int>(0)
        let holesSeen = Atomic<Int>(0)
        let threads: Int
        init(threads: Int) { self.threads = threads }

        /// Returns once every thread has called it `generation` times.
        func barrier(_ generation: Int) {
            arrived.add(1, ordering: .sequentiallyConsistent)
            while arrived.load(ordering: .sequentiallyConsistent) < generation * threads { sched_yield() }
        }
    }

    /// xorshift64*, one stream per thread.
    struct Random {
        var state: UInt64
        init(seed: UInt64, thread: Int) { state = seed &+ UInt64(thread) &* 0x9E37_79B9_7F4A_7C15 | 1 }
        mutating func below(_ n: Int) -> Int {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return Int((state &* 0x2545_F491_4F6C_DD1D) >> 33) % n
        }
    }

    /// Runs `rounds` rounds on `shared.threads` threads: in each, every thread runs
    /// `step(thread, &random)`, then, with every thread stopped at a barrier, thread 0 runs
    /// `check()`. Returns once every thread has joined.
    static func race(
        seed: UInt64, rounds: Int, _ shared: Shared, step: @escaping (Int, inout Random) -> Void,
        check: @escaping () -> Void
    ) {
        let work = Unchecked((step, check))
        let group = DispatchGroup()
        for thread in 0..<shared.threads {
            group.enter()
            Thread {
                let (step, check) = work.value
                var random = Random(seed: seed, thread: thread)
                for round in 0..<rounds {
                    step(thread, &random)
                    shared.barrier(2 * round + 1)
                    if thread == 0 { check() }
                    shared.barrier(2 * round + 2)
                }
                group.leave()
            }.start()
        }
        group.wait()
    }

    @Test(arguments: [0x10C4_0001, 0x10C4_0002] as [UInt64])
    func concurrentListsWithHolesNeverMissAChange(seed: UInt64) {
        let length = 2 * DependencyHoles.moveLimit + 10
        let counters = (0..<(length + 20)).map { _ in CounterModel() }
        let threads = 2
        let viewsPerThread = 3
        let rounds = 300
        let shared = Shared(threads: threads)
        let views = (0..<threads * viewsPerThread).map { _ in View() }
        for view in views {
            view.order = Array(0..<length)
            view.scope = LockedScope(onChange: { view.dirty.store(1, ordering: .sequentiallyConsistent) })
        }
        Self.race(seed: seed, rounds: rounds, shared) { thread, random in
            let own = views[(thread * viewsPerThread)..<((thread + 1) * viewsPerThread)]
            for _ in 0..<12 {
                if random.below(2) == 0 {
                    counters[random.below(counters.count)].value = shared.next.add(1, ordering: .relaxed).newValue
                    continue
                }
                let view = own[own.startIndex + random.below(viewsPerThread)]
                switch random.below(4) {
                case 0 where view.order.count > 10:
                    view.order.remove(at: random.below(view.order.count / 4))
                case 1:
                    let unread = (0..<counters.count).filter { !view.order.contains($0) }
                    if !unread.isEmpty {
                        view.order.insert(
                            unread[random.below(unread.count)], at: random.below(view.order.count / 4 + 1))
                    }
                default:
                    if view.dirty.load(ordering: .sequentiallyConsistent) == 0 { continue }
                }
                view.dirty.store(0, ordering: .sequentiallyConsistent)
                let order = view.order
                view.reads = view.scope.run { order.map { ($0, counters[$0].value) } }
                if view.scope.holeCount > 0 { shared.holesSeen.add(1, ordering: .relaxed) }
            }
        } check: {
            for view in views where view.scope.isArmed {
                if view.reads.contains(where: { counters[$0.counter].value != $0.value }) {
                    shared.stale.add(1, ordering: .relaxed)
                }
            }
        }
        for view in views { _ = view.scope.cancel() }
        #expect(shared.holesSeen.load(ordering: .relaxed) > 0, "no run left a hole: the test does not test holes")
        #expect(shared.stale.load(ordering: .relaxed) == 0, "times an armed view held a value that had changed")
    }
}

extension LockedConcurrencyTests {
    /// Properties spread over the leads (`DependencyHead.key`): 0 and 14 lead themselves, 15 and
    /// 63 share lead 15, 64 and 200 are in other words.
    final class Model: LockedObject, @unchecked Sendable {
        // `@unchecked Sendable`: the values are atomic.
        static let properties = [0, 14, 15, 63, 64, 200]
        let values: UnsafeMutablePointer<Atomic<Int>>
        override init() {
            values = .allocate(capacity: Self.properties.count)
            for i in 0..<Self.properties.count { (values + i).initialize(to: Atomic(0)) }
            super.init()
        }
        deinit {
            values.deinitialize(count: Self.properties.count)
            values.deallocate()
        }
        func read(_ slot: Int) -> Int {
            trackAccess(Self.properties[slot])
            return values[slot].load(ordering: .acquiring)
        }
        func write(_ slot: Int, _ value: Int) {
            withMutation(Self.properties[slot]) { values[slot].store(value, ordering: .releasing) }
        }
    }

    /// As `lockfree`'s `concurrentViewsNeverMissAChange`: views on two threads re-run whenever
    /// told, reading sets of properties that change between runs (dropped, added, reordered,
    /// other words, other leads), while both threads write. Oracle, at a barrier after each round:
    /// a view still armed read what every property holds now.
    @Test(arguments: [0x1EAD_0001, 0x1EAD_0002] as [UInt64])
    func viewsReadingChangingPropertiesNeverMissAChange(seed: UInt64) {
        final class PropertyView: @unchecked Sendable {
            // `@unchecked Sendable`: as `View`.
            let dirty = Atomic<Int>(0)
            var pairs = [(node: 0, slot: 0)]
            var reads: [(node: Int, slot: Int, value: Int)] = []
            var scope: LockedScope!
        }
        let nodes = (0..<6).map { _ in Model() }
        let threads = 2
        let viewsPerThread = 8
        let rounds = 500
        let shared = Shared(threads: threads)
        let views = (0..<threads * viewsPerThread).map { _ in PropertyView() }
        for view in views {
            view.scope = LockedScope(onChange: { view.dirty.store(1, ordering: .sequentiallyConsistent) })
        }
        Self.race(seed: seed, rounds: rounds, shared) { thread, random in
            let own = views[(thread * viewsPerThread)..<((thread + 1) * viewsPerThread)]
            for _ in 0..<50 {
                if random.below(3) == 0 {
                    nodes[random.below(6)].write(random.below(6), shared.next.add(1, ordering: .relaxed).newValue)
                    continue
                }
                let view = own[own.startIndex + random.below(viewsPerThread)]
                switch random.below(8) {
                case 0: view.pairs = (0...random.below(4)).map { _ in (random.below(6), random.below(6)) }
                case 1: view.pairs.reverse()
                default:
                    if view.dirty.load(ordering: .sequentiallyConsistent) == 0 { continue }
                }
                view.dirty.store(0, ordering: .sequentiallyConsistent)
                let pairs = view.pairs
                view.reads = view.scope.run { pairs.map { ($0.node, $0.slot, nodes[$0.node].read($0.slot)) } }
            }
        } check: {
            for view in views where view.scope.isArmed {
                if view.reads.contains(where: { nodes[$0.node].values[$0.slot].load(ordering: .relaxed) != $0.value }) {
                    shared.stale.add(1, ordering: .relaxed)
                }
            }
        }
        for view in views { _ = view.scope.cancel() }
        #expect(shared.stale.load(ordering: .relaxed) == 0, "times an armed view held a value that had changed")
    }
}

/// A `withTracking` scope can be fired by a write on another thread while its tracking thread is
/// still installing its other slots (under each object's lock): the one-shot scope is told once,
/// and the slots of a fired scope are let go of. Oracle: once the writer has stopped and one more
/// write has fired what it left armed, every scope was told exactly once and no object holds an
/// observer any more. (Also run under ThreadSanitizer.)
@Suite struct LockedOneShotCloseTests {
    @Test func aScopeFiredWhileItsRunEndsLeavesNoSlotBehind() {
        let models = (0..<48).map { _ in CounterModel() }
        let shared = Unchecked(models)
        let stop = Atomic<Bool>(false)
        let writerDone = Atomic<Bool>(false)
        Thread {
            var value = 0
            while !stop.load(ordering: .relaxed) {
                value += 1
                shared.value[0].value = value
                shared.value[1].value = value
            }
            writerDone.store(true, ordering: .releasing)
        }.start()
        let calls = Calls(1500)
        var tokens: [LockedToken] = []
        for round in 0..<calls.count {
            let (_, token) = LockedTracking.withTracking({ models.reduce(0) { $0 + $1.value } }) {
                calls.add(round)
            }
            tokens.append(token)
        }
        stop.store(true, ordering: .relaxed)
        while !writerDone.load(ordering: .acquiring) { sched_yield() }
        // Every scope the writer did not fire is still armed: this write fires each of them.
        models[0].value += 1
        #expect(tokens.allSatisfy { !$0.cancel() }, "a scope was still armed after the write")
        #expect(models.map(\._observerCount) == Array(repeating: 0, count: models.count))
        #expect(calls.counts == Array(repeating: 1, count: calls.count), "told once each")
    }

    /// Each scope's calls back: one atomic counter each (a `Mutex` is not seen by
    /// ThreadSanitizer on Linux, which then reports the callbacks' writes as a race).
    final class Calls: Sendable {
        let counters: [Counter]
        var count: Int { counters.count }
        var counts: [Int] { counters.map(\.value) }
        init(_ scopes: Int) { counters = (0..<scopes).map { _ in Counter() } }
        func add(_ scope: Int) { counters[scope].bump() }
    }
}
