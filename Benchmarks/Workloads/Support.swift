import Contenders
import Harness
import LockFreeObservation
import Synchronization

/// A benchmark instance made of closures: the measured body and, optionally, its counters.
final class ClosureInstance: BenchmarkInstance {
    let body: (Int) throws -> Int
    let readCounts: () -> InvalidationCounts
    let readExtra: () -> [String: Double]

    convenience init(_ body: @escaping (Int) throws -> Int) {
        self.init(counts: { InvalidationCounts() }, body)
    }

    convenience init(counts: @escaping () -> InvalidationCounts, _ body: @escaping (Int) throws -> Int) {
        self.init(counts: counts, extra: { [:] }, body)
    }

    init(
        counts: @escaping () -> InvalidationCounts,
        extra: @escaping () -> [String: Double],
        _ body: @escaping (Int) throws -> Int
    ) {
        self.body = body
        self.readCounts = counts
        self.readExtra = extra
    }

    /// Called when the harness turns on verification (the counting pass).
    var onVerify: () -> Void = {}

    func run(operations: Int) throws -> Int { try body(operations) }
    func enableVerification() { onVerify() }
    var counts: InvalidationCounts { readCounts() }
    var extraMetrics: [String: Double] { readExtra() }
}

/// Counts the notifications it receives. Single-threaded use.
final class CountingObserver: ChangeObserver {
    var notifications = 0
    func observedValueWillChange() { notifications += 1 }
}

/// Calls `body` with each contender type; `body` returns that contender's benchmarks.
func forEachContender(_ body: (any Contender.Type) -> [Benchmark]) -> [Benchmark] {
    Contenders.all.flatMap { body($0) }
}

/// Parameter sets for one integer key.
func sets(_ key: String, _ values: [Int]) -> [Parameters] {
    values.map { Parameters([(key, String($0))]) }
}

/// Counts callbacks that may come from any thread.
final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
