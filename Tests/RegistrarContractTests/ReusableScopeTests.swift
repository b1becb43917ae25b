import RegistrarTestSupport
import Testing

extension ContractTests {
    /// A reusable scope's runs, as both registrars promise them.
    @Suite struct ReusableScopeTests {
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
                if let updates = R.lastRunSlotUpdates(scope) { #expect(updates == 0) }
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
