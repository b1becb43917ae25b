import RegistrarTestSupport
import Testing

extension ContractTests {
    /// A new read at the run's last dependency takes its place (lock-free:
    /// `_displaceLastDependency`): the new
    /// dependency is the run's from its first read, with no slots until the run ends
    /// (`settleDisplacement`), and the displaced one is dropped then. Its first read's version is
    /// all that covers its later reads: a version reloaded by a later read, a re-check ignored or
    /// an own write not counted would lose or invent a change; a displaced dependency left
    /// installed would tell the scope of an object it no longer reads.
    @Suite struct DependencyDisplacementTests {
        /// Runs `scope` reading `source` then `old`, then again reading `source` then `new`, which
        /// takes `old`'s place, and then `rest(new)` in the same body. Returns `new`.
        static func displacingRun<R: RegistrarUnderTest>(
            _ scope: R.Scope, _: R.Type, then rest: (_ new: R.Model) -> Int
        ) -> R.Model {
            let (source, old, new) = (R.Model(), R.Model(), R.Model())
            _ = scope.run { source.read(0) + old.read(0) }
            _ = scope.run { source.read(0) + new.read(0) + rest(new) }
            return new
        }

        /// `kairo-unstable`'s shape: the body reads `source`, then `double` or `inverse` by turns.
        /// Each run leaves two dependencies, the second the object it read, with one slot in it and
        /// none left in the other; only a write of what the last run read tells the scope.
        @Test(arguments: Registrar.allCases)
        func aChangingLastDependencyTakesItsPlace(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let (source, double, inverse) = (R.Model(), R.Model(), R.Model())
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                var told = 0
                for round in 0..<6 {
                    let (now, other) = round % 2 == 0 ? (double, inverse) : (inverse, double)
                    var displaced = false
                    _ = scope.run {
                        let sum = (0..<20).reduce(source.read(0)) { sum, _ in sum + source.read(0) + now.read(0) }
                        displaced = R.displacing(scope)
                        return sum
                    }
                    // (The first run has no dependency to displace.)
                    #expect(displaced == (round > 0))
                    #expect(scope.dependencyCount == 2)
                    #expect(scope.holeCount == 0)
                    #expect(R.dependency(scope, 1).object == Unmanaged.passUnretained(now).toOpaque())
                    #expect(R.dependency(scope, 1).mask == 1)
                    #expect(
                        (
                            R.slots(of: now, heldBy: scope), R.slots(of: other, heldBy: scope),
                            R.slots(of: source, heldBy: scope)
                        )
                            == (1, 0, 1))
                    other.write(0, round)
                    #expect(observer.count == told)
                    now.write(0, round)
                    told += 1
                    #expect(observer.count == told)
                }
                scope.cancel()
            }
            check(registrar.type)
        }

        /// A write of the new dependency by another thread after its first read, while the body
        /// still runs: no slot watched it then, so only the install's re-check at the run's end,
        /// against the version the first read loaded, can tell the scope (once). With no write,
        /// nothing is told until one comes.
        @Test(arguments: Registrar.allCases, [false, true])
        func aWriteAfterTheNewReadIsToldWhenTheRunEnds(_ registrar: Registrar, writeDuringTheRun: Bool) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                let new = Self.displacingRun(scope, R.self) { new in
                    if writeDuringTheRun { R.writeElsewhere(new, 0, 7) }
                    return new.read(0)
                }
                #expect(observer.count == (writeDuringTheRun ? 1 : 0))
                #expect(!scope.isArmed == writeDuringTheRun)
                if !writeDuringTheRun {
                    new.write(0, 8)
                    #expect(observer.count == 1)
                }
                scope.cancel()
            }
            check(registrar.type)
        }

        /// The new dependency's further property, read after another thread wrote the first one:
        /// the run read the first property's old value, so the scope must be told. A later read that
        /// loaded the write word again (as for a kept dependency's new property) would re-check
        /// against the newer version and lose the write. After a run with no such write, both
        /// properties are watched and a third is not.
        @Test(arguments: Registrar.allCases, [false, true])
        func aFurtherPropertyOfTheNewDependencyKeepsItsFirstVersion(_ registrar: Registrar, writeBetweenTheReads: Bool)
        {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                let new = Self.displacingRun(scope, R.self) { new in
                    if writeBetweenTheReads { R.writeElsewhere(new, 0, 7) }
                    return new.read(1)
                }
                #expect(observer.count == (writeBetweenTheReads ? 1 : 0))
                if !writeBetweenTheReads {
                    #expect(R.dependency(scope, 1).mask == 0b11)
                    #expect(R.slots(of: new, heldBy: scope) == 1)
                    new.write(2, 1)
                    #expect(observer.count == 0)
                    new.write(1, 1)
                    #expect(observer.count == 1)
                }
                scope.cancel()
            }
            check(registrar.type)
        }

        /// A new read at the last place while another thread's write of that object is in flight
        /// (begun, watched by another scope, not yet stored): the run reads the old value, and only
        /// the write's end can tell the scope, through a straddling slot. Such a read does not
        /// displace: it makes an entry, installed straddling once. (Displaced, the reconciliation
        /// rewrote its straddling slot with the write word loaded again, as for a kept read, and
        /// could empty it between the write's end and its scan for straddlers: a lost change that
        /// `concurrentViewsNeverMissAChange` found with schedule points.)
        @Test(arguments: Registrar.allCases)
        func aNewReadDuringAWriteInFlightIsAnEntryToldWhenTheWriteEnds(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let fixture = KeptRowWithAWriteInFlight<R>()
                let (source, old) = (R.Model(), R.Model())
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                _ = scope.run { source.read(0) + old.read(0) }
                var displaced = true
                let value = scope.run {
                    let value = source.read(0) + fixture.row.read(1)
                    displaced = R.displacing(scope)
                    return value
                }
                #expect(value == 0)  // the write has not stored yet
                #expect(!displaced)
                #expect(observer.count == 0 && scope.isArmed)
                fixture.endWrite(storing: 7)
                #expect(observer.count == 1, "the scope read the old value and must hear of the store")
                #expect(scope.run { source.read(0) + fixture.row.read(1) } == 7)
                fixture.row.write(1, 8)
                #expect(observer.count == 2)
                scope.cancel()
                fixture.scope.cancel()
            }
            check(registrar.type)
        }

        /// The body's own write of the new dependency, after reading it, is not a change the run
        /// missed (lock-free: `_countOwnWrite` counts it in the new dependency's version): the
        /// scope stays armed and is told only of a later write.
        @Test(arguments: Registrar.allCases)
        func theBodysOwnWriteOfTheNewDependencyIsNotTold(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                let new = Self.displacingRun(scope, R.self) { new in
                    new.write(0, 1)
                    return 0
                }
                #expect(observer.count == 0)
                #expect(scope.isArmed)
                new.write(0, 9)
                #expect(observer.count == 1)
                scope.cancel()
            }
            check(registrar.type)
        }

        /// The displaced dependency read again later in the same run, and a second new object after
        /// the first: both are entries, installed afresh, and watched after the run, as is the one
        /// that took the last place. The displaced object's old slot is emptied and a new one
        /// installed: one slot each.
        @Test(arguments: Registrar.allCases)
        func theDisplacedObjectReadAgainAndASecondNewObjectAreWatched(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let (source, old, new, newer) = (R.Model(), R.Model(), R.Model(), R.Model())
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                _ = scope.run { source.read(0) + old.read(0) }
                _ = scope.run { source.read(0) + new.read(0) + old.read(0) + newer.read(0) }
                #expect(scope.dependencyCount == 4)
                #expect(
                    [source, old, new, newer].map { R.slots(of: $0, heldBy: scope) } == [1, 1, 1, 1])
                for (i, row) in [old, new, newer].enumerated() {
                    row.write(0, 1)
                    #expect(observer.count == i + 1)
                    _ = scope.run { source.read(0) + new.read(0) + old.read(0) + newer.read(0) }
                    #expect(scope.dependencyCount == 4, "after the write of row \(i)")
                }
                scope.cancel()
            }
            check(registrar.type)
        }
    }
}
