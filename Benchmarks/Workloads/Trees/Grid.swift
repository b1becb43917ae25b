import Foundation
import Harness

/// The "reactively" random dependency grid, with its exact generator, so that `sum` and `count`
/// can be checked against published results. Sources are cells; every derived node is a view that
/// publishes its output cell; one leaf view reads the chosen leaves.
enum Grid {
    struct Config {
        var width = 3, layers = 3, sources = 2, iterations = 2
        var staticFraction = 1.0, readFraction = 1.0
        var seed = "seed"

        init(_ p: Parameters) {
            width = p.int("width", default: width)
            layers = p.int("layers", default: layers)
            sources = p.int("sources", default: sources)
            iterations = p.int("iterations", default: iterations)
            staticFraction = p.double("static", default: staticFraction)
            readFraction = p.double("read", default: readFraction)
            seed = p["seed"] ?? seed
        }
    }

    /// xmur3a string hash, returning a generator of 32-bit seeds (public domain).
    static func xmur3a(_ text: String) -> () -> UInt32 {
        var h: UInt32 = 2_166_136_261
        let units = Array(text.utf16)
        for unit in units {
            var k = UInt32(unit) &* 3_432_918_353
            k = k << 15 | k >> 17
            h ^= k &* 461_845_907
            h = h << 13 | h >> 19
            h = h &* 5 &+ 3_864_292_196
        }
        h ^= UInt32(truncatingIfNeeded: units.count)
        return {
            h ^= h >> 16
            h = h &* 2_246_822_507
            h ^= h >> 13
            h = h &* 3_266_489_909
            h ^= h >> 16
            return h
        }
    }

    /// sfc32 seeded by four xmur3a outputs; returns uint32 / 2^32 (public domain).
    struct SFC32 {
        var a: UInt32, b: UInt32, c: UInt32, d: UInt32
        init(seed: String) {
            let hash = Grid.xmur3a(seed)
            a = hash()
            b = hash()
            c = hash()
            d = hash()
        }
        mutating func next() -> Double {
            var t = a &+ b
            a = b ^ (b >> 9)
            b = c &+ (c << 3)
            c = c << 21 | c >> 11
            d = d &+ 1
            t = t &+ d
            c = c &+ t
            return Double(t) / 4_294_967_296
        }
    }

    static let kinds: [String: ParameterKind] = [
        "width": .integer(1...10_000), "layers": .integer(2...1000), "sources": .integer(1...100),
        "static": .number(0...1), "read": .number(0...1), "iterations": .integer(1...10_000_000), "seed": .text,
    ]

    static func benchmarks() -> [Benchmark] {
        let sets = [
            Parameters([
                ("width", "3"), ("layers", "3"), ("sources", "2"), ("static", "1"), ("read", "1"), ("iterations", "2"),
            ]),
            Parameters([
                ("width", "100"), ("layers", "15"), ("sources", "2"), ("static", "0.5"), ("read", "1"),
                ("iterations", "200"),
            ]),
        ]
        return Family(sets: sets).benchmarks
    }

    struct Family: WorkloadFamily {
        let sets: [Parameters]
        func visit<C: Contender>(_: C.Type) -> [Benchmark] {
            [
                Benchmark(
                    family: "trees/grid", contender: C.name, parameterSets: sets, parameterKinds: kinds,
                    // The sanity case only: the large grid takes 0.1 s an operation.
                    instructionOperations: { Config($0).width * Config($0).layers <= 100 ? 100 : nil }
                ) { params in
                    let grid = GridScene<C>(Config(params))
                    // The published figures: `sum` after a run, and the derived-node evaluations of
                    // the build and the first run together (`published-count`: it matches the
                    // published counts wherever every leaf is read; where some are not, pull-based
                    // engines skip what nobody reads and views do not). Then a repeat of the same
                    // writes from where the first run ended.
                    let build = grid.graph.derivedEvaluations
                    let first = try grid.run(offset: 0)
                    let again = try grid.run(offset: 0)
                    FileHandle.standardError.write(
                        Data(
                            ("trees/grid [\(C.name)] \(params.entries.map { "\($0.key)=\($0.value)" }.joined(separator: " ")): "
                                + "sum \(first.sum), count \(build + first.count) (build and first run), \(again.count) (repeat)\n")
                                .utf8))
                    var runs = 0
                    return ClosureInstance(
                        counts: { grid.graph.counts },
                        extra: {
                            [
                                "sum": first.sum, "count": Double(first.count),
                                "published-count": Double(build + first.count),
                                "repeat-count": Double(again.count),
                            ]
                        }
                    ) { ops in
                        var last = again
                        for _ in 0..<ops {
                            runs += 1
                            last = try grid.run(offset: runs)
                        }
                        return last.count
                    }
                }
            ]
        }
    }
}

/// One grid rendered by the view graph.
final class GridScene<C: Contender> {
    let graph = ViewGraph<C>()
    let sources: [C.Cell]
    let leaves: [C.Cell]
    let config: Grid.Config
    private var leafSum = 0.0

    init(_ config: Grid.Config) {
        self.config = config
        let w = config.width
        let s = config.sources
        sources = (0..<w).map { C.Cell(Double($0)) }
        var random = Grid.SFC32(seed: config.seed)
        var above = sources
        for layer in 1..<config.layers {
            var row: [C.Cell] = []
            for i in 0..<w {
                let inputs = (0..<s).map { above[(i + $0) % w] }
                let isStatic = random.next() < config.staticFraction
                let output = C.Cell(0)
                let body: () -> Int
                // Values are Doubles, as in the published generator (JavaScript numbers): 500 layers
                // of sums reach 1e241. Outputs carry them exactly (`ViewOutput`).
                if isStatic {
                    body = {
                        var sum = 0.0
                        for input in inputs { sum += input.value }
                        return ViewOutput.encode(sum)
                    }
                } else {
                    let first = inputs[0]
                    let tail = Array(inputs.dropFirst())
                    body = {
                        var sum = first.value
                        // JavaScript's `sum & 0x1` and `sum % tail.length` on a number: parity of
                        // the integer (0 beyond 2^53, where doubles are even), remainder of the double.
                        let drop = sum.truncatingRemainder(dividingBy: 2) == 1
                        let dropIndex =
                            drop && !tail.isEmpty ? Int(sum.truncatingRemainder(dividingBy: Double(tail.count))) : -1
                        for (j, input) in tail.enumerated() where j != dropIndex { sum += input.value }
                        return ViewOutput.encode(sum)
                    }
                }
                let node = ViewNode(
                    "grid[\(layer)][\(i)]", depth: layer, holding: Holdings(all: inputs), publishing: output,
                    carriesDouble: true, graph: graph, body: body)
                graph.mount(node)
                row.append(output)
            }
            above = row
        }
        // A freshly seeded generator removes round(W * (1 - R)) leaves.
        var pick = Grid.SFC32(seed: config.seed)
        var chosen = above
        for _ in 0..<Int((Double(w) * (1 - config.readFraction)).rounded()) where !chosen.isEmpty {
            chosen.remove(at: Int(pick.next() * Double(chosen.count)))
        }
        leaves = chosen
        let leaves = chosen
        graph.mount(
            ViewNode(
                "grid-leaves", depth: config.layers, holding: Holdings(all: leaves), carriesDouble: true, graph: graph
            ) {
                var sum = 0.0
                for leaf in leaves { sum += leaf.value }
                return ViewOutput.encode(sum)
            })
    }

    /// One run: for i in 0..<I, a batch writes source i % W to i + i % W (+ offset, so that runs
    /// after the first change values again), then a frame. Returns the sum of the leaves and the
    /// derived-node evaluations of this run.
    func run(offset: Int) throws -> (sum: Double, count: Int) {
        let before = graph.derivedEvaluations
        for i in 0..<config.iterations {
            let source = i % config.width
            let value = Double(i + source + offset)
            if sources[source].value != value { sources[source].value = value }
            try graph.flush()
        }
        return (leaves.reduce(0) { $0 + $1.value }, graph.derivedEvaluations - before)
    }
}
