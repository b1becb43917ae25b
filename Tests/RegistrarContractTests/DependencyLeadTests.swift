import RegistrarTestSupport
import Testing

extension ContractTests {
    /// A dependency key's lead (`DependencyHead.lead`, one type for both registrars): its
    /// lowest watched property below 15, so that a getter of that property keeps the read with one
    /// compare and no mask test. A lead that names a property the slots no longer watch would keep
    /// a read the slots do not cover, with no version loaded: a write by another thread after it
    /// would be lost, and the re-check would report a write made before that read (an unnecessary
    /// notification); a shared lead 15 kept without the mask test would do the same for a
    /// property from 15 up.
    @Suite struct DependencyLeadTests {
        /// Writes `property` where nobody watches it, then runs `scope` reading `property` and then
        /// `other`, with a write of `property` by another thread between the two reads when
        /// `writeAfterTheRead`: the read must go to the slow path, which loads the run's version,
        /// so that only the later write is told; after the run `property` is watched.
        static func expectOnlyAWriteAfterTheReadIsTold<R: RegistrarUnderTest>(
            _: R.Type, _ row: R.Model, _ scope: R.Scope, _ observer: CountingObserver, reading property: Int,
            then other: Int, writeAfterTheRead: Bool, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            row.write(property, 5)
            #expect(observer.count == 0, sourceLocation: sourceLocation)
            _ = scope.run {
                let value = row.read(property)
                if writeAfterTheRead { R.writeElsewhere(row, property, value + 1) }
                return value + row.read(other)
            }
            #expect(observer.count == (writeAfterTheRead ? 1 : 0), sourceLocation: sourceLocation)
            if !writeAfterTheRead {
                row.write(property, 6)
                #expect(observer.count == 1, sourceLocation: sourceLocation)
            }
        }

        /// The lead follows the mask: 0 for {0, 1}, 1 once the run read only property 1, 15 for
        /// properties from 15 up, and 0 again when property 0 is read again.
        @Test(arguments: Registrar.allCases)
        func theLeadIsTheLowestWatchedPropertyBelowFifteen(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let row = R.Model()
                let scope = R.scope(notifying: CountingObserver())
                _ = scope.run { row.read(0) + row.read(1) }
                #expect(R.lead(of: scope) == 0)
                _ = scope.run { row.read(1) }
                #expect(R.lead(of: scope) == 1)
                _ = scope.run { row.read(20) + row.read(14) }
                #expect(R.lead(of: scope) == 14)
                _ = scope.run { row.read(20) + row.read(30) }
                #expect(R.lead(of: scope) == 15)
                _ = scope.run { row.read(0) + row.read(20) }
                #expect(R.lead(of: scope) == 0)
                #expect(scope.dependencyCount == 1)
                scope.cancel()
            }
            check(registrar.type)
        }

        /// The slots watched properties 0 and 1, then only 1 (the lead moves to 1 with the mask),
        /// and property 0 is read again: the read goes to the slow path, which loads the object's
        /// write word as the run's version, and the reinstall of 0 re-checks against it. So a
        /// write of 0 before the read (nobody watched it) is not reported, and one by another
        /// thread after the read is. (Kept on a stale lead 0, the read loads no version, and the
        /// re-check compares against the last run's: the earlier write is reported, unnecessarily.)
        @Test(arguments: Registrar.allCases, [false, true])
        func aPropertyNoLongerWatchedIsReadWithItsVersion(_ registrar: Registrar, writeAfterTheRead: Bool) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let row = R.Model()
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                _ = scope.run { row.read(0) + row.read(1) }
                _ = scope.run { row.read(1) }
                #expect(R.lead(of: scope) == 1)
                Self.expectOnlyAWriteAfterTheReadIsTold(
                    R.self, row, scope, observer, reading: 0, then: 1, writeAfterTheRead: writeAfterTheRead)
                #expect(R.lead(of: scope) == 0)
                scope.cancel()
            }
            check(registrar.type)
        }

        /// From 15 up a lead names no one property (15): the getter still tests the mask, so a
        /// read of property 30 where only 20 is watched goes to the slow path and loads its
        /// version. A write of 30 before the read is not reported; one by another thread after it
        /// is. (Kept on the shared lead with no mask test, the earlier write is reported.)
        @Test(arguments: Registrar.allCases, [false, true])
        func aHighPropertyOutsideTheSlotsIsReadWithItsVersion(_ registrar: Registrar, writeAfterTheRead: Bool) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let row = R.Model()
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                _ = scope.run { row.read(20) }
                #expect(R.lead(of: scope) == 15)
                Self.expectOnlyAWriteAfterTheReadIsTold(
                    R.self, row, scope, observer, reading: 30, then: 20, writeAfterTheRead: writeAfterTheRead)
                scope.cancel()
            }
            check(registrar.type)
        }

        /// A property read first that is not the lead (1 before 0, both watched) takes the slow
        /// path and is kept there: nothing is reinstalled, a later write of either is told once.
        @Test(arguments: Registrar.allCases, [0, 1])
        func aWatchedPropertyReadBeforeTheLeadIsKept(_ registrar: Registrar, written: Int) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let row = R.Model()
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                _ = scope.run { row.read(0) + row.read(1) }
                let slots = R.slots(of: row, heldBy: scope)
                _ = scope.run { row.read(1) + row.read(0) }
                #expect(R.lead(of: scope) == 0)
                #expect(R.slots(of: row, heldBy: scope) == slots)
                #expect(observer.count == 0)
                row.write(written, 9)
                #expect(observer.count == 1)
                scope.cancel()
            }
            check(registrar.type)
        }
    }
}
