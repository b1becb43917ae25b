import Harness
import Testing

@testable import Workloads

@Suite struct GridTests {
    /// The sanity case of the "reactively" generator: W = 3, L = 3, S = 2, F = 1, R = 1, I = 2.
    @Test(arguments: Contenders.names)
    func sanityCase(_ contender: String) throws {
        let params = Parameters([
            ("width", "3"), ("layers", "3"), ("sources", "2"), ("static", "1"), ("read", "1"), ("iterations", "2"),
        ])
        let type = try #require(Contenders.all.first { $0.name == contender })
        let result = try run(type, params)
        #expect(result.sum == 16)
        #expect(result.count == 5)
        #expect(result.build == 6)
    }

    func run<C: Contender>(_: C.Type, _ params: Parameters) throws -> (sum: Double, count: Int, build: Int) {
        let grid = GridScene<C>(Grid.Config(params))
        let build = grid.graph.derivedEvaluations
        let first = try grid.run(offset: 0)
        return (first.sum, first.count, build)
    }

    /// The six published configurations of the generator (js-reactivity-benchmark's
    /// "reactively" suite), iterations cut to a hundredth: every one builds and runs on every
    /// contender, with the oracle on, and yields a finite positive sum, 500 layers included (1e241:
    /// view outputs carry Doubles exactly).
    static let published: [(name: String, parameters: Parameters)] = [
        (
            "simple component",
            [
                ("width", "10"), ("layers", "5"), ("sources", "2"), ("static", "1"), ("read", "0.2"),
                ("iterations", "6000"),
            ]
        ),
        (
            "dynamic",
            [
                ("width", "10"), ("layers", "10"), ("sources", "6"), ("static", "0.75"), ("read", "0.2"),
                ("iterations", "150"),
            ]
        ),
        (
            "width 1000",
            [
                ("width", "1000"), ("layers", "12"), ("sources", "4"), ("static", "0.95"), ("read", "1"),
                ("iterations", "70"),
            ]
        ),
        (
            "25 sources",
            [
                ("width", "1000"), ("layers", "5"), ("sources", "25"), ("static", "1"), ("read", "1"),
                ("iterations", "30"),
            ]
        ),
        (
            "500 layers deep",
            [("width", "5"), ("layers", "500"), ("sources", "3"), ("static", "1"), ("read", "1"), ("iterations", "5")]
        ),
        (
            "100 x 15",
            [
                ("width", "100"), ("layers", "15"), ("sources", "6"), ("static", "0.5"), ("read", "1"),
                ("iterations", "20"),
            ]
        ),
    ].map { ($0.0, Parameters($0.1)) }

    static let publishedCases = Contenders.names.flatMap { c in published.map { "\($0.name) [\(c)]" } }

    @Test(arguments: publishedCases)
    func publishedConfigurationRuns(_ name: String) throws {
        let (config, parameters) = try #require(Self.published.first { name.hasPrefix($0.name + " [") })
        let contender = String(name.dropFirst(config.count + 2).dropLast())
        let benchmark = try #require(Suite.all().first { $0.family == "trees/grid" && $0.contender == contender })
        let instance = try benchmark.make(parameters)
        instance.enableVerification()
        _ = try instance.run(operations: 1)
        #expect(instance.counts.missed == 0)
        let sum = try #require(instance.extraMetrics["sum"])
        #expect(sum.isFinite && sum > 0, "\(name): sum \(sum)")
        // With fewer iterations than sources the repeat writes what is already there: no evaluation.
        #expect(instance.extraMetrics["repeat-count"] != nil)
        if config == "500 layers deep" { #expect(sum > 1e200) }
        // The build evaluates every derived node once: (layers - 1) x width of them.
        let width = Double(parameters.int("width", default: 0))
        let layers = Double(parameters.int("layers", default: 0))
        #expect(
            instance.extraMetrics["published-count"] == (instance.extraMetrics["count"] ?? -1) + (layers - 1) * width)
    }

    /// sfc32 seeded by xmur3a("seed"): the first outputs of the public-domain reference code.
    @Test func generatorIsDeterministic() {
        var a = Grid.SFC32(seed: "seed")
        var b = Grid.SFC32(seed: "seed")
        let first = (0..<5).map { _ in a.next() }
        #expect(first == (0..<5).map { _ in b.next() })
        #expect(first.allSatisfy { $0 >= 0 && $0 < 1 })
        #expect(Set(first).count == 5)
    }
}
