import Contenders
import Harness

/// A value type in a generic observable wrapper against an observable class with per-field
/// tracking, and continuous observation outside the view graph.
enum SettingsWorkloads {
    typealias Counts = InvalidationCounts

    static func benchmarks() -> [Benchmark] {
        // A view reads only `fontSize`; each operation changes `lineSpacing`, then a frame.
        ViewTrees.family(
            "settings/struct-in-wrapper",
            expected: { _, _ in Counts(notifications: 1, invalidations: 1, evaluations: 1, unnecessary: 1) }
        ) { contender, _ in
            func open<C: Contender>(_: C.Type) -> (graph: AnyObject, counts: () -> Counts, verify: () -> Void, op: (Int) throws -> Void) {
                let state = C.SettingsState(SettingsValue())
                let graph = ViewGraph<C>()
                graph.mount(ViewNode("FontView", depth: 0, holding: Holdings(state), graph: graph) { Int(state.item.fontSize) })
                return ViewTrees.wrap(ViewTrees.Tree(graph: graph) { op in
                    state.item.lineSpacing = 1 + Double(op % 7) / 10 + 0.05
                    try graph.flush()
                })
            }
            return open(contender)
        }
            + ViewTrees.family(
                "settings/class-fields",
                expected: { fine, _ in fine ? Counts() : Counts(notifications: 1, invalidations: 1, evaluations: 1, unnecessary: 1) }
            ) { contender, _ in
                func open<C: Contender>(_: C.Type) -> (graph: AnyObject, counts: () -> Counts, verify: () -> Void, op: (Int) throws -> Void) {
                    let settings = C.Settings()
                    let graph = ViewGraph<C>()
                    graph.mount(ViewNode("FontView", depth: 0, holding: Holdings(settings), graph: graph) { Int(settings.fontSize) })
                    return ViewTrees.wrap(ViewTrees.Tree(graph: graph) { op in
                        settings.lineSpacing = 1 + Double(op % 7) / 10 + 0.05
                        try graph.flush()
                    })
                }
                return open(contender)
            }
            + logger()
    }

    /// A logger reacting to every change of one property: `apple` re-arms
    /// `withObservationTracking` in every `onChange`, `lockfree` uses continuous observation,
    /// `naive` a persistent subscription. One operation is one change; one callback each.
    static func logger() -> [Benchmark] {
        Contenders.all.map { contender in
            func open<C: Contender>(_: C.Type) -> Benchmark {
                Benchmark(
                    family: "observation/continuous-logger", contender: C.name,
                    expectedCounts: { _ in Counts(notifications: 1) }
                ) { _ in
                    let settings = C.Settings()
                    let calls = CallCounter()
                    let cancellation = C.observeContinuously({ _ = settings.fontSize }, holding: Holdings(settings)) {
                        calls.increment()
                    }
                    var next = settings.fontSize
                    return ClosureInstance(counts: { Counts(notifications: calls.value) }) { ops in
                        withExtendedLifetime(cancellation) {
                            for _ in 0..<ops {
                                next += 1
                                settings.fontSize = next
                            }
                        }
                        return calls.value
                    }
                }
            }
            return open(contender)
        }
    }
}
