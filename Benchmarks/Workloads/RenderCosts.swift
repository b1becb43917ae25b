import Harness

/// Where fine-grained observation pays: the book steps and the kairo trees with a render cost per
/// view evaluation (`RenderCost`, standing for body plus diff), at 0, 0.5, 2 and 10 µs. At 0 the
/// registrars' own costs decide; as the cost grows, every needless evaluation of a
/// publish-everything contender costs what a real view would. The report finds, per step, the
/// render cost at which `lockfree` overtakes `naive` (Documentation/Workloads.md, section 5).
enum RenderCosts {
    /// Nanoseconds per evaluation.
    static let costs = [0, 500, 2000, 10_000]
    static let renderKind: ParameterKind = .integer(0...1_000_000)

    /// Not in `--quick` (the CI gate's suite) unless a filter asks for them.
    static func benchmarks() -> [Benchmark] {
        (Books.stepNames.flatMap { RenderedBooks(step: $0).benchmarks }
            + ViewTrees.kairoCases.flatMap { RenderedKairo(shape: $0.0, fine: $0.1, naive: $0.2).benchmarks })
            .map { $0.notInQuickSuite() }
    }

    static func sets(_ base: [(String, String)]) -> [Parameters] {
        costs.map { Parameters(base + [("render", String($0))]) }
    }

    static func cost(_ parameters: Parameters) -> RenderCost {
        RenderCost(nanoseconds: Double(parameters.int("render", default: 0)))
    }

    /// A book step (n = 1000 books, 100,000 with `--full`, 50 mounted) with a render cost.
    struct RenderedBooks: TreeFamily {
        let step: String
        var name: String { "render/books-\(step)" }
        var parameterSets: [Parameters] { RenderCosts.sets([("n", "1000"), ("visible", "50")]) }
        var largeParameterSets: [Parameters] { RenderCosts.sets([("n", "100000"), ("visible", "50")]) }
        var parameterKinds: [String: ParameterKind] { Books.kinds.merging(["render": renderKind]) { $1 } }
        func expected(fineGrained: Bool, _ p: Parameters) -> InvalidationCounts? {
            let n = p.int("n", default: 1000)
            return Books.expected(step, fineGrained: fineGrained, n: n, visible: min(p.int("visible", default: 50), n))
        }
        func instructionOperations(_: Parameters) -> Int? { nil }
        func build<C: Contender>(_: C.Type, _ p: Parameters) throws -> Tree<C> {
            let scene = BookScene<C>(n: p.int("n", default: 1000), visible: p.int("visible", default: 50))
            scene.graph.renderCost = RenderCosts.cost(p)
            return Tree(graph: scene.graph, operation: try Books.operation(step, scene))
        }
    }

    /// A kairo tree with a render cost.
    struct RenderedKairo: TreeFamily {
        let shape: String
        let fine: InvalidationCounts, naive: InvalidationCounts
        var name: String { "render/kairo-\(shape)" }
        var parameterSets: [Parameters] { RenderCosts.sets([]) }
        var parameterKinds: [String: ParameterKind] { ["render": renderKind] }
        func expected(fineGrained: Bool, _: Parameters) -> InvalidationCounts? { fineGrained ? fine : naive }
        func instructionOperations(_: Parameters) -> Int? { nil }
        func build<C: Contender>(_: C.Type, _ p: Parameters) throws -> Tree<C> {
            let tree = ViewTrees.kairoTree(C.self, shape)
            tree.graph.renderCost = RenderCosts.cost(p)
            return tree
        }
    }
}
