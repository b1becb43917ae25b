import Foundation
import Harness
import LockFreeObservation
import Synchronization

/// The registrar primitives (Documentation/Workloads.md, section 4): the numbers the registrar is held to.
enum Primitives {
    static func benchmarks() -> [Benchmark] {
        [plainRead()] + retrackFloor() + Family().benchmarks
    }

    struct Family: WorkloadFamily {
        func visit<C: Contender>(_: C.Type) -> [Benchmark] { of(C.self) }
    }

    /// The floor: the same loop as `untracked-read` over a plain class with a stored property.
    static func plainRead() -> Benchmark {
        final class Plain {
            var value: Double
            init(_ v: Double) { value = v }
        }
        return Benchmark(
            family: "primitives/plain-read", contender: Benchmark.floorContender,
            instructionOperations: { _ in 100_000 }
        ) { _ in
            let cells = (0..<1024).map { Plain(Double($0)) }
            return ClosureInstance { ops in
                var sum = 0.0
                for i in 0..<ops { sum += cells[i & 1023].value }
                return Int(sum)
            }
        }
    }

    static let cellCount = 1024

    /// Every primitive on one contender, in the order the report lists them.
    static func of<C: Contender>(_: C.Type) -> [Benchmark] {
        [
            untrackedRead(C.self), trackedRead(C.self), mutationUnobserved(C.self), mutationOtherObserved(C.self),
            trackPropertiesFire(C.self), trackObjectsFire(C.self), fireScopes(C.self), createDestroy(C.self),
        ] + mutationThreads(C.self) + retracking(C.self)
    }

    /// Reads a property outside any scope.
    static func untrackedRead<C: Contender>(_: C.Type) -> Benchmark {
        let name = C.name
        return Benchmark(family: "primitives/untracked-read", contender: name, instructionOperations: { _ in 100_000 })
        {
            _ in
            let cells = (0..<cellCount).map { C.Cell(Double($0)) }
            return ClosureInstance { ops in
                var sum = 0.0
                for i in 0..<ops { sum += cells[i & (cellCount - 1)].value }
                return Int(sum)
            }
        }
    }

    /// Repeated reads of a property already read in the same scope: scopes of 1024 reads, so
    /// the cost per read does not depend on how many operations one call runs.
    static func trackedRead<C: Contender>(_: C.Type) -> Benchmark {
        let name = C.name
        return Benchmark(
            family: "primitives/tracked-read", contender: name, countingOperations: 1024,
            instructionOperations: { _ in 16 * 1024 }
        ) { _ in
            let cells = (0..<8).map { C.Cell(Double($0)) }
            let observer = CountingObserver()
            var subscription: C.Subscription?
            // A view rendered before: mounted, then evaluated again, in the setup.
            for _ in 0..<2 {
                _ = C.evaluate(
                    { cells.reduce(0) { $0 + $1.value } }, holding: Holdings(cells[0]), observer: observer,
                    subscription: &subscription)
            }
            return ClosureInstance { ops in
                var total = 0.0
                var remaining = ops
                while remaining > 0 {
                    let reads = min(remaining, 1024)
                    total += C.evaluate(
                        {
                            var sum = 0.0
                            for i in 0..<reads { sum += cells[i & 7].value }
                            return sum
                        }, holding: Holdings(cells[0]), observer: observer, subscription: &subscription)
                    remaining -= reads
                }
                return Int(total)
            }
        }
    }

    /// objects=1: writes to one object the caller holds, the registrar's own cost. objects=1024:
    /// writes walk an array, and the caller retains and releases each element around the setter
    /// (a setter may run `onChange` callbacks, which may release the object), in every contender.
    static func mutationUnobserved<C: Contender>(_: C.Type) -> Benchmark {
        let name = C.name
        return Benchmark(
            family: "primitives/mutation-unobserved", contender: name,
            parameterSets: sets("objects", [1, cellCount]),
            parameterKinds: ["objects": .oneOf(["1", "\(cellCount)"])],
            instructionOperations: { _ in 100_000 }
        ) { params in
            let cells = (0..<cellCount).map { C.Cell(Double($0)) }
            var round = 0.0
            if params.int("objects", default: cellCount) == 1 {
                let cell = cells[0]
                return ClosureInstance { ops in
                    round += 1
                    for i in 0..<ops { cell.value = round + Double(i) }
                    return Int(round)
                }
            }
            return ClosureInstance { ops in
                round += 1
                for i in 0..<ops { cells[i & (cellCount - 1)].value = round + Double(i) }
                return Int(round)
            }
        }
    }

    /// Every object has an observer on `fontSize`; the benchmark writes `theme`, to one object
    /// the caller holds (objects=1) or walking the array (objects=1024), as above.
    static func mutationOtherObserved<C: Contender>(_: C.Type) -> Benchmark {
        let name = C.name
        return Benchmark(
            family: "primitives/mutation-other-observed", contender: name,
            parameterSets: sets("objects", [1, cellCount]),
            parameterKinds: ["objects": .oneOf(["1", "\(cellCount)"])],
            expectedCounts: { _ in
                C.isFineGrained ? InvalidationCounts() : InvalidationCounts(notifications: 1, invalidations: 1)
            },
            instructionOperations: { _ in 100_000 }
        ) { params in
            let objects = (0..<cellCount).map { _ in C.Settings() }
            let observer = CountingObserver()
            var subscriptions = [C.Subscription?](repeating: nil, count: cellCount)
            for i in 0..<cellCount {
                _ = C.evaluate(
                    { objects[i].fontSize }, holding: Holdings(objects[i]), observer: observer,
                    subscription: &subscriptions[i])
            }
            var round = 0
            let counts = {
                InvalidationCounts(notifications: observer.notifications, invalidations: observer.notifications)
            }
            if params.int("objects", default: cellCount) == 1 {
                let object = objects[0]
                return ClosureInstance(counts: counts) { ops in
                    round += 1
                    for i in 0..<ops { object.theme = round &* 1_000_003 &+ i }
                    return round + subscriptions.count
                }
            }
            return ClosureInstance(counts: counts) { ops in
                round += 1
                for i in 0..<ops { objects[i & (cellCount - 1)].theme = round &* 1_000_003 &+ i }
                return round + subscriptions.count
            }
        }
    }

    /// Track K properties of one object, then one mutation fires the scope.
    static func trackPropertiesFire<C: Contender>(_: C.Type) -> Benchmark {
        let name = C.name
        return Benchmark(
            family: "primitives/track-properties-fire", contender: name,
            parameterSets: sets("properties", [1, 8]), parameterKinds: ["properties": .integer(1...8)],
            expectedCounts: { _ in InvalidationCounts(notifications: 1, invalidations: 1) },
            instructionOperations: { _ in 1000 }
        ) { params in
            let k = params.int("properties", default: 1)
            let record = C.Record()
            let observer = CountingObserver()
            var subscription: C.Subscription?
            // Mounted: evaluated once in the setup, as a view is before its first change.
            _ = C.evaluate(
                { record.p0 }, holding: Holdings(record), observer: observer, subscription: &subscription)
            record.p0 &+= 1
            observer.notifications = 0
            return ClosureInstance(counts: {
                InvalidationCounts(notifications: observer.notifications, invalidations: observer.notifications)
            }) { ops in
                var sum = 0
                for _ in 0..<ops {
                    sum &+= C.evaluate(
                        {
                            var s = 0
                            for p in 0..<k { s &+= record.value(at: p) }
                            return s
                        }, holding: Holdings(record), observer: observer, subscription: &subscription)
                    record.p0 &+= 1
                }
                return sum
            }
        }
    }

    /// Track one property of each of M objects, then one mutation fires the scope.
    static func trackObjectsFire<C: Contender>(_: C.Type) -> Benchmark {
        let name = C.name
        return Benchmark(
            family: "primitives/track-objects-fire", contender: name,
            parameterSets: sets("objects", [8, 64]), parameterKinds: ["objects": .integer(1...100_000)],
            expectedCounts: { _ in InvalidationCounts(notifications: 1, invalidations: 1) },
            instructionOperations: { _ in 200 }
        ) { params in
            let m = params.int("objects", default: 8)
            let cells = (0..<m).map { C.Cell(Double($0)) }
            let observer = CountingObserver()
            var subscription: C.Subscription?
            // Mounted: evaluated once in the setup, as a view is before its first change.
            _ = C.evaluate(
                { cells.reduce(0) { $0 + $1.value } }, holding: Holdings(cells[0]), observer: observer,
                subscription: &subscription)
            cells[0].value += 1
            observer.notifications = 0
            return ClosureInstance(counts: {
                InvalidationCounts(notifications: observer.notifications, invalidations: observer.notifications)
            }) { ops in
                var sum = 0.0
                for _ in 0..<ops {
                    sum += C.evaluate(
                        {
                            var s = 0.0
                            for cell in cells { s += cell.value }
                            return s
                        }, holding: Holdings(cells[0]), observer: observer, subscription: &subscription)
                    cells[0].value += 1
                }
                return Int(sum)
            }
        }
    }

    /// One mutation fires N scopes; one operation is one round: N scopes armed, then fired.
    static func fireScopes<C: Contender>(_: C.Type) -> Benchmark {
        let name = C.name
        return Benchmark(
            family: "primitives/fire-scopes", contender: name,
            parameterSets: sets("scopes", [1, 100, 1000]), parameterKinds: ["scopes": .integer(1...100_000)],
            expectedCounts: { params in
                let n = params.int("scopes", default: 100)
                return InvalidationCounts(notifications: n, invalidations: n)
            },
            instructionOperations: { _ in 20 }
        ) { params in
            let n = params.int("scopes", default: 100)
            let cell = C.Cell(0)
            let observers = (0..<n).map { _ in CountingObserver() }
            var subscriptions = [C.Subscription?](repeating: nil, count: n)
            // Mounted: each view evaluated once in the setup, as before its first change.
            for i in 0..<n {
                _ = C.evaluate(
                    { cell.value }, holding: Holdings(cell), observer: observers[i], subscription: &subscriptions[i]
                )
            }
            cell.value += 1
            for observer in observers { observer.notifications = 0 }
            return ClosureInstance(counts: {
                let total = observers.reduce(0) { $0 + $1.notifications }
                return InvalidationCounts(notifications: total, invalidations: total)
            }) { ops in
                var sum = 0.0
                for _ in 0..<ops {
                    for i in 0..<n {
                        sum += C.evaluate(
                            { cell.value }, holding: Holdings(cell), observer: observers[i],
                            subscription: &subscriptions[i])
                    }
                    cell.value += 1
                }
                return Int(sum)
            }
        }
    }

    /// Creates and destroys an object.
    static func createDestroy<C: Contender>(_: C.Type) -> Benchmark {
        let name = C.name
        return Benchmark(family: "primitives/create-destroy", contender: name, instructionOperations: { _ in 10_000 }) {
            _ in
            ClosureInstance { ops in
                var sum = 0
                for i in 0..<ops {
                    let cell = C.Cell(Double(i))
                    sum &+= Int(bitPattern: ObjectIdentifier(cell)) & 1
                }
                return sum
            }
        }
    }

    /// Mutations on 1 or 2 threads at once; one operation is one mutation on each thread, so
    /// perfect scaling keeps the time per operation of 1 thread.
    static func mutationThreads<C: Contender>(_: C.Type) -> [Benchmark] {
        let name = C.name
        return [false, true].map { shared in
            Benchmark(
                family: shared ? "primitives/mutation-threads-same-object" : "primitives/mutation-threads",
                contender: name,
                parameterSets: sets("threads", shared ? [2] : [1, 2]), parameterKinds: ["threads": .integer(1...2)]
            ) { params in
                let threads = params.int("threads", default: 2)
                let settings = (0..<2).map { _ in C.Settings() }
                let worker = threads == 2 ? Worker(spinning: true) : nil
                return ClosureInstance { ops in
                    let mine = settings[0]
                    let theirs = UncheckedSendable(shared ? settings[0] : settings[1])
                    worker?.start {
                        let object = theirs.value
                        for i in 0..<ops { object.lineSpacing = Double(i &+ 1) }
                    }
                    for i in 0..<ops { mine.fontSize = Double(i &+ 1) }
                    worker?.wait()
                    return Int(mine.fontSize)
                }
            }.onThreads { params in
                // Each thread writes a fixed number of times, unobserved: nothing to count, and
                // no allocation that depends on the interleaving.
                params.int("threads", default: 2) == 2 ? .exactOnThreads : .oneThread
            }
        }
    }
}

/// A second thread that runs one job at a time, for as long as its owner keeps it. A spinning
/// worker polls for work, so handing over a job costs a cache-line transfer instead of a wake-up
/// (the primitives time a few nanoseconds per operation); a sleeping one waits on a semaphore (the
/// book steps, with more workers than cores). Its thread exits when the worker is released.
final class Worker: Sendable {
    /// What the thread and the owner share; the thread holds it, not the worker, so that releasing
    /// the worker stops the thread.
    private final class Channel: @unchecked Sendable {
        // `@unchecked Sendable`: `job` is handed over under the release/acquire of `phase` or the
        // semaphores' happens-before.
        let spinning: Bool
        /// 0 idle, 1 job ready, 2 job done, 3 stop.
        let phase = Atomic<Int>(0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        var job: (() -> Void)?

        init(spinning: Bool) { self.spinning = spinning }

        func serve() {
            while true {
                if spinning {
                    var current = phase.load(ordering: .acquiring)
                    while current != 1 && current != 3 { current = phase.load(ordering: .acquiring) }
                    if current == 3 { return }
                } else {
                    go.wait()
                    if phase.load(ordering: .acquiring) == 3 { return }
                }
                job?()
                job = nil
                if spinning { phase.store(2, ordering: .releasing) } else { done.signal() }
            }
        }
    }

    private let channel: Channel
    /// Set by the thread as it exits (tests).
    let exited = Exited()

    final class Exited: Sendable {
        let flag = Atomic<Bool>(false)
        var value: Bool { flag.load(ordering: .acquiring) }
    }

    /// Workers created on the calling thread so far. A benchmark creates its workers in its setup,
    /// on the thread that calls `make`: `ExpectedCountsTests` holds each benchmark's declared
    /// `threads` to it.
    static var createdOnThisThread: Int { Thread.current.threadDictionary[createdKey] as? Int ?? 0 }
    private static let createdKey = "Workloads.Worker.created"

    init(spinning: Bool = false) {
        Thread.current.threadDictionary[Self.createdKey] = Self.createdOnThisThread + 1
        let channel = Channel(spinning: spinning)
        let exited = self.exited
        self.channel = channel
        Thread {
            channel.serve()
            exited.flag.store(true, ordering: .releasing)
        }.start()
    }

    /// Stops the thread (after the job it runs, if any; the owner waited for it).
    deinit {
        channel.phase.store(3, ordering: .releasing)
        if !channel.spinning { channel.go.signal() }
    }

    func start(_ job: @escaping () -> Void) {
        channel.job = job
        if channel.spinning { channel.phase.store(1, ordering: .releasing) } else { channel.go.signal() }
    }

    func wait() {
        if channel.spinning {
            while channel.phase.load(ordering: .acquiring) != 2 {}
            channel.phase.store(0, ordering: .relaxed)
        } else {
            channel.done.wait()
        }
    }
}
