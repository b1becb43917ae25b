import Harness
import Testing

@testable import Workloads

/// Cellx records its last layer before and after the first batch, at any layer count: the
/// published values at L = 1000, and the same values on every contender at other depths.
@Suite struct CellxTests {
    func lastLayers(_ contender: String, layers: Int) throws -> (before: [Double], after: [Double]) {
        let benchmark = try #require(Suite.all().first { $0.family == "trees/cellx" && $0.contender == contender })
        let extra = try benchmark.make(Parameters([("layers", String(layers))])).extraMetrics
        return ((1...4).map { extra["last-before-\($0)"] ?? .nan }, (1...4).map { extra["last-after-\($0)"] ?? .nan })
    }

    @Test(arguments: Contenders.names)
    func publishedLastLayerAtAThousandLayers(_ contender: String) throws {
        let values = try lastLayers(contender, layers: 1000)
        #expect(values.before == [-3, -6, -2, 2])
        #expect(values.after == [-2, -4, 2, 3])
    }

    @Test func everyContenderAgreesAtOtherDepths() throws {
        for layers in [1, 7, 250] {
            let reference = try lastLayers("lockfree", layers: layers)
            #expect(!reference.before.contains { $0.isNaN })
            for contender in Contenders.names {
                let values = try lastLayers(contender, layers: layers)
                #expect(
                    values.before == reference.before && values.after == reference.after,
                    "\(contender) at \(layers) layers")
            }
        }
    }
}
