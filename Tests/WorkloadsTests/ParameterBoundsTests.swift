import Harness
import Testing

@testable import Workloads

/// Every parameter a family declares, tried at its bounds and one past them: the bounds are
/// accepted before anything runs, one past them is a usage error naming the parameter, the value
/// and the range, and each lower bound really runs (its upper bounds are the sizes `--full` and
/// users may ask for, too slow for a test), with the oracle on and nothing missed.
@Suite struct ParameterBoundsTests {
    /// One case per family and parameter, on `lockfree` (the kinds are the same for every contender).
    static let cases: [(benchmark: Benchmark, key: String, kind: ParameterKind)] = Suite.all()
        .filter { $0.contender == "lockfree" }
        .flatMap { b in b.parameterKinds.keys.sorted().map { (b, $0, b.parameterKinds[$0]!) } }

    static let caseNames = cases.map { "\($0.benchmark.family) \($0.key)" }

    @Test func everyFamilyDeclaresItsParametersWithDefaultsInsideTheirRanges() {
        #expect(Self.cases.count >= 20)
        for b in Suite.all() {
            for set in b.defaultParameterSets + b.largeParameterSets {
                for entry in set.entries {
                    let kind = b.parameterKinds[entry.key]
                    #expect(
                        kind?.accepts(entry.value) == true,
                        "\(b.family): \(entry.key)=\(entry.value) not in \(String(describing: kind))")
                }
            }
        }
    }

    @Test(arguments: caseNames)
    func boundsAreAcceptedAndOnePastThemRefused(_ name: String) throws {
        let (benchmark, key, kind) = Self.cases[try #require(Self.caseNames.firstIndex(of: name))]
        let suite = [benchmark]
        let filter = "^" + benchmark.family + "(/|$)"
        for value in kind.boundaries.accepted {
            let runs = try Selection(filter: filter, overrides: Parameters([(key, value)])).plan(suite)
            #expect(!runs.isEmpty && runs.allSatisfy { $0.parameters[key] == value }, "\(name)=\(value)")
        }
        for value in kind.boundaries.refused {
            #expect(
                throws: UsageError("bad value '\(value)' for parameter '\(key)' of \(benchmark.family): want \(kind)")
            ) {
                try Selection(filter: filter, overrides: Parameters([(key, value)])).plan(suite)
            }
        }
    }

    /// (The `stream` family's lower bounds run in `ConsumerWorkloadTests`, on threads of their own.)
    @Test(arguments: caseNames.filter { !$0.hasPrefix("stream/") })
    func lowerBoundRuns(_ name: String) throws {
        let (benchmark, key, kind) = Self.cases[try #require(Self.caseNames.firstIndex(of: name))]
        let lowest = kind.boundaries.accepted[0]
        for var parameters in benchmark.defaultParameterSets {
            parameters = ExpectedCountsTests.shrink(parameters)
            parameters[key] = lowest
            let instance = try benchmark.make(parameters)
            instance.enableVerification()
            _ = try instance.run(operations: 2)
            #expect(instance.counts.missed == 0, "\(benchmark.name(with: parameters))")
        }
    }
}
