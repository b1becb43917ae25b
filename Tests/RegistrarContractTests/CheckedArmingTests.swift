import RegistrarTestSupport
import Testing

extension ContractTests {
    /// A run of a scope still armed since a run that found no observed write in flight looks at no
    /// count (lock-free: `ReusableScope.looksForWritesInFlight`), and the writes that could pass
    /// such a run by make the next run look: the run's own write that outlives it.
    @Suite(.enabled(if: runsAlone, "needs no observed write in flight in the process: runs alone"))
    struct CheckedArmingTests {
        /// Runs `scope` over `body` once more and expects the run to hold nothing: no observed
        /// write is in flight (the tests run alone, `runsAlone`), so from then on the scope is
        /// armed since a checked run.
        static func settle<R: RegistrarUnderTest>(_ scope: R.Scope, _: R.Type, _ body: () -> Int) {
            let held = scope.run {
                _ = body()
                return R.holdsItsCursor
            }
            #expect(!held, "a run with no write in flight holds nothing")
        }

        /// Another object's write in flight does not hold a run of a scope armed since a checked
        /// run; once a write tells the scope, its next run arms it again and looks (and holds).
        @Test(arguments: Registrar.allCases)
        func aScopeArmedSinceACheckedRunLooksAtNoCount(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let row = R.Model()
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                for _ in 0..<2 { _ = scope.run { row.read(0) } }
                Self.settle(scope, R.self) { row.read(0) }
                let fixture = KeptRowWithAWriteInFlight<R>()  // another object's write stays in flight
                let held = scope.run {
                    _ = row.read(0)
                    return R.holdsItsCursor
                }
                #expect(!held, "armed since a checked run: no look at the writes in flight")
                row.write(0, 4)
                #expect(observer.count == 1 && !scope.isArmed)
                let heldAfterTold = scope.run {
                    _ = row.read(0)
                    return R.holdsItsCursor
                }
                #expect(heldAfterTold, "armed again: the run looks, and the fixture's write is in flight")
                #expect(scope.run { row.read(0) } == 4)
                fixture.endWrite(storing: 1)
                row.write(0, 5)
                #expect(observer.count == 2)
                scope.cancel()
                fixture.scope.cancel()
            }
            check(registrar.type)
        }

        /// A run that installs a dependency while another thread's write of it is in flight
        /// leaves its slot straddling (lock-free: `DependencyStore.straddling`; locked: the
        /// object's `straddlers`): the next run looks, and holds while that write is in flight.
        @Test(arguments: Registrar.allCases)
        func aStraddlingDependencyMakesTheNextRunLook(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let (row, added) = (R.Model(), R.Model())
                let (observer, watcher) = (CountingObserver(), CountingObserver())
                let other = R.scope(notifying: watcher)
                _ = other.run { added.read(0) }  // observed, so the write below is an observed one
                let scope = R.scope(notifying: observer)
                for _ in 0..<2 { _ = scope.run { row.read(1) } }
                Self.settle(scope, R.self) { row.read(1) }
                let pending = Pending<R.Model.Mutation>()
                let first = scope.run {
                    let value = row.read(1)
                    onNewThread { [added] in pending.mutation = added.willMutate(0) }  // begun after the look
                    return value + added.read(0)  // read while the write is in flight
                }
                #expect(first == 0 && observer.count == 0)
                #expect(R.straddlingSlots(scope, of: added) == 1)
                let held = scope.run {
                    let value = row.read(1) + added.read(0)
                    return R.holdsItsCursor ? value : -1
                }
                #expect(held == 0, "the run after a straddling install looks, and holds")
                onNewThread { [added] in
                    added.store(3)
                    added.didMutate(pending.mutation!)
                }
                #expect(observer.count == 1, "the straddling slot is told at the write's end")
                #expect(scope.run { row.read(1) + added.read(0) } == 3)
                scope.cancel()
                other.cancel()
            }
            check(registrar.type)
        }

        /// The run's own write of a kept dependency, begun in the run (`willMutate`) and ended after
        /// it, passes the running scope by (lock-free: `_scanChain`; locked: `claim`): the next run,
        /// though the scope is still armed, must look, hold, and hear of the store it read before.
        @Test(arguments: Registrar.allCases)
        func aRunsOwnWriteThatOutlivesItMakesTheNextRunLook(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let row = R.Model()
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                for _ in 0..<2 { _ = scope.run { row.read(1) } }
                Self.settle(scope, R.self) { row.read(1) }
                var pending: R.Model.Mutation?
                let first = scope.run {
                    let value = row.read(1)
                    pending = row.willMutate(1)  // the run's own write: it does not tell the scope
                    return value
                }
                #expect(first == 0 && observer.count == 0 && scope.isArmed, "the run's own write is not a change")
                let second = scope.run { row.read(1) }  // the write is in flight: this run reads the old value
                #expect(second == 0)
                row.store(7)
                row.didMutate(pending!)
                #expect(observer.count == 1, "the second run read the old value and must hear of the store")
                #expect(scope.run { row.read(1) } == 7)
                row.write(1, 8)
                #expect(observer.count == 2)
                scope.cancel()
            }
            check(registrar.type)
        }

        /// The same for a dependency the run adds: its own write, begun after the read, scans no
        /// slot of the scope's (it has none yet; another scope observes the property, so the write
        /// is an observed one, told at its end only to straddling slots). The install's re-check
        /// finds it still in flight and reports it (lock-free: `TrackedObject._publishAndRecheck`:
        /// the write word's in-flight count is compared too): the scope is told, so the next run
        /// arms it again and looks. Were it not reported, that run would keep the old value unheard.
        @Test(arguments: Registrar.allCases)
        func aRunsOwnWriteOfADependencyItAddsIsReportedByTheInstall(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let (row, added) = (R.Model(), R.Model())
                let (observer, watcher) = (CountingObserver(), CountingObserver())
                let other = R.scope(notifying: watcher)
                _ = other.run { added.read(0) }  // the property is observed before the scope reads it
                let scope = R.scope(notifying: observer)
                for _ in 0..<2 { _ = scope.run { row.read(1) } }
                Self.settle(scope, R.self) { row.read(1) }
                var pending: R.Model.Mutation?
                let first = scope.run {
                    let value = row.read(1) + added.read(0)
                    pending = added.willMutate(0)
                    return value
                }
                #expect(first == 0 && watcher.count == 1)
                #expect(observer.count == 1 && !scope.isArmed, "the install found the write in flight")
                let second = scope.run {
                    let value = row.read(1) + added.read(0)
                    #expect(R.holdsItsCursor, "armed again, the run looks: the write is in flight")
                    return value
                }
                #expect(second == 0)
                added.store(5)
                added.didMutate(pending!)
                #expect(observer.count == 2, "the second run read the old value and must hear of the store")
                #expect(scope.run { row.read(1) + added.read(0) } == 5)
                added.write(0, 6)
                #expect(observer.count == 3)
                scope.cancel()
                other.cancel()
            }
            check(registrar.type)
        }
    }
}
