import RegistrarTestSupport
import Synchronization
import Testing

extension ContractTests {
    /// Runs nested in other runs on one thread, as both registrars promise them: the nested run's
    /// reads count for the enclosing run too (merged, as Observation's scopes merge), its writes
    /// are the enclosing run's own, and a cancel inside either keeps exactly what it should.
    /// (Property 0 stands for a view's `count`, property 1 for another property of the same object.)
    @Suite struct NestedRunTests {
        /// Round after round, every write of what a scope read in its last run tells it once, from
        /// this thread outside any run or from another; a second write in the round tells nobody;
        /// each object is released as often as retained.
        @Test(arguments: Registrar.allCases, [false, true])
        func aRunNestedInARunKeepsTheOuterScopesDependencies(_ registrar: Registrar, fromAnotherThread: Bool) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let (a, b) = (R.Model(), R.Model())
                var x: R.Model? = R.Model()
                weak let weakX = x
                let (outerTold, innerTold) = (Counter(), Counter())
                let outer = R.scope { outerTold.bump() }
                let inner = R.scope { innerTold.bump() }
                let held = x!
                x = nil
                func write(_ model: R.Model) {
                    if fromAnotherThread {
                        R.writeElsewhere(model, 0, model.stored + 1)
                    } else {
                        model.write(0, model.stored + 1)
                    }
                }
                for round in 0..<6 {
                    outer.run {
                        _ = a.read(0)
                        inner.run { _ = held.read(0) }
                        _ = b.read(0)
                    }
                    #expect(R.noRunOnThisThread, "round \(round)")
                    #expect(outer.isArmed && inner.isArmed, "round \(round)")
                    let (outerBefore, innerBefore) = (outerTold.value, innerTold.value)
                    write([held, a, b][round % 3])
                    #expect(outerTold.value == outerBefore + 1, "round \(round): the outer scope was not told")
                    #expect(innerTold.value == innerBefore + (round % 3 == 0 ? 1 : 0), "round \(round)")
                    write(held)
                    #expect(outerTold.value == outerBefore + 1, "round \(round): told twice")
                }
                outer.cancel()
                inner.cancel()
                #expect([held, a, b].allSatisfy { R.observerCount(of: $0) == 0 })
                #expect(weakX != nil, "released more often than retained")
            }
            check(registrar.type)
        }

        /// The same through a one-shot scope between the two runs.
        @Test(arguments: Registrar.allCases)
        func aRunNestedInAOneShotScopeInARunKeepsTheOuterScopesDependencies(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let (a, b, x) = (R.Model(), R.Model(), R.Model())
                let (outerTold, innerTold, oneShotTold) = (Counter(), Counter(), Counter())
                let outer = R.scope { outerTold.bump() }
                let inner = R.scope { innerTold.bump() }
                for round in 0..<4 {
                    outer.run {
                        _ = a.read(0)
                        R.withTracking({ _ = inner.run { x.read(0) } }, onChange: { oneShotTold.bump() })
                        _ = b.read(0)
                    }
                    #expect(R.noRunOnThisThread, "round \(round)")
                    let (outerBefore, innerBefore, oneShotBefore) = (
                        outerTold.value, innerTold.value, oneShotTold.value
                    )
                    x.write(0, round + 1)
                    #expect(outerTold.value == outerBefore + 1, "round \(round)")
                    #expect(innerTold.value == innerBefore + 1, "round \(round)")
                    #expect(oneShotTold.value == oneShotBefore + 1, "round \(round)")
                }
                outer.cancel()
                inner.cancel()
                #expect(R.observerCount(of: x) == 0)
            }
            check(registrar.type)
        }

        /// A callback that re-renders another view inside a run: the body's write tells the inner
        /// scope, whose callback runs it again, nested in the outer run, at the write's willSet.
        /// That render reads the value the write replaces, so its read straddles the write: the
        /// write's end tells the inner scope again (a second render). The nested read's version
        /// (it straddled the write) counts for the outer scope too, which is told of it once at its
        /// end; it is told at most once a run, and keeps what it read through the nested renders:
        /// a write after the run tells it once. Exact counts, round after round.
        @Test(arguments: Registrar.allCases)
        func aCallbackThatRerendersAViewInsideARunKeepsBothScopesExact(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let (a, y, x) = (R.Model(), R.Model(), R.Model())
                let (outerTold, innerRenders) = (Counter(), Counter())
                let box = ScopeBox<R.Scope>()
                box.render = {
                    innerRenders.bump()
                    _ = box.scope!.run { x.read(0) + y.read(0) }
                }
                box.scope = R.scope { box.render() }
                let outer = R.scope { outerTold.bump() }
                box.render()
                let ownWriteTells = 1
                for round in 0..<4 {
                    let (renders, told) = (innerRenders.value, outerTold.value)
                    outer.run {
                        _ = a.read(0)
                        y.write(0, y.read(0) + 1)  // tells the inner scope, which renders again here
                        _ = a.read(1)
                    }
                    #expect(R.noRunOnThisThread, "round \(round)")
                    #expect(innerRenders.value == renders + 2, "round \(round)")
                    #expect(outerTold.value == told + ownWriteTells, "round \(round): its own write")
                    x.write(0, x.stored + 1)
                    #expect(outerTold.value == told + 1, "round \(round): told twice in one run")
                    // At x's willSet and, the render having read x's old value, at its end.
                    #expect(innerRenders.value == renders + 4, "round \(round)")
                }
                // Renders nested in runs that write nothing: the outer keeps what it read through them.
                for round in 0..<3 {
                    outer.run {
                        _ = a.read(0)
                        box.render()
                        _ = a.read(1)
                    }
                    let told = outerTold.value
                    x.write(0, x.stored + 1)
                    #expect(
                        outerTold.value == told + 1, "round \(round): the outer run read x through the nested render")
                }
                outer.cancel()
                box.scope!.cancel()
                #expect([a, x, y].allSatisfy { R.observerCount(of: $0) == 0 })
            }
            check(registrar.type)
        }

        /// A write made in a run nested in another is the enclosing run's own too, also of an
        /// object the nested run did not read: it tells neither scope. Counted in the nested run
        /// only, the enclosing scope's end takes the write for a change it missed.
        @Test(arguments: Registrar.allCases)
        func aWriteInANestedRunIsTheEnclosingRunsOwn(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let (x, y) = (R.Model(), R.Model())
                let (outerTold, innerTold) = (Counter(), Counter())
                let outer = R.scope { outerTold.bump() }
                let inner = R.scope { innerTold.bump() }
                for round in 0..<3 {
                    outer.run {
                        _ = x.read(0)
                        inner.run {
                            _ = y.read(0)
                            x.write(0, 10 * round + 1)  // written, not read
                            x.write(1, 10 * round + 2)
                        }
                    }
                    #expect(R.noRunOnThisThread && outerTold.value == 0 && innerTold.value == 0, "round \(round)")
                }
                x.write(0, 100)
                #expect(outerTold.value == 1 && innerTold.value == 0)
                y.write(0, 100)
                #expect(innerTold.value == 1)
                outer.cancel()
                inner.cancel()
            }
            check(registrar.type)
        }

        /// A nested run's reads merged into an enclosing run that kept the same object in line:
        /// each property is added, so a write of one only the nested run read tells the enclosing
        /// scope too.
        @Test(arguments: Registrar.allCases)
        func aNestedRunsFurtherPropertyOfAKeptDependencyIsWatchedByTheEnclosingScope(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let x = R.Model()
                let (outerTold, innerTold) = (Counter(), Counter())
                let outer = R.scope { outerTold.bump() }
                let inner = R.scope { innerTold.bump() }
                for round in 0..<4 {
                    outer.run {
                        _ = x.read(0)
                        inner.run {
                            _ = x.read(0)
                            _ = x.read(1)
                        }
                    }
                    let (outerBefore, innerBefore) = (outerTold.value, innerTold.value)
                    x.write(1, round + 1)
                    #expect(outerTold.value == outerBefore + 1, "round \(round)")
                    #expect(innerTold.value == innerBefore + 1, "round \(round)")
                }
                outer.cancel()
                inner.cancel()
            }
            check(registrar.type)
        }

        /// The same when another thread writes that property during the nested run: the
        /// enclosing scope is held to the version the nested read saw, not one loaded after the
        /// write.
        @Test(arguments: Registrar.allCases)
        func aWriteDuringANestedRunOfAFurtherPropertyTellsTheEnclosingScope(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let x = R.Model()
                let (outerTold, innerTold) = (Counter(), Counter())
                let outer = R.scope { outerTold.bump() }
                let inner = R.scope { innerTold.bump() }
                for round in 0..<4 {
                    // The enclosing scope watches only property 0, which it keeps in line next run.
                    for _ in 0..<2 { outer.run { _ = x.read(0) } }
                    let (outerBefore, innerBefore) = (outerTold.value, innerTold.value)
                    outer.run {
                        _ = x.read(0)
                        inner.run {
                            _ = x.read(1)
                            R.writeElsewhere(x, 1, round + 1)
                        }
                    }
                    #expect(outerTold.value == outerBefore + 1, "round \(round)")
                    #expect(innerTold.value == innerBefore + 1, "round \(round)")
                }
                outer.cancel()
                inner.cancel()
            }
            check(registrar.type)
        }

        /// A change a nested run's end finds (a write by another thread during the run) is told
        /// after that end, once its reads are merged into the enclosing run: a callback that
        /// renders the nested view again then adds to what the enclosing run read, and the
        /// enclosing scope, which read the object before the write, is told once.
        @Test(arguments: Registrar.allCases)
        func aChangeANestedRunsEndFindsIsToldAfterItsMerge(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let x = R.Model()
                let (outerTold, innerTold) = (Counter(), Counter())
                let box = ScopeBox<R.Scope>()
                box.render = { _ = box.scope!.run { x.read(0) } }
                box.scope = R.scope {
                    innerTold.bump()
                    if innerTold.value == 1 { box.render() }
                }
                let outer = R.scope { outerTold.bump() }
                outer.run {
                    box.scope!.run {
                        _ = x.read(0)
                        R.writeElsewhere(x, 0, 10)
                    }
                }
                #expect(R.noRunOnThisThread)
                #expect(innerTold.value == 1)
                #expect(outerTold.value == 1, "the outer run read x before the other thread's write")
                outer.cancel()
                box.scope!.cancel()
            }
            check(registrar.type)
        }

        /// A dependency a nested run drops is released at the end of the outermost scope, outside
        /// every scope (its deinit's write is then not taken for the enclosing run's own): the
        /// deinit's write of a property both scopes watch tells each once.
        @Test(arguments: Registrar.allCases)
        func aDependencyDroppedByANestedRunIsReleasedAfterTheOutermostScope(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let keeper = R.Model()
                let (outerTold, innerTold, deinits, deinitsInAScope) = (Counter(), Counter(), Counter(), Counter())
                var dying: R.Model? = R.Model {
                    deinits.bump()
                    if R.aScopeRunsOnThisThread { deinitsInAScope.bump() }
                    keeper.write(0, keeper.stored + 1)
                }
                let outer = R.scope { outerTold.bump() }
                let inner = R.scope { innerTold.bump() }
                _ = inner.run { keeper.read(0) + dying!.read(0) }
                dying = nil
                outer.run {
                    _ = keeper.read(1)
                    _ = inner.run { keeper.read(0) }  // drops it
                    #expect(deinits.value == 0, "released inside the outer run")
                }
                #expect(R.noRunOnThisThread)
                #expect(deinits.value == 1 && deinitsInAScope.value == 0)
                #expect(innerTold.value == 1)
                #expect(outerTold.value == 1, "the outer run read keeper's property 0 through the inner run")
                outer.cancel()
                inner.cancel()
            }
            check(registrar.type)
        }

        /// `cancel()` of an enclosing scope inside a run nested in it: the nested run's reads are
        /// merged into the enclosing run, which keeps none of them; the nested scope keeps its own.
        @Test(arguments: Registrar.allCases)
        func anEnclosingScopeCancelledInsideANestedRunKeepsNothing(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let model = R.Model()
                let (told, innerTold) = (Counter(), Counter())
                let outer = R.scope { told.bump() }
                let inner = R.scope { innerTold.bump() }
                outer.run {
                    _ = model.read(0)
                    inner.run {
                        _ = model.read(1)
                        #expect(outer.cancel())
                    }
                }
                #expect(R.noRunOnThisThread && !outer.isArmed && inner.isArmed)
                #expect(R.observerCount(of: model) == 1, "only the inner scope's slot")
                model.write(0, 1)
                model.write(1, 2)
                #expect(told.value == 0)
                #expect(innerTold.value == 1)
                inner.cancel()
                #expect(R.observerCount(of: model) == 0)
            }
            check(registrar.type)
        }

        /// A scope cancelled inside its own run nested in another: `cancel()` returns `true` (the
        /// run would have armed it), the scope keeps nothing, and the enclosing scope still depends
        /// on what the cancelled run read.
        @Test(arguments: Registrar.allCases)
        func aScopeCancelledInsideItsNestedRunStillCountsForTheEnclosingRun(_ registrar: Registrar) {
            func check<R: RegistrarUnderTest>(_: R.Type) {
                let (a, x) = (R.Model(), R.Model())
                let (outerTold, innerTold) = (Counter(), Counter())
                let outer = R.scope { outerTold.bump() }
                let inner = R.scope { innerTold.bump() }
                _ = inner.run { x.read(0) }
                var cancelled = false
                outer.run {
                    _ = a.read(0)
                    inner.run {
                        _ = x.read(0)
                        cancelled = inner.cancel()
                    }
                }
                #expect(R.noRunOnThisThread && cancelled && !inner.isArmed && outer.isArmed)
                #expect(R.observerCount(of: x) == 1, "only the outer scope's slot")
                x.write(0, 1)
                #expect(innerTold.value == 0 && outerTold.value == 1)
                outer.cancel()
                #expect(R.observerCount(of: x) == 0 && R.observerCount(of: a) == 0)
            }
            check(registrar.type)
        }
    }
}
