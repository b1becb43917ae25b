import RegistrarTestSupport
import Testing

extension ContractTests {
    /// What a run's body may do to its own scope, as both registrars promise it: cancel it, and
    /// write what the run read, past a hole in its list.
    @Suite struct RunBodyTests {
        /// `cancel()` of a scope inside its own run: allowed, exact. It returns whether the scope
        /// was armed (a second call, `false`), no callback comes after (not even for another
        /// thread's write during the rest of the run), and the run's end keeps nothing: every
        /// object read is released and no write tells the scope.
        @Test(arguments: Registrar.allCases)
        func aScopeCancelledInsideItsOwnRunKeepsNothing(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let model = R.Model()
                var late: R.Model? = R.Model()
                weak let weakLate = late
                let told = Counter()
                let scope = R.scope { told.bump() }
                _ = scope.run { model.read(0) }
                var cancelled = false
                scope.run {
                    _ = model.read(0)
                    cancelled = scope.cancel()
                    #expect(!scope.cancel())
                    _ = late!.read(0)
                    _ = model.read(1)
                    R.writeElsewhere(model, 0, 1)
                }
                #expect(R.noRunOnThisThread)
                #expect(cancelled)
                #expect(!scope.isArmed)
                model.write(0, 2)
                model.write(1, 3)
                late!.write(0, 4)
                #expect(told.value == 0)
                #expect(R.observerCount(of: model) == 0 && R.observerCount(of: late!) == 0)
                late = nil
                #expect(weakLate == nil, "the cancelled run kept what it read after the cancel")
                #expect(!scope.cancel())
            }
            check(registrar.type)
        }

        /// A write during a run whose cursor passed a hole counts the run's own writes over its
        /// kept dependencies, holes among them (a hole has no object), also with a one-shot scope
        /// nested in the run.
        @Test(arguments: Registrar.allCases)
        func aWriteInARunThatPassedAHoleSkipsTheHole(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let length = 2 * R.holeMoveLimit + 10
                var rows = (0..<length).map { _ in R.Model() }
                let observer = CountingObserver()
                let scope = R.scope(notifying: observer)
                let other = R.Model()
                _ = scope.run { rows.reduce(0) { $0 + $1.read(1) } }
                rows.remove(at: 10)
                _ = scope.run { rows.reduce(0) { $0 + $1.read(1) } }
                #expect(scope.holeCount == 1)
                _ = scope.run {
                    let sum = rows.reduce(0) { $0 + $1.read(1) }
                    rows[rows.count - 1].write(1, 7)  // the body's own write, past the hole
                    R.withTracking({ other.write(0, other.read(0) + 1) }, onChange: {})
                    return sum
                }
                #expect(observer.count == 0, "the body's own write told its own scope")
                rows[0].write(1, 8)
                #expect(observer.count == 1)
                scope.cancel()
            }
            check(registrar.type)
        }
    }
}
