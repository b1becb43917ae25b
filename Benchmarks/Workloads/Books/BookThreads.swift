import Foundation
import Harness

/// T threads toggle disjoint unmounted books at once, then one frame. Every toggle changes
/// `availableBooksCount`, so the count view must be invalidated exactly once per frame and
/// re-evaluated once; no change may be lost (the oracle checks the count after every frame).
struct BookThreads: WorkloadFamily {
    static let togglesPerThread = 100

    func visit<C: Contender>(_: C.Type) -> [Benchmark] {
        let togglesPerThread = Self.togglesPerThread
        return
            [
                Benchmark(
                    family: "books/threads", contender: C.name,
                    parameterSets: [1, 2, 4].map {
                        Parameters([("n", "100000"), ("visible", "50"), ("threads", String($0))])
                    },
                    // Threads toggle books outside the mounted window: at least 500 of them.
                    parameterKinds: [
                        "n": .integer(1000...10_000_000), "visible": .integer(1...500), "threads": .integer(1...8),
                    ]
                ) { params in
                    let threads = params.int("threads", default: 2)
                    let scene = BookScene<C>(
                        n: params.int("n", default: 100_000), visible: params.int("visible", default: 50))
                    scene.graph.concurrentNotifications = NotificationLock()
                    let books = scene.library.books
                    let first = scene.visible
                    let perThread = max(1, (books.count - first) / threads)
                    let workers = (1..<threads).map { _ in Worker() }
                    let start = scene.graph.counts
                    var rounds = 0
                    let instance = ClosureInstance(counts: { scene.graph.counts - start }) { ops in
                        for _ in 0..<ops {
                            let round = rounds
                            rounds += 1
                            let toggle: @Sendable (Int) -> Void = { [books = UncheckedSendable(books)] t in
                                let base = first + t * perThread
                                for k in 0..<togglesPerThread {
                                    books.value[base + (round &* togglesPerThread &+ k) % perThread].isAvailable
                                        .toggle()
                                }
                            }
                            for (t, worker) in workers.enumerated() { worker.start { toggle(t + 1) } }
                            toggle(0)
                            for worker in workers { worker.wait() }
                            let before = scene.graph.counts
                            try scene.frame()
                            let frame = scene.graph.counts - before
                            if C.isFineGrained && (frame.evaluations != 1) {
                                throw BenchmarkFailure(
                                    "books/threads: \(frame.evaluations) evaluations in a frame, expected 1 (the count view)"
                                )
                            }
                        }
                        return scene.graph.counts.evaluations
                    }
                    instance.onVerify = { scene.graph.verifies = true }
                    return instance
                }
                // Racing threads: Observation's one-shot is not strict under races, so `apple`'s
                // notification count varies from run to run (the oracle still checks every frame),
                // and so do the allocations of what it notifies.
                .onThreads { params in
                    params.int("threads", default: 2) > 1
                        ? .timingDependent(countsVary: true, mallocTolerance: 64) : .oneThread
                }
            ]
    }
}
