import Harness
import LockFreeObservation
import Testing

@testable import Workloads

// The worked examples of Documentation/Extending.md, compiled. The doc quotes the code between each
// `// region NAME` and `// endregion NAME` line, exactly (`HarnessTests.ExtendingDocTests` checks it).

// region contender
/// `lockfree`'s registrar with a fresh one-shot scope at every evaluation: what keeping a view's
/// dependencies in a `ReusableScope` saves.
enum OneShotLockFree: Contender {
    static let name = "lockfree-one-shot"
    static let isFineGrained = true

    // The models are `lockfree`'s: only the way a view subscribes differs.
    typealias Author = LockFree.Author
    typealias Book = LockFree.Book
    typealias Library = LockFree.Library
    typealias Cell = LockFree.Cell
    typealias Fields = LockFree.Fields
    typealias Settings = LockFree.Settings
    typealias Record = LockFree.Record
    typealias SettingsState = LockFree.SettingsState
    typealias Subscription = TrackingToken

    static func evaluate<T>(
        _ body: () -> T, holding: Holdings, observer: some ChangeObserver, subscription: inout Subscription?
    ) -> T {
        subscription?.cancel()
        let (value, token) = withTracking(body, notifying: observer)
        subscription = token
        return value
    }

    static func unsubscribe(_ subscription: inout Subscription?) {
        subscription?.cancel()
        subscription = nil
    }

    static func observeContinuously(
        _ apply: @escaping () -> Void, holding: Holdings, onChange: @escaping @Sendable () -> Void
    ) -> Cancellation {
        let token = observeChanges(apply, onChange: onChange)
        return Cancellation { token.cancel() }
    }
}
// endregion contender

// region workload
/// Rows that each show one book's title; each operation toggles a book's availability, which no
/// row reads. Fine-grained contenders re-render nothing; `naive` re-renders the book's row.
struct ToggleUnreadProperty: TreeFamily {
    let name = "books/toggle-unread-property"
    let parameterSets = sets("rows", [10, 100])
    let parameterKinds: [String: ParameterKind] = ["rows": .integer(1...10_000)]

    func expected(fineGrained: Bool, _ parameters: Parameters) -> InvalidationCounts? {
        fineGrained
            ? InvalidationCounts()
            : InvalidationCounts(notifications: 1, invalidations: 1, evaluations: 1, unnecessary: 1)
    }

    func build<C: Contender>(_: C.Type, _ parameters: Parameters) throws -> Tree<C> {
        let rows = parameters.int("rows", default: 10)
        let author = C.Author(name: "Austen")
        let books = (0..<rows).map { C.Book(id: $0, title: "Book \($0)", author: author, isAvailable: true) }
        let graph = ViewGraph<C>()
        for book in books {
            graph.mount(
                ViewNode("row\(book.id)", depth: 0, holding: Holdings(book), graph: graph) {
                    book.title.count
                })
        }
        // region metric
        // A value of the workload's own, recorded as a metric (and gated exactly): how many books
        // are available when the counting pass ends.
        let extra = { ["available-books": Double(books.filter(\.isAvailable).count)] }
        // endregion metric
        return Tree(
            graph: graph,
            operation: { op in
                books[op % rows].isAvailable.toggle()
                try graph.flush()
            }, extra: extra)
    }
}
// endregion workload

@Suite struct ExtendingExampleTests {
    /// Runs a benchmark at test size with the oracle on and checks its declared counts, as `bench`
    /// does in its counting pass.
    func check(_ benchmark: Benchmark, _ parameters: Parameters, operations: Int = 4) throws -> BenchmarkInstance {
        let instance = try benchmark.make(parameters)
        instance.enableVerification()
        _ = try instance.run(operations: 1)
        let before = instance.counts
        _ = try instance.run(operations: operations)
        let measured = instance.counts - before
        let name = benchmark.name(with: parameters) + " [" + benchmark.contender + "]"
        #expect(measured.missed == 0, "\(name): missed updates")
        if let expected = benchmark.expectedCounts?(parameters) {
            #expect(measured == expected.times(operations), "\(name)")
        }
        return instance
    }

    @Test func theNewWorkloadRunsOnEveryContenderWithItsDeclaredCounts() throws {
        let benchmarks = ToggleUnreadProperty().benchmarks
        #expect(Set(benchmarks.map(\.contender)) == Set(Contenders.names))
        for benchmark in benchmarks {
            for parameters in benchmark.defaultParameterSets {
                let instance = try check(benchmark, parameters)
                // 1 + 4 toggles of books 0...4: books 0 to 4 unavailable.
                #expect(instance.extraMetrics == ["available-books": Double(parameters.int("rows", default: 10) - 5)])
            }
        }
    }

    @Test func theNewContenderRunsExistingWorkloads() throws {
        let families: [any WorkloadFamily] = [
            ToggleUnreadProperty(), ViewTrees.FanOut(), SettingsWorkloads.ClassFields(),
            SettingsWorkloads.ContinuousLogger(),
        ]
        for family in families {
            for benchmark in family.visit(OneShotLockFree.self) {
                #expect(benchmark.contender == "lockfree-one-shot")
                for parameters in benchmark.defaultParameterSets {
                    _ = try check(benchmark, parameters)
                }
            }
        }
    }
}
