import Harness

/// Synthetic view trees (Documentation/Workloads.md, section 2): kairo cases, cellx, disjoint fan-out, selector,
/// scope isolation and coalescing, each one operation = its writes followed by one frame.
enum ViewTrees {
    typealias Counts = InvalidationCounts

    static func benchmarks() -> [Benchmark] {
        kairoCases.flatMap { Kairo(shape: $0.0, fine: $0.1, naive: $0.2).benchmarks }
            + Cellx().benchmarks + FanOut().benchmarks + Selector().benchmarks + Isolation().benchmarks
            + Coalescing().benchmarks
    }

    // MARK: Kairo

    /// (shape, expected counts per write for fine-grained contenders, for naive)
    static let kairoCases: [(String, Counts, Counts)] = [
        (
            "deep", Counts(notifications: 51, invalidations: 51, evaluations: 51),
            Counts(notifications: 51, invalidations: 51, evaluations: 51)
        ),
        (
            "broad", Counts(notifications: 150, invalidations: 150, evaluations: 150),
            Counts(notifications: 150, invalidations: 150, evaluations: 150)
        ),
        // One-shot: the sum node is notified once however many inputs change; naive once per input.
        (
            "diamond", Counts(notifications: 7, invalidations: 7, evaluations: 7),
            Counts(notifications: 11, invalidations: 7, evaluations: 7)
        ),
        (
            "triangle", Counts(notifications: 12, invalidations: 12, evaluations: 12),
            Counts(notifications: 21, invalidations: 12, evaluations: 12)
        ),
        (
            "repeated", Counts(notifications: 2, invalidations: 2, evaluations: 2),
            Counts(notifications: 2, invalidations: 2, evaluations: 2)
        ),
        // The mux republishes on any source write; all 100 pickers re-run, 99 find their key
        // unchanged (cutoff), one "+1" node and one leaf run.
        (
            "mux", Counts(notifications: 103, invalidations: 103, evaluations: 103, unnecessary: 99),
            Counts(notifications: 103, invalidations: 103, evaluations: 103, unnecessary: 99)
        ),
        // Double, inverse, the unstable node, the leaf. One-shot: the unstable node is notified once;
        // naive: by the source, double and inverse (it holds all three).
        (
            "unstable", Counts(notifications: 4, invalidations: 4, evaluations: 4),
            Counts(notifications: 6, invalidations: 4, evaluations: 4)
        ),
        // c2 is always 0: its evaluation is unnecessary and nothing below it runs.
        (
            "avoidable", Counts(notifications: 2, invalidations: 2, evaluations: 2, unnecessary: 1),
            Counts(notifications: 2, invalidations: 2, evaluations: 2, unnecessary: 1)
        ),
    ]

    struct Kairo: TreeFamily {
        let shape: String
        let fine: Counts, naive: Counts
        var name: String { "trees/kairo-\(shape)" }
        func expected(fineGrained: Bool, _: Parameters) -> Counts? { fineGrained ? fine : naive }
        func build<C: Contender>(_: C.Type, _: Parameters) throws -> Tree<C> { kairoTree(C.self, shape) }
        // apple's broad and mux cases take 0.25-0.5 ms an operation.
        func instructionOperations(_: Parameters) -> Int? { 40 }
    }

    static func kairoTree<C: Contender>(_: C.Type, _ name: String) -> Tree<C> {
        let kairo = KairoShapes<C>()
        switch name {
        case "deep": kairo.deep()
        case "broad": kairo.broad()
        case "diamond": kairo.diamond()
        case "triangle": kairo.triangle()
        case "repeated":
            let node = kairo.derived("repeated", 1, [kairo.source]) {
                (0..<30).reduce(0) { acc, _ in acc + kairo.source.value }
            }
            kairo.leaf(2, node)
        case "mux": return kairo.mux()
        case "unstable": kairo.unstable()
        default: kairo.avoidable()
        }
        return Tree(graph: kairo.graph) { _ in
            kairo.source.value += 1
            try kairo.graph.flush()
        }
    }

    /// The kairo shapes: a graph, its source, and the nodes each shape mounts on them.
    struct KairoShapes<C: Contender> {
        let graph = ViewGraph<C>()
        let source = C.Cell(0)

        /// A node computing `f` from `inputs`, publishing it in the cell returned.
        func derived(_ label: String, _ depth: Int, _ inputs: [C.Cell], _ f: @escaping () -> Double) -> C.Cell {
            let out = C.Cell(0)
            graph.mount(
                ViewNode(label, depth: depth, holding: Holdings(all: inputs), publishing: out, graph: graph) {
                    Int(f())
                })
            return out
        }

        func leaf(_ depth: Int, _ cell: C.Cell) {
            graph.mount(ViewNode("leaf", depth: depth, holding: Holdings(cell), graph: graph) { Int(cell.value) })
        }

        func deep() {
            var last = source
            for i in 1...50 {
                let input = last
                last = derived("deep\(i)", i, [input]) { input.value + 1 }
            }
            leaf(51, last)
        }

        func broad() {
            let source = self.source
            for j in 0..<50 {
                let a = derived("broad\(j).a", 1, [source]) { source.value + Double(j) }
                let b = derived("broad\(j).b", 2, [a]) { a.value + 1 }
                leaf(3, b)
            }
        }

        func diamond() {
            let source = self.source
            let mids = (0..<5).map { k in derived("diamond\(k)", 1, [source]) { source.value + Double(k) } }
            let sum = derived("diamond.sum", 2, mids) { mids.reduce(0) { $0 + $1.value } }
            leaf(3, sum)
        }

        func triangle() {
            var levels: [C.Cell] = []
            var last = source
            for i in 1...10 {
                let input = last
                last = derived("triangle\(i)", i, [input]) { input.value + 1 }
                levels.append(last)
            }
            let all = levels
            let sum = derived("triangle.sum", 11, all) { all.reduce(0) { $0 + $1.value } }
            leaf(12, sum)
        }

        /// 100 sources; the mux node aggregates them into a dictionary (kept beside it, its
        /// observable output a version of it); 100 pickers read one key each; +1; leaves. One
        /// operation writes one source, in turn.
        func mux() -> Tree<C> {
            let sources = (0..<100).map { C.Cell(Double($0)) }
            var dictionary = [Int: Double]()
            let mux = derived("mux", 1, sources) {
                var version = 0.0
                for (key, cell) in sources.enumerated() {
                    dictionary[key] = cell.value
                    version += cell.value * Double(key + 1)
                }
                return version
            }
            for key in 0..<100 {
                let picker = derived("pick\(key)", 2, [mux]) {
                    _ = mux.value
                    return dictionary[key] ?? 0
                }
                let plusOne = derived("plus\(key)", 3, [picker]) { picker.value + 1 }
                leaf(4, plusOne)
            }
            var next = 0
            return Tree(graph: graph) { [graph] _ in
                let key = next % 100
                next += 1
                sources[key].value += 1
                try graph.flush()
            }
        }

        func unstable() {
            let source = self.source
            let double = derived("double", 1, [source]) { source.value * 2 }
            let inverse = derived("inverse", 1, [source]) { -source.value }
            let unstable = derived("unstable", 2, [source, double, inverse]) {
                var sum = source.value
                for _ in 0..<20 { sum += Int(source.value) % 2 == 1 ? double.value : inverse.value }
                return sum
            }
            leaf(3, unstable)
        }

        func avoidable() {
            let c1 = derived("c1", 1, [source]) { [source] in source.value }
            let c2 = derived("c2", 2, [c1]) { c1.value * 0 }
            let c3 = derived("c3", 3, [c2]) { c2.value + 1 }
            let c4 = derived("c4", 4, [c3]) { c3.value + 2 }
            let c5 = derived("c5", 5, [c4]) { c4.value + 3 }
            leaf(6, c5)
        }
    }

    // MARK: Cellx

    struct Cellx: TreeFamily {
        let name = "trees/cellx"
        let parameterSets = sets("layers", [1000, 2500])
        let parameterKinds: [String: ParameterKind] = ["layers": .integer(1...10_000)]
        // Which cells change depends on the values; each batch checks glitch-freedom instead
        // (every cell evaluated at most once) and the last layer's known values at L = 1000. The
        // last layer before and after the first batch is recorded at any L (`last-before-1` ...
        // `last-after-4`), to compare with published tables.
        func expected(fineGrained: Bool, _: Parameters) -> Counts? { nil }
        // Tens of milliseconds an operation: too slow for callgrind.
        func instructionOperations(_: Parameters) -> Int? { nil }
        func build<C: Contender>(_: C.Type, _ p: Parameters) throws -> Tree<C> {
            try cellxTree(C.self, layers: p.int("layers", default: 1000))
        }
    }

    static func cellxTree<C: Contender>(_: C.Type, layers: Int) throws -> Tree<C> {
        let graph = ViewGraph<C>()
        let sources = (1...4).map { C.Cell(Double($0)) }
        var above = sources
        for layer in 1...layers {
            let (a1, a2, a3, a4) = (above[0], above[1], above[2], above[3])
            let rules: [([C.Cell], () -> Double)] = [
                ([a2], { a2.value }), ([a1, a3], { a1.value - a3.value }), ([a2, a4], { a2.value + a4.value }),
                ([a3], { a3.value }),
            ]
            above = rules.enumerated().map { k, rule in
                let out = C.Cell(0)
                let f = rule.1
                graph.mount(
                    ViewNode(
                        "cellx[\(layer)][\(k)]", depth: layer, holding: Holdings(all: rule.0), publishing: out,
                        graph: graph
                    ) { Int(f()) })
                graph.mount(
                    ViewNode("cellx-leaf[\(layer)][\(k)]", depth: layers + 1, holding: Holdings(out), graph: graph) {
                        Int(out.value)
                    })
                return out
            }
        }
        let last = above
        func lastLayer() -> [Int] { last.map { Int($0.value) } }
        if layers == 1000 && lastLayer() != [-3, -6, -2, 2] {
            throw BenchmarkFailure("trees/cellx: last layer \(lastLayer()) before the batch, expected [-3, -6, -2, 2]")
        }
        var forward = true
        func batch() throws {
            let before = graph.derivedEvaluations
            for (i, cell) in sources.enumerated() { cell.value = Double(forward ? 4 - i : i + 1) }
            forward.toggle()
            try graph.flush()
            if graph.derivedEvaluations - before > 4 * layers {
                throw BenchmarkFailure(
                    "trees/cellx: \(graph.derivedEvaluations - before) cell evaluations in one batch of \(4 * layers) cells (a glitch)"
                )
            }
        }
        let before = lastLayer()
        try batch()
        let after = lastLayer()
        if layers == 1000 && after != [-2, -4, 2, 3] {
            throw BenchmarkFailure("trees/cellx: last layer \(after) after the batch, expected [-2, -4, 2, 3]")
        }
        var values: [String: Double] = [:]
        for k in 0..<4 {
            values["last-before-\(k + 1)"] = Double(before[k])
            values["last-after-\(k + 1)"] = Double(after[k])
        }
        return Tree(graph: graph, operation: { _ in try batch() }, extra: { values })
    }

    // MARK: Fan-out, selector, isolation, coalescing

    struct FanOut: TreeFamily {
        let name = "trees/fan-out"
        let parameterSets = sets("properties", [10, 100, 1000])
        let parameterKinds: [String: ParameterKind] = ["properties": .integer(1...10_000)]
        func expected(fineGrained: Bool, _ p: Parameters) -> Counts? {
            let n = p.int("properties", default: 10)
            return fineGrained
                ? Counts(notifications: 1, invalidations: 1, evaluations: 1)
                : Counts(notifications: n, invalidations: n, evaluations: n, unnecessary: n - 1)
        }
        func build<C: Contender>(_: C.Type, _ p: Parameters) throws -> Tree<C> {
            let n = p.int("properties", default: 10)
            let graph = ViewGraph<C>()
            let fields = C.Fields(count: n)
            for i in 0..<n {
                graph.mount(
                    ViewNode("field\(i)", depth: 0, holding: Holdings(fields), graph: graph) { fields.value(at: i) })
            }
            return Tree(graph: graph) { op in
                fields.setValue(fields.value(at: op % n) + 1, at: op % n)
                try graph.flush()
            }
        }
    }

    /// V rows each read `library.selectedID == book.id`; the selection moves.
    struct Selector: TreeFamily {
        let name = "trees/selector"
        let parameterSets = sets("rows", [50])
        let parameterKinds: [String: ParameterKind] = ["rows": .integer(2...10_000)]
        func expected(fineGrained: Bool, _ p: Parameters) -> Counts? {
            let v = p.int("rows", default: 50)
            return Counts(notifications: v, invalidations: v, evaluations: v, unnecessary: v - 2)
        }
        func build<C: Contender>(_: C.Type, _ p: Parameters) throws -> Tree<C> {
            let v = p.int("rows", default: 50)
            let author = C.Author(name: "A")
            let books = (0..<v).map { C.Book(id: $0, title: "B\($0)", author: author, isAvailable: true) }
            let library = C.Library(books: books)
            library.selectedID = 0
            let graph = ViewGraph<C>()
            for book in books {
                graph.mount(
                    ViewNode("row\(book.id)", depth: 0, holding: Holdings(book, library), graph: graph) {
                        library.selectedID == book.id ? 1 : 0
                    })
            }
            return Tree(graph: graph) { op in
                library.selectedID = (op + 1) % v
                try graph.flush()
            }
        }
    }

    /// A parent reads `fontSize`, its child `theme`; the child's property changes.
    struct Isolation: TreeFamily {
        let name = "trees/scope-isolation"
        func expected(fineGrained: Bool, _: Parameters) -> Counts? {
            fineGrained
                ? Counts(notifications: 1, invalidations: 1, evaluations: 1)
                : Counts(notifications: 2, invalidations: 2, evaluations: 2, unnecessary: 1)
        }
        func build<C: Contender>(_: C.Type, _: Parameters) throws -> Tree<C> {
            let settings = C.Settings()
            let graph = ViewGraph<C>()
            graph.mount(
                ViewNode("parent", depth: 0, holding: Holdings(settings), graph: graph) { Int(settings.fontSize) })
            graph.mount(ViewNode("child", depth: 1, holding: Holdings(settings), graph: graph) { settings.theme })
            return Tree(graph: graph) { _ in
                settings.theme += 1
                try graph.flush()
            }
        }
    }

    /// k writes to one property before a frame.
    struct Coalescing: TreeFamily {
        let name = "trees/coalescing"
        let parameterSets = sets("writes", [1, 10, 100])
        let parameterKinds: [String: ParameterKind] = ["writes": .integer(1...10_000)]
        func expected(fineGrained: Bool, _ p: Parameters) -> Counts? {
            let k = p.int("writes", default: 10)
            return Counts(notifications: fineGrained ? 1 : k, invalidations: 1, evaluations: 1)
        }
        func build<C: Contender>(_: C.Type, _ p: Parameters) throws -> Tree<C> {
            let k = p.int("writes", default: 10)
            let cell = C.Cell(0)
            let graph = ViewGraph<C>()
            graph.mount(ViewNode("view", depth: 0, holding: Holdings(cell), graph: graph) { Int(cell.value) })
            return Tree(graph: graph) { _ in
                for _ in 0..<k { cell.value += 1 }
                try graph.flush()
            }
        }
    }
}
