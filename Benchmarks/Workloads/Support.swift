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

/// A workload's benchmarks for one contender; generic code specialised per contender.
protocol WorkloadFamily: ContenderVisitor, Sendable, SendableMetatype where Result == [Benchmark] {}

extension WorkloadFamily {
    /// This family's benchmarks for every contender.
    var benchmarks: [Benchmark] { Contenders.visitAll(self).flatMap { $0 } }
}

/// A view-graph workload: a tree built per contender, one operation = its writes and a frame.
protocol TreeFamily: WorkloadFamily {
    var name: String { get }
    var parameterSets: [Parameters] { get }
    /// The sets `--full` adds.
    var largeParameterSets: [Parameters] { get }
    var parameterKinds: [String: ParameterKind] { get }
    func expected(fineGrained: Bool, _ parameters: Parameters) -> InvalidationCounts?
    func build<C: Contender>(_: C.Type, _ parameters: Parameters) throws -> Tree<C>
    /// Operations of the instruction pass (see `Benchmark.instructionOperations`).
    func instructionOperations(_ parameters: Parameters) -> Int?
}

extension TreeFamily {
    var parameterSets: [Parameters] { [Parameters()] }
    var largeParameterSets: [Parameters] { [] }
    var parameterKinds: [String: ParameterKind] { [:] }
    /// About 10 ms of apple's work natively, a second under callgrind.
    func instructionOperations(_ parameters: Parameters) -> Int? { 200 }

    func visit<C: Contender>(_: C.Type) -> [Benchmark] {
        let family = self
        return [
            Benchmark(
                family: name, contender: C.name, parameterSets: parameterSets, largeParameterSets: largeParameterSets,
                parameterKinds: parameterKinds,
                expectedCounts: { family.expected(fineGrained: C.isFineGrained, $0) },
                instructionOperations: { family.instructionOperations($0) }
            ) { params in
                let tree = try family.build(C.self, params)
                let start = tree.graph.counts
                // Operations are numbered across runs, so alternating steps keep alternating.
                var done = 0
                let instance = ClosureInstance(counts: { tree.graph.counts - start }, extra: tree.extra) { ops in
                    for _ in 0..<ops {
                        try tree.operation(done)
                        done += 1
                    }
                    return tree.graph.counts.evaluations
                }
                instance.onVerify = { tree.graph.verifies = true }
                return instance
            }
        ]
    }
}

/// A built tree: its graph, one operation (writes, then a frame), and values it records beside
/// its counts (`BenchmarkInstance.extraMetrics`, gated exactly).
struct Tree<C: Contender> {
    let graph: ViewGraph<C>
    let operation: (Int) throws -> Void
    var extra: () -> [String: Double] = { [:] }
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
