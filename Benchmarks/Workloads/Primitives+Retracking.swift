import Harness
import LockFreeObservation
import Synchronization

/// Re-evaluating a view whose dependencies did not change, or changed by one: the cost that
/// fine-grained observation adds to every evaluation (Documentation/Workloads.md, section 4).
extension Primitives {
    static let retrackObjectCounts = [1, 64, 1024]

    /// The floor: the same body as `retrack-unchanged`, over plain objects, with no tracking.
    static func retrackFloor() -> [Benchmark] {
        final class Plain {
            var value: Double
            init(_ v: Double) { value = v }
        }
        return [
            Benchmark(
                family: "primitives/retrack-unchanged", contender: Benchmark.floorContender,
                parameterSets: sets("objects", retrackObjectCounts), parameterKinds: objectsKind,
                instructionOperations: instructionOperations
            ) { params in
                let cells = (0..<params.int("objects", default: 64)).map { Plain(Double($0)) }
                return ClosureInstance { ops in
                    var total = 0.0
                    for _ in 0..<ops {
                        var sum = 0.0
                        for cell in cells { sum += cell.value }
                        total += sum
                        blackHole(total)
                    }
                    return Int(total)
                }
            }
        ]
    }

    static let objectsKind: [String: ParameterKind] = ["objects": .oneOf(retrackObjectCounts.map(String.init))]

    static func instructionOperations(_ params: Parameters) -> Int {
        max(20, 20_000 / params.int("objects", default: 64))
    }

    /// One operation: one evaluation of a view reading one property of each of M objects, none of
    /// which changed since its last evaluation.
    static func retrackUnchanged<C: Contender>(_: C.Type) -> Benchmark {
        let name = C.name
        return Benchmark(
            family: "primitives/retrack-unchanged", contender: name,
            parameterSets: sets("objects", retrackObjectCounts), parameterKinds: objectsKind,
            expectedCounts: { _ in InvalidationCounts() },
            instructionOperations: instructionOperations
        ) { params in
            let cells = (0..<params.int("objects", default: 64)).map { C.Cell(Double($0)) }
            let holding = Holdings(all: cells)
            let observer = CountingObserver()
            var subscription: C.Subscription?
            // A view rendered before: mounted, then evaluated again, in the setup.
            for _ in 0..<2 {
                _ = C.evaluate(
                    { cells.reduce(0) { $0 + $1.value } }, holding: holding, observer: observer,
                    subscription: &subscription)
            }
            return ClosureInstance(counts: {
                InvalidationCounts(notifications: observer.notifications, invalidations: observer.notifications)
            }) { ops in
                var total = 0.0
                for _ in 0..<ops {
                    total += C.evaluate(
                        {
                            var sum = 0.0
                            for cell in cells { sum += cell.value }
                            return sum
                        }, holding: holding, observer: observer, subscription: &subscription)
                }
                return Int(total)
            }
        }
    }

    /// One operation: one of 64 objects changes (in turn), then the view re-evaluates.
    static func retrackOneChanged<C: Contender>(_: C.Type) -> Benchmark {
        let name = C.name
        return Benchmark(
            family: "primitives/retrack-one-changed", contender: name,
            parameterSets: sets("objects", [64]), parameterKinds: ["objects": .integer(1...4096)],
            expectedCounts: { _ in InvalidationCounts(notifications: 1, invalidations: 1) },
            instructionOperations: { _ in 1000 }
        ) { params in
            let cells = (0..<params.int("objects", default: 64)).map { C.Cell(Double($0)) }
            let holding = Holdings(all: cells)
            let observer = CountingObserver()
            var subscription: C.Subscription?
            // A view rendered before: mounted, then evaluated again, in the setup.
            for _ in 0..<2 {
                _ = C.evaluate(
                    { cells.reduce(0) { $0 + $1.value } }, holding: holding, observer: observer,
                    subscription: &subscription)
            }
            var round = 0.0
            return ClosureInstance(counts: {
                InvalidationCounts(notifications: observer.notifications, invalidations: observer.notifications)
            }) { ops in
                var total = 0.0
                round += 1
                total += C.evaluate(
                    {
                        var sum = 0.0
                        for cell in cells { sum += cell.value }
                        return sum
                    }, holding: holding, observer: observer, subscription: &subscription)
                for i in 0..<ops {
                    cells[i % cells.count].value = round * 1_000_000 + Double(i)
                    total += C.evaluate(
                        {
                            var sum = 0.0
                            for cell in cells { sum += cell.value }
                            return sum
                        }, holding: holding, observer: observer, subscription: &subscription)
                }
                return Int(total)
            }
        }
    }

    static func retracking<C: Contender>(_: C.Type) -> [Benchmark] {
        var list = [retrackUnchanged(C.self), retrackOneChanged(C.self)]
        // Views on 1 or 2 threads re-evaluating over the same 64 objects (the reuse path), or over
        // 64 objects of their own; one operation is one evaluation on each thread, so perfect
        // scaling keeps the time per operation of 1 thread.
        list.append(
            threadedViews(C.self, "primitives/tracked-read-threads", threads: [1, 2], shared: true, mountOnce: false))
        list.append(
            threadedViews(
                C.self, "primitives/tracked-read-threads-private", threads: [2], shared: false, mountOnce: false))
        // One-shot scopes over the same 64 objects on 1 or 2 threads: a view mounted, evaluated
        // and unmounted (a new subscription each time, so nothing can be reused).
        list.append(
            threadedViews(C.self, "primitives/track-once-threads", threads: [1, 2], shared: true, mountOnce: true))
        // Timed only, and noisy (two threads at full speed): not in `--quick`, the CI gate's suite.
        list.append(retrackBesideWrites(C.self).notInQuickSuite())
        return list
    }
}

/// `threads` views, one per thread, over the same 64 cells (`shared`) or 64 of their own; one
/// operation is one evaluation on each thread (of a view mounted for it and unmounted after, with
/// `mountOnce`), so perfect scaling keeps the time of 1 thread.
private func threadedViews<C: Contender>(
    _: C.Type, _ family: String, threads: [Int], shared: Bool, mountOnce: Bool
) -> Benchmark {
    Benchmark(
        family: family, contender: C.name,
        parameterSets: sets("threads", threads), parameterKinds: ["threads": .integer(1...2)],
        expectedCounts: { _ in InvalidationCounts() },
        // Four warm-up operations before the four counted: the setup mounts both views on this
        // thread, so the other thread's first installs (its own slot lane's first blocks, once per
        // object) come in its second operation, which one warm-up operation left in the counted
        // window (`track-once-threads/threads=2`: 68 mallocs, all of them once).
        countingOperations: 4
    ) { params in
        let mine = (0..<64).map { C.Cell(Double($0)) }
        let theirs = shared ? mine : (0..<64).map { C.Cell(Double($0)) }
        let worker = params.int("threads", default: 2) == 2 ? Worker(spinning: true) : nil
        let view = ThreadView<C>(cells: mine)
        let otherView = UncheckedSendable(ThreadView<C>(cells: theirs))
        return ClosureInstance(counts: {
            let n = view.observer.notifications + otherView.value.observer.notifications
            return InvalidationCounts(notifications: n, invalidations: n)
        }) { ops in
            worker?.start {
                let other = otherView.value
                if mountOnce {
                    for _ in 0..<ops { _ = other.mountOnce() }
                } else {
                    for _ in 0..<ops { other.evaluate() }
                }
            }
            var total = 0.0
            if mountOnce {
                for _ in 0..<ops { total += view.mountOnce() }
            } else {
                for _ in 0..<ops { total += view.evaluate() }
            }
            worker?.wait()
            return Int(total)
        }
    }
    // Each thread evaluates its view a fixed number of times over cells nobody writes.
    .onThreads { params in params.int("threads", default: 2) == 2 ? .exactOnThreads : .oneThread }
}

/// A view re-evaluating over 64 objects (the reuse path) while another thread writes a property of
/// an object the view does not read, observed by a view of its own that it re-evaluates after
/// each write (a second thread that changes state and renders); `writers=0`: the same view with
/// no writing thread. One operation is one evaluation of the first view: the cost that another
/// thread's observed writes add to re-tracking (a run that begins while one is in flight reads
/// through the checked path, `ReusableScope.run`).
private func retrackBesideWrites<C: Contender>(_: C.Type) -> Benchmark {
    Benchmark(
        family: "primitives/retrack-beside-writes", contender: C.name,
        parameterSets: sets("writers", [0, 1]), parameterKinds: ["writers": .integer(0...1)],
        expectedCounts: { _ in InvalidationCounts() },
        countingOperations: 4
    ) { params in
        let view = ThreadView<C>(cells: (0..<64).map { C.Cell(Double($0)) })
        let written = C.Cell(0)
        let writer = UncheckedSendable((written, ThreadView<C>(cells: [written])))
        let worker = params.int("writers", default: 1) == 1 ? Worker(spinning: true) : nil
        let stop = StopFlag()
        return ClosureInstance(counts: {
            InvalidationCounts(notifications: view.observer.notifications, invalidations: view.observer.notifications)
        }) { ops in
            stop.raised.store(0, ordering: .relaxed)
            worker?.start {
                let (cell, other) = writer.value
                var next = cell.value
                while stop.raised.load(ordering: .relaxed) == 0 {
                    next += 1
                    cell.value = next
                    other.evaluate()
                }
            }
            var total = 0.0
            for _ in 0..<ops { total += view.evaluate() }
            stop.raised.store(1, ordering: .relaxed)
            worker?.wait()
            return Int(total)
        }
    }
    // The writer writes and evaluates for as long as the counted operations last, so how many
    // times it does, and what its evaluations allocate (`apple` allocates for each), has no bound:
    // its mallocs are not gated. The first view's counts are exact.
    .onThreads { params in
        params.int("writers", default: 1) == 1
            ? .timingDependent(countsVary: false, mallocTolerance: .infinity) : .oneThread
    }
}

/// Raised to stop a worker's loop (`retrackBesideWrites`).
private final class StopFlag: Sendable { let raised = Atomic<Int>(0) }

/// A view over 64 cells that one thread re-evaluates.
final class ThreadView<C: Contender> {
    let cells: [C.Cell]
    let holding: Holdings
    let observer = CountingObserver()
    var subscription: C.Subscription?

    /// Mounted and rendered once more, as a view that re-renders is.
    init(cells: [C.Cell]) {
        self.cells = cells
        holding = Holdings(all: cells)
        evaluate()
        evaluate()
    }

    @discardableResult
    func evaluate() -> Double {
        C.evaluate(
            {
                var sum = 0.0
                for cell in cells { sum += cell.value }
                return sum
            }, holding: holding, observer: observer, subscription: &subscription)
    }

    /// Evaluates the view as if just mounted, then unmounts it.
    func mountOnce() -> Double {
        let value = evaluate()
        C.unsubscribe(&subscription)
        return value
    }
}
