import RegistrarTestSupport
import Testing

extension ContractTests {
    /// A long list that loses a dependency leaves a hole where it was instead of moving every later
    /// dependency (`DependencyStore.holes`); a dependency
    /// added there later takes the hole, and holes left run after run are closed up.
    @Suite struct DependencyHoleTests {
        /// Long enough that a removal near its start leaves a hole (`holeMoveLimit`).
        static func length<R: RegistrarUnderTest>(_: R.Type) -> Int { 2 * R.holeMoveLimit + 10 }

        /// A scope over property 1 of each row of a list, and what it must watch.
        final class ListView<R: RegistrarUnderTest> {
            var rows = (0..<DependencyHoleTests.length(R.self)).map { _ in R.Model() }
            var dropped: [R.Model] = []
            let observer = CountingObserver()
            let scope: R.Scope

            init() {
                scope = R.scope(notifying: observer)
                run()
            }

            func run() { _ = scope.run { rows.reduce(0) { $0 + $1.read(1) } } }

            /// The scope watches exactly the rows: one slot in each, none in a dropped row; a
            /// dropped row's write tells it nothing, a row's write tells it once.
            func expectWatchesExactlyTheRows(_ note: String, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(scope.dependencyCount == rows.count, "\(note)", sourceLocation: sourceLocation)
                #expect(
                    rows.allSatisfy { R.slots(of: $0, heldBy: scope) == 1 }, "\(note)", sourceLocation: sourceLocation)
                #expect(
                    dropped.allSatisfy { R.slots(of: $0, heldBy: scope) == 0 }, "\(note)",
                    sourceLocation: sourceLocation)
                let told = observer.count
                for row in dropped { row.write(1, row.stored + 1) }
                #expect(observer.count == told, "\(note): a dropped row notified", sourceLocation: sourceLocation)
                // The last row: after every hole, so the cursor passed them all to keep it.
                rows[rows.count - 1].write(1, rows[rows.count - 1].stored + 1)
                #expect(observer.count == told + 1, "\(note)", sourceLocation: sourceLocation)
                run()
                #expect(scope.isArmed, "\(note)", sourceLocation: sourceLocation)
            }
        }

        /// A view of `concurrentListsWithHolesNeverMissAChange`.
        final class StressView<Scope>: @unchecked Sendable {
            // `@unchecked Sendable`: `reads` and `order` belong to the owning thread; `dirty` is
            // atomic. Checked after the threads are joined at each barrier.
            let dirty = Counter()
            var order: [Int] = []
            var reads: [(node: Int, value: Int)] = []
            var scope: Scope!
        }

        @Test(arguments: Registrar.allCases)
        func aRowRemovedFromALongListLeavesAHoleThatAnInsertionFills(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let view = ListView<R>()
                #expect(view.scope.holeCount == 0)
                view.dropped.append(view.rows.remove(at: 10))
                view.run()
                #expect(view.scope.holeCount == 1)
                view.expectWatchesExactlyTheRows("after the removal")
                // A run that passes the hole keeps it, and everything after it.
                #expect(view.scope.holeCount == 1)
                view.expectWatchesExactlyTheRows("a run later")
                view.rows.insert(R.Model(), at: 10)
                view.run()
                #expect(view.scope.holeCount == 0, "the inserted row took the hole")
                view.expectWatchesExactlyTheRows("after the insertion")
                view.scope.cancel()
            }
            check(registrar.type)
        }

        @Test(arguments: Registrar.allCases)
        func adjacentHolesArePassedAndFilled(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let view = ListView<R>()
                view.dropped.append(view.rows.remove(at: 10))
                view.run()
                view.dropped.append(view.rows.remove(at: 10))
                view.run()
                #expect(view.scope.holeCount == 2)
                view.expectWatchesExactlyTheRows("two holes side by side")
                view.rows.insert(contentsOf: [R.Model(), R.Model()], at: 10)
                view.run()
                #expect(view.scope.holeCount == 0)
                view.expectWatchesExactlyTheRows("both filled")
                view.scope.cancel()
            }
            check(registrar.type)
        }

        @Test(arguments: Registrar.allCases)
        func holesLeftRunAfterRunAreClosedUp(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let view = ListView<R>()
                view.dropped.append(view.rows.remove(at: 10))
                view.run()
                for _ in 1..<R.holeRunLimit { view.run() }
                #expect(view.scope.holeCount == 1, "holes are kept for holeRunLimit runs")
                view.run()
                #expect(view.scope.holeCount == 0, "then the list is moved together")
                view.expectWatchesExactlyTheRows("closed up")
                view.scope.cancel()
            }
            check(registrar.type)
        }

        @Test(arguments: Registrar.allCases)
        func aRunThatRebuildsItsListDropsItsHoles(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let view = ListView<R>()
                view.dropped.append(view.rows.remove(at: 10))
                view.run()
                #expect(view.scope.holeCount == 1)
                view.rows.reverse()
                view.run()
                #expect(view.scope.holeCount == 0)
                view.expectWatchesExactlyTheRows("rebuilt")
                view.scope.cancel()
            }
            check(registrar.type)
        }

        @Test(arguments: Registrar.allCases)
        func cancellingAScopeWithHolesReleasesExactlyItsObjects(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                weak var removed: R.Model?
                weak var kept: R.Model?
                do {
                    let view = ListView<R>()
                    removed = view.rows[10]
                    kept = view.rows[20]
                    view.rows.remove(at: 10)
                    view.run()
                    #expect(view.scope.holeCount == 1)
                    #expect(removed == nil, "the removed row was released by the run that dropped it")
                    view.rows.removeAll()
                    #expect(kept != nil, "the scope holds the rows it watches")
                    view.scope.cancel()
                }
                #expect(kept == nil)
            }
            check(registrar.type)
        }

        /// Threads re-run views over long lists with holes (rows removed and put back at random
        /// places) whenever told, while every thread also writes rows. Oracle, at a barrier after
        /// each round: a view still armed read what every row holds now.
        @Test(arguments: Registrar.allCases, [0xB0_1E5_0001, 0xB0_1E5_0002] as [UInt64])
        func concurrentListsWithHolesNeverMissAChange(_ registrar: Registrar, seed: UInt64) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let length = DependencyHoleTests.length(R.self)
                let nodes = (0..<(length + 20)).map { _ in R.Model() }
                let next = Counter(1)
                let threads = 2
                let viewsPerThread = 3
                let views = (0..<threads * viewsPerThread).map { _ in StressView<R.Scope>() }
                for view in views {
                    view.order = Array(0..<length)
                    view.scope = R.scope(onChange: { view.dirty.set(1) })
                }
                let rounds = 300
                let barrier = RoundBarrier(threads: threads)
                let stale = Counter()
                let holesSeen = Counter()
                let shared = Unchecked((nodes, views))
                onThreads(threads) { thread in
                    let (nodes, views) = shared.value
                    var random = SplitMix64(seed: seed &+ UInt64(thread))
                    let own = views[(thread * viewsPerThread)..<((thread + 1) * viewsPerThread)]
                    for round in 0..<rounds {
                        for _ in 0..<12 {
                            if random.below(2) == 0 {
                                nodes[random.below(nodes.count)].write(0, next.raw.add(1, ordering: .relaxed).newValue)
                                continue
                            }
                            let view = own[own.startIndex + random.below(viewsPerThread)]
                            switch random.below(4) {
                            case 0 where view.order.count > 10:
                                view.order.remove(at: random.below(view.order.count / 4))
                            case 1:
                                let unread = (0..<nodes.count).filter { !view.order.contains($0) }
                                if let node = unread.randomElement(using: &random) {
                                    view.order.insert(node, at: random.below(view.order.count / 4 + 1))
                                }
                            default:
                                if view.dirty.value == 0 { continue }
                            }
                            view.dirty.set(0)
                            let order = view.order
                            view.reads = view.scope.run { order.map { ($0, nodes[$0].read(0)) } }
                            if view.scope.holeCount > 0 { holesSeen.bump() }
                        }
                        barrier.wait(2 * round + 1)
                        if thread == 0 {
                            for view in views where view.scope.isArmed {
                                if view.reads.contains(where: { nodes[$0.node].stored != $0.value }) {
                                    stale.bump()
                                }
                            }
                        }
                        barrier.wait(2 * round + 2)
                    }
                }
                for view in views { view.scope.cancel() }
                #expect(holesSeen.value > 0, "no run left a hole: the test does not test holes")
                #expect(stale.value == 0, "\(stale.value) times an armed view held a value that had changed")
            }
            check(registrar.type)
        }
    }
}
