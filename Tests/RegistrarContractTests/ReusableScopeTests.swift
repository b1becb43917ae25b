import RegistrarTestSupport
import Testing

extension ContractTests {
    /// A reusable scope's runs, as both registrars promise them.
    @Suite struct ReusableScopeTests {
        /// Told once per run, at the first write of what it read; re-armed by the next run.
        @Test(arguments: Registrar.allCases)
        func firesOncePerRunAndRearmsOnTheNext(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let row = R.Model()
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                #expect(!scope.isArmed)
                #expect(scope.run { row.read(1) } == 0)
                #expect(scope.isArmed)
                row.write(1, 1)
                row.write(1, 2)
                #expect(observer.count == 1)
                #expect(!scope.isArmed)
                #expect(scope.run { row.read(1) } == 2)
                row.write(1, 3)
                #expect(observer.count == 2)
                scope.cancel()
                #expect(R.observerCount(of: row) == 0)
            }
            check(registrar.type)
        }

        /// A write claims two scopes watching `a`; the first one's callback runs the second again,
        /// reading only `b`, before the second one's callback has started. That callback then
        /// does not start (the run it ended is over, and the new run read after the claim): the
        /// scope is told once for its new run, at the first write of `b`.
        @Test(arguments: Registrar.allCases)
        func aCallbackClaimedBeforeTheScopesNextRunDoesNotStart(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let (a, b) = (R.Model(), R.Model())
                let observer = CountingObserver()
                let view = ScopeBox<R.Scope>()
                view.scope = R.scope(notifying: observer)
                // Runs first: its slot on `a` is installed first, and a write scans in that order.
                let parent = R.scope(onChange: { _ = view.scope!.run { b.read(1) } })
                _ = parent.run { a.read(1) }
                _ = view.scope!.run { a.read(1) }
                a.write(1, 1)
                #expect(observer.count == 0, "told of a write its new run read after")
                #expect(view.scope!.isArmed)
                b.write(1, 1)
                #expect(observer.count == 1)
                b.write(1, 2)
                #expect(observer.count == 1)
                view.scope!.cancel()
                parent.cancel()
            }
            check(registrar.type)
        }

        /// A dependency the next run does not read is dropped (its writes tell nobody), a new one
        /// is watched, and a kept one read with other properties watches those instead.
        @Test(arguments: Registrar.allCases)
        func aDroppedDependencyNoLongerNotifiesAndANewOneDoes(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let (a, b, c) = (R.Model(), R.Model(), R.Model())
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                _ = scope.run { a.read(1) + b.read(1) }
                _ = scope.run { a.read(1) + c.read(1) }
                #expect(scope.dependencyCount == 2)
                #expect(R.slots(of: b, heldBy: scope) == 0 && R.slots(of: c, heldBy: scope) == 1)
                b.write(1, 1)
                #expect(observer.count == 0)
                c.write(1, 1)
                #expect(observer.count == 1)
                _ = scope.run { a.read(2) + c.read(1) }
                a.write(1, 5)
                #expect(observer.count == 1, "a's slot no longer watches property 1")
                a.write(2, 5)
                #expect(observer.count == 2)
                scope.cancel()
            }
            check(registrar.type)
        }

        /// Reads in a new order every run: one slot per object however the list is rebuilt.
        @Test(arguments: Registrar.allCases)
        func reorderedReadsKeepOneSlotPerObject(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let rows = (0..<8).map { _ in R.Model() }
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                var order = Array(0..<8)
                var random = SplitMix64(seed: 7)
                for _ in 0..<200 {
                    order.shuffle(using: &random)
                    _ = scope.run { order.reduce(0) { $0 + rows[$1].read(1) } }
                    #expect(scope.dependencyCount == 8)
                }
                #expect(rows.allSatisfy { R.slots(of: $0, heldBy: scope) == 1 })
                for (i, row) in rows.enumerated() {
                    row.write(1, i + 1)
                    _ = scope.run { order.reduce(0) { $0 + rows[$1].read(1) } }
                }
                #expect(observer.count == 8)
                scope.cancel()
            }
            check(registrar.type)
        }

        /// A long list edited a little (swapped, removed, inserted, appended, replaced) keeps one
        /// slot per object it reads, none in the objects it dropped, and is told of a change of
        /// any of them.
        @Test(arguments: Registrar.allCases)
        func aLongListEditedALittleKeepsExactlyItsSlots(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                var rows = (0..<200).map { _ in R.Model() }
                var dropped: [R.Model] = []
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                let edits: [(inout [R.Model], inout [R.Model]) -> Void] = [
                    { rows, _ in rows.swapAt(3, 150) },
                    { rows, dropped in dropped.append(rows.remove(at: 10)) },
                    { rows, _ in rows.insert(R.Model(), at: 120) },
                    { rows, _ in rows.append(R.Model()) },
                    { rows, dropped in dropped.append(rows.removeFirst()) },
                    { rows, dropped in
                        dropped.append(rows.remove(at: 5))
                        rows.insert(R.Model(), at: 100)
                    },
                    { rows, _ in
                        rows.swapAt(0, rows.count - 1)
                        rows.swapAt(20, 21)
                    },
                    { rows, dropped in
                        dropped.append(rows[7])
                        rows[7] = R.Model()
                    },
                ]
                _ = scope.run { rows.reduce(0) { $0 + $1.read(1) } }
                for (n, edit) in edits.enumerated() {
                    edit(&rows, &dropped)
                    _ = scope.run { rows.reduce(0) { $0 + $1.read(1) } }
                    #expect(scope.dependencyCount == rows.count, "edit \(n)")
                    #expect(rows.allSatisfy { R.slots(of: $0, heldBy: scope) == 1 }, "edit \(n)")
                    #expect(dropped.allSatisfy { R.slots(of: $0, heldBy: scope) == 0 }, "edit \(n)")
                    for row in dropped { row.write(1, n + 1) }
                    #expect(observer.count == n, "edit \(n): a dropped row notified")
                    rows[(n * 37) % rows.count].write(1, n + 1)
                    #expect(observer.count == n + 1, "edit \(n)")
                }
                scope.cancel()
            }
            check(registrar.type)
        }

        /// A kept read made while a write that began before the run is still in flight (the
        /// armed scope was told at its start, before the store, and went idle) may read the old
        /// value: it is not kept as it was, and the write's end tells the scope again. If the read
        /// were kept, the scope would stay armed on the old value.
        @Test(arguments: Registrar.allCases)
        func aKeptReadDuringAWriteInFlightIsToldWhenItEnds(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let fixture = KeptRowWithAWriteInFlight<R>()
                let (row, observer, scope) = (fixture.row, fixture.observer, fixture.scope)
                #expect(observer.count == 1 && !scope.isArmed, "the armed scope is told, and goes idle")
                #expect(scope.run { row.read(1) } == 0)  // the write has not stored yet
                fixture.endWrite(storing: 7)
                #expect(observer.count == 2, "the scope read the old value and must hear of the store")
                #expect(scope.run { row.read(1) } == 7)
                #expect(scope.run { row.read(1) } == 7)
                row.write(1, 8)
                #expect(observer.count == 3)
                scope.cancel()
            }
            check(registrar.type)
        }

        /// A run that begins while an observed write of another object is in flight holds its
        /// cursor away from the getters: every read takes the checked path, yet the run keeps
        /// what it kept (no slot rewritten), repeated and new reads and its own write included,
        /// and the runs after the write's end keep them inline again.
        @Test(arguments: Registrar.allCases)
        func aRunBegunDuringAnotherObjectsWriteKeepsItsDependencies(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let fixture = KeptRowWithAWriteInFlight<R>()  // its row's write stays in flight
                let (row, other) = (R.Model(), R.Model())
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                for _ in 0..<2 { _ = scope.run { row.read(0) + row.read(1) + other.read(3) } }
                #expect(R.slots(of: row, heldBy: scope) == 1 && R.slots(of: other, heldBy: scope) == 1)
                let added = R.Model()
                let seen = scope.run { row.read(0) + row.read(1) + row.read(0) + other.read(3) + added.read(0) }
                #expect(seen == 0)
                #expect(observer.count == 0 && scope.isArmed, "nothing changed")
                #expect(scope.dependencyCount == 3)
                let own = scope.run {
                    let first = row.read(0) + row.read(1)
                    let value = other.read(3)
                    other.write(3, value)
                    return first + other.read(3) + added.read(0)
                }
                #expect(
                    own == 0 && observer.count == 0 && scope.isArmed, "the run's own write is not a change it missed")
                fixture.endWrite(storing: 7)
                #expect(scope.run { row.read(0) + row.read(1) + other.read(3) + added.read(0) } == 0)
                #expect(scope.dependencyCount == 3 && observer.count == 0)
                #expect([row, other, added].allSatisfy { R.slots(of: $0, heldBy: scope) == 1 })
                added.write(0, 5)
                #expect(observer.count == 1, "the dependency added while the cursor was held is watched")
                #expect(scope.run { row.read(0) + row.read(1) + other.read(3) + added.read(0) } == 5)
                other.write(3, 1)
                #expect(observer.count == 2)
                scope.cancel()
                fixture.scope.cancel()
            }
            check(registrar.type)
        }

        /// A held run whose write in flight ends during it lets go of the cursor at its next read
        /// (no observed write in flight then): the reads after that are kept in line again, and a
        /// write after them, from another thread, finds the scope armed and tells it.
        @Test(
            .enabled(if: runsAlone, "needs no observed write in flight in the process: runs alone"),
            arguments: Registrar.allCases)
        func aHeldRunLetsGoOfItsCursorOnceNoWriteIsInFlight(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let fixture = KeptRowWithAWriteInFlight<R>()
                let (a, b, c) = (R.Model(), R.Model(), R.Model())
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                for _ in 0..<2 { _ = scope.run { a.read(0) + b.read(0) + c.read(0) } }
                let shared = Unchecked(c)
                let seen = scope.run {
                    let first = a.read(0)  // held: the fixture's write is in flight
                    #expect(R.holdsItsCursor)
                    fixture.endWrite(storing: 7)
                    let second = b.read(0)  // lets go of the cursor
                    #expect(!R.holdsItsCursor)
                    let third = c.read(0)  // kept in line
                    onNewThread { shared.value.write(0, 9) }
                    return first + second + third
                }
                #expect(seen == 0)
                #expect(observer.count == 1, "the write after the last read finds the scope armed")
                #expect(
                    scope.dependencyCount == 3 && R.slots(of: a, heldBy: scope) == 1
                        && R.slots(of: c, heldBy: scope) == 1)
                #expect(scope.run { a.read(0) + b.read(0) + c.read(0) } == 9)
                b.write(0, 1)
                #expect(observer.count == 2)
                scope.cancel()
                fixture.scope.cancel()
            }
            check(registrar.type)
        }
    }
}
