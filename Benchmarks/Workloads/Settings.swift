import Harness

/// A value type in a generic observable wrapper against an observable class with per-field
/// tracking, and continuous observation outside the view graph.
enum SettingsWorkloads {
    typealias Counts = InvalidationCounts

    static func benchmarks() -> [Benchmark] {
        StructInWrapper().benchmarks + ClassFields().benchmarks + ContinuousLogger().benchmarks
    }

    /// A view reads only `state.item.fontSize`; each operation changes `lineSpacing`: the whole
    /// struct is one property, so the view is invalidated, needlessly.
    struct StructInWrapper: TreeFamily {
        let name = "settings/struct-in-wrapper"
        func expected(fineGrained: Bool, _: Parameters) -> Counts? {
            Counts(notifications: 1, invalidations: 1, evaluations: 1, unnecessary: 1)
        }
        func build<C: Contender>(_: C.Type, _: Parameters) throws -> Tree<C> {
            let state = C.SettingsState(SettingsValue())
            let graph = ViewGraph<C>()
            graph.mount(
                ViewNode("FontView", depth: 0, holding: Holdings(state), graph: graph) { Int(state.item.fontSize) })
            return Tree(graph: graph) { op in
                state.item.lineSpacing = 1 + Double(op % 7) / 10 + 0.05
                try graph.flush()
            }
        }
    }

    /// The same with an observable class: fine-grained contenders do not invalidate the view.
    struct ClassFields: TreeFamily {
        let name = "settings/class-fields"
        func expected(fineGrained: Bool, _: Parameters) -> Counts? {
            fineGrained ? Counts() : Counts(notifications: 1, invalidations: 1, evaluations: 1, unnecessary: 1)
        }
        func build<C: Contender>(_: C.Type, _: Parameters) throws -> Tree<C> {
            let settings = C.Settings()
            let graph = ViewGraph<C>()
            graph.mount(
                ViewNode("FontView", depth: 0, holding: Holdings(settings), graph: graph) { Int(settings.fontSize) })
            return Tree(graph: graph) { op in
                settings.lineSpacing = 1 + Double(op % 7) / 10 + 0.05
                try graph.flush()
            }
        }
    }

    /// A logger reacting to every change of one property: `apple` re-arms
    /// `withObservationTracking` in every `onChange`, `lockfree` uses continuous observation,
    /// `naive` a persistent subscription. One operation is one change; one callback each.
    struct ContinuousLogger: WorkloadFamily {
        func visit<C: Contender>(_: C.Type) -> [Benchmark] {
            [
                Benchmark(
                    family: "observation/continuous-logger", contender: C.name,
                    expectedCounts: { _ in Counts(notifications: 1) }, instructionOperations: { _ in 2000 }
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
            ]
        }
    }
}
