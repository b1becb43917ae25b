import Synchronization
import Testing

@testable import LockFreeObservation

/// A shared model for the stress test: an `AtomicNode` with a global count of live instances, to
/// check that the registrar keeps nothing alive.
final class StressNode: AtomicNode, @unchecked Sendable {
    // `@unchecked Sendable`: the only state is atomic.
    static let live = Counter()
    static let properties = [0, 1, 5, 63, 64, 65, 1000]

    override init() {
        Self.live.bump()
        super.init()
    }
    deinit { Self.live.raw.subtract(1, ordering: .sequentiallyConsistent) }
}

extension RegistrarTests {
    /// Tests that watch the process-wide record pool: serialized among themselves. Other tests of the
    /// process may still hold a few records meanwhile, hence the spare records and slack noted below.
    @Suite(.serialized) struct PoolAndStressTests {
        /// Leaves at least `count` free records in the pool, so that other tests running meanwhile
        /// take records from the free list rather than growing the pool.
        static func reserveSpareRecords(_ count: Int) {
            let model = Counters()
            let tokens = (0..<count).map { _ in withCancellableTracking({ _ = model.count }, onChange: {}).token }
            for token in tokens { token.cancel() }
        }

        @Test func steadyStateTrackFireCycleReusesRecords() {
            let model = Counters()
            let observer = CountingObserver()
            func cycle() -> TrackingToken {
                let (_, token) = withTracking({ _ = model.count; _ = model.name }, notifying: observer)
                model.count += 1
                return token
            }
            for _ in 0..<100 { _ = cycle() }
            Self.reserveSpareRecords(1024)
            let before = poolSize
            let firedBefore = observer.count
            var records = Set<UInt32>()
            var notReturned = 0
            for _ in 0..<10_000 {
                let token = cycle()
                records.insert(token.record)
                if !isReturned(token) { notReturned += 1 }
            }
            #expect(observer.count - firedBefore == 10_000)
            // Every record went back to the pool, and the pool did not grow with the cycles (other
            // targets' tests running meanwhile may take records; a leak would take 10_000).
            #expect(notReturned == 0)
            #expect(poolSize - before < leakThreshold)
            // Alone, the cycle uses one record over and over (a LIFO free list); other tests taking
            // records meanwhile make it more. A leak would make it 10_000.
            #expect(records.count <= 512)
            // The closure form too.
            let closureBefore = poolSize
            let fired = Counter()
            var closureNotReturned = 0
            for _ in 0..<10_000 {
                let token = withCancellableTracking({ _ = model.count }, onChange: { fired.bump() }).token
                model.count += 1
                if !isReturned(token) { closureNotReturned += 1 }
            }
            #expect(fired.value == 10_000)
            #expect(closureNotReturned == 0)
            #expect(poolSize - closureBefore < leakThreshold)
        }

        @Test func cancelledScopesReturnTheirRecords() {
            let model = Counters()
            for _ in 0..<100 { withCancellableTracking({ _ = model.count }, onChange: {}).token.cancel() }
            Self.reserveSpareRecords(1024)
            let before = poolSize
            var notReturned = 0
            for _ in 0..<10_000 {
                let token = withCancellableTracking({ _ = model.count; _ = model.other }, onChange: {}).token
                #expect(token.cancel())
                if !isReturned(token) { notReturned += 1 }
            }
            // Continuous scopes, each with a few callbacks.
            for _ in 0..<1_000 {
                let token = observeChanges({ _ = model.count }, onChange: {})
                model.count += 1
                model.count += 1
                #expect(token.cancel())
                if !isReturned(token) { notReturned += 1 }
            }
            #expect(notReturned == 0)
            #expect(poolSize - before < leakThreshold)
        }

        // MARK: Stress

        /// One scope of the stress run.
        final class Scope: @unchecked Sendable {
            // `@unchecked Sendable`: `token`, `pairs` and `startedAfterInstall` are written by the owning
            // thread before it is joined; `fired` is atomic.
            let fired = Counter()
            var token = TrackingToken.inert
            var pairs: [(node: Int, property: Int)] = []
            /// The `started` count of each pair, taken after `withTracking` returned.
            var startedAfterInstall: [Int] = []
            var cancelledByUs = false
            var cancelReturnedFalse = false
            var onTemporaryNode = false
        }

        /// Per (node, property): mutations started (counted before `trackMutation`).
        final class Ledger: @unchecked Sendable {
            // `@unchecked Sendable`: the buffer is immutable and every element atomic.
            let started: UnsafeMutablePointer<Atomic<Int>>
            let count: Int
            init(count: Int) {
                self.count = count
                started = .allocate(capacity: count)
                for i in 0..<count { (started + i).initialize(to: Atomic(0)) }
            }
            deinit { started.deallocate() }
            func slot(_ node: Int, _ property: Int) -> UnsafeMutablePointer<Atomic<Int>> {
                started + node * StressNode.properties.count + StressNode.properties.firstIndex(of: property)!
            }
        }

        struct RoundResult {
            var scopes = 0
            var doubleFires = 0
            var lostNotifications = 0
            var firedAfterCancel = 0
            var notFiredAtTheEnd = 0
            var recordsNotReturned = 0
            var cancelFalseWithoutFire = 0
        }

        /// One round: 4 threads, `operationsPerThread` operations each on 8 shared nodes.
        static func stressRound(seed: UInt64, operationsPerThread: Int) -> RoundResult {
            let threadCount = 4
            let nodeCount = 8
            let properties = StressNode.properties
            let nodes = Unchecked((0..<nodeCount).map { _ in StressNode() })
            let ledger = Ledger(count: nodeCount * properties.count)
            let scopesPerThread = Unchecked(UnsafeMutablePointer<[Scope]>.allocate(capacity: threadCount))
            scopesPerThread.value.initialize(repeating: [], count: threadCount)
            defer {
                scopesPerThread.value.deinitialize(count: threadCount)
                scopesPerThread.value.deallocate()
            }

            onThreads(threadCount) { thread in
                var random = SplitMix64(seed: seed &+ UInt64(thread) &* 0x1234_5678_9ABC)
                var scopes: [Scope] = []
                for _ in 0..<operationsPerThread {
                    let dice = random.below(100)
                    if dice < 40 {
                        // Track 1-3 random properties of random shared nodes.
                        let scope = Scope()
                        for _ in 0...random.below(3) {
                            scope.pairs.append((random.below(nodeCount), properties[random.below(properties.count)]))
                        }
                        let counter = scope.fired
                        scope.token = withCancellableTracking({
                            for pair in scope.pairs { nodes.value[pair.node].read(pair.property) }
                        }, onChange: { counter.bump() }).token
                        scope.startedAfterInstall = scope.pairs.map {
                            ledger.slot($0.node, $0.property).pointee.load(ordering: .sequentiallyConsistent)
                        }
                        scopes.append(scope)
                    } else if dice < 80 {
                        let node = random.below(nodeCount)
                        let property = properties[random.below(properties.count)]
                        ledger.slot(node, property).pointee.add(1, ordering: .sequentiallyConsistent)
                        nodes.value[node].write(property)
                    } else if dice < 95 {
                        guard !scopes.isEmpty else { continue }
                        let scope = scopes[random.below(scopes.count)]
                        if scope.cancelledByUs || scope.cancelReturnedFalse { continue }
                        if scope.token.cancel() { scope.cancelledByUs = true } else { scope.cancelReturnedFalse = true }
                    } else {
                        // A temporary node, observed, sometimes mutated, then released with its observers.
                        let temporary = StressNode()
                        // It also watches a shared node's property 1000, like any other scope.
                        let scope = Scope()
                        scope.onTemporaryNode = true
                        scope.pairs = [(random.below(nodeCount), 1000)]
                        let counter = scope.fired
                        scope.token = withCancellableTracking({
                            temporary.read(0)
                            nodes.value[scope.pairs[0].node].read(1000)
                        }, onChange: { counter.bump() }).token
                        scope.startedAfterInstall = [
                            ledger.slot(scope.pairs[0].node, 1000).pointee.load(ordering: .sequentiallyConsistent)
                        ]
                        if random.below(2) == 0 { temporary.write(0) }
                        scopes.append(scope)
                    }
                }
                scopesPerThread.value[thread] = scopes
            }

            // Quiescent now. Every scope: at most one callback; none after a successful cancel; and a
            // scope still armed must not have missed a mutation that started after it was installed.
            var result = RoundResult()
            let all = (0..<threadCount).flatMap { scopesPerThread.value[$0] }
            result.scopes = all.count
            for scope in all {
                let fired = scope.fired.value
                if fired > 1 { result.doubleFires += 1 }
                if scope.cancelledByUs && fired != 0 { result.firedAfterCancel += 1 }
                if scope.cancelReturnedFalse && fired != 1 { result.cancelFalseWithoutFire += 1 }
                if !scope.cancelledByUs && fired == 0 {
                    let missed = zip(scope.pairs, scope.startedAfterInstall).contains { pair, started in
                        ledger.slot(pair.node, pair.property).pointee.load(ordering: .sequentiallyConsistent) > started
                    }
                    if missed { result.lostNotifications += 1 }
                }
            }
            // Then, single-threaded, mutate every property of every shared node once: every scope that
            // we did not cancel has fired exactly once (those on temporary nodes too, through the
            // shared property they also read), and none is armed any more.
            for node in nodes.value { for property in properties { node.write(property) } }
            for scope in all {
                let expected = scope.cancelledByUs ? 0 : 1
                if scope.fired.value != expected || scope.token.isArmed { result.notFiredAtTheEnd += 1 }
                if !isReturned(scope.token) { result.recordsNotReturned += 1 }
            }
            return result
        }

        @Test func concurrentStressWithAFixedSeed() {
            var pools: [UInt32] = []
            for round in 0..<3 {
                let result = Self.stressRound(seed: 0x5EED_0000 &+ 42, operationsPerThread: 6_000)
                #expect(result.scopes > 8_000, "round \(round)")
                #expect(result.doubleFires == 0, "round \(round)")
                #expect(result.lostNotifications == 0, "round \(round)")
                #expect(result.firedAfterCancel == 0, "round \(round)")
                #expect(result.cancelFalseWithoutFire == 0, "round \(round)")
                #expect(result.notFiredAtTheEnd == 0, "round \(round)")
                // No model object outlives the round: the registrar retains none.
                #expect(StressNode.live.value == 0, "round \(round)")
                // Every record of the round is back in the pool.
                #expect(result.recordsNotReturned == 0, "round \(round)")
                pools.append(poolSize)
            }
            // The pool stopped growing: the third round found every record it needed in the pool
            // (the peak number of armed scopes varies a little with the interleaving).
            #expect(pools[2] - pools[1] < leakThreshold, "pool sizes \(pools)")
        }
    }
}
