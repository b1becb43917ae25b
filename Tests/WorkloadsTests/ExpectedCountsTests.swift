import Foundation
import Harness
import Testing

@testable import Workloads

/// Runs every benchmark of the suite at small sizes, with the oracle on, and asserts the counts it
/// declares exactly: the same check `bench` makes at full size.
@Suite struct ExpectedCountsTests {
    /// Each benchmark with its default parameter sets, shrunk to test sizes. The `stream` family is
    /// run by `ConsumerWorkloadTests`, on threads of its own: its consumers are tasks, which a test
    /// holding a thread of the cooperative pool while it waits for them could starve.
    static let cases: [(benchmark: Benchmark, parameters: Parameters)] = Suite.all().filter {
        !$0.family.hasPrefix("stream/")
    }.flatMap { benchmark in
        benchmark.defaultParameterSets.map { (benchmark, shrink($0)) }
    }

    static func shrink(_ parameters: Parameters) -> Parameters {
        var small = parameters
        if let n = small["n"].flatMap({ Int($0) }), n > 1000 { small["n"] = "1000" }
        if let layers = small["layers"].flatMap({ Int($0) }), layers > 1000 { small["layers"] = "1000" }
        if let iterations = small["iterations"].flatMap({ Int($0) }), iterations > 50 { small["iterations"] = "50" }
        return small
    }

    /// Each case's name, `benchmark [contender]`: what a failing case is reported as.
    static let caseNames = cases.map { $0.benchmark.name(with: $0.parameters) + " [" + $0.benchmark.contender + "]" }

    @Test(arguments: caseNames)
    func countsAreExactAndNothingIsMissed(_ name: String) throws {
        let (benchmark, parameters) = Self.cases[try #require(Self.caseNames.firstIndex(of: name))]
        let workers = Worker.createdOnThisThread
        let instance = try benchmark.make(parameters)
        // A benchmark that runs threads says what they do to its figures, and one that runs none
        // says nothing (`ThreadTiming`): the gate reads its counts and allocations by it.
        let startsThreads = Worker.createdOnThisThread > workers
        #expect(
            startsThreads == benchmark.threads(parameters).runsThreads,
            "\(name): starts \(startsThreads ? "threads" : "no thread") but declares \(benchmark.threads(parameters))")
        instance.enableVerification()
        _ = try instance.run(operations: 1)
        let before = instance.counts
        let operations = 4
        _ = try instance.run(operations: operations)
        let measured = instance.counts - before
        #expect(measured.missed == 0, "\(name): missed updates")
        if let expected = benchmark.expectedCounts?(parameters) {
            #expect(measured == expected.times(operations), "\(name)")
        }
    }

    /// The workloads start threads only through `Worker`, which counts them for the test above.
    @Test func threadsAreStartedOnlyByWorkers() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Benchmarks/Workloads")
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        let starts = try Regex(
            #"(^|[^A-Za-z0-9_.])(Thread\s*[({]|Thread\.detachNewThread|pthread_create|DispatchQueue|Task\s*[({]|Task\.detached)"#
        )
        var offenders: [String] = []
        // The `stream` family's consumers and bursts are tasks, on the cooperative pool's threads
        // (the runtime's, not the workload's); each of its benchmarks declares its threads
        // (`ConsumerWorkloadTests.everyStreamBenchmarkDeclaresItsThreads`).
        for case let file as URL in files
        where file.pathExtension == "swift" && !file.path.contains("/Streams/")
            && file.lastPathComponent != "StreamContenders.swift"
        {
            let lines = try String(contentsOf: file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                if code.contains(starts) { offenders.append("\(file.lastPathComponent):\(number + 1)") }
            }
        }
        // `Worker.init` itself starts its thread.
        #expect(offenders.count == 1 && offenders[0].hasPrefix("Primitives.swift:"), "\(offenders)")
    }

    @Test func benchmarkNamesAreUnique() {
        let names = Suite.all().flatMap { b in b.defaultParameterSets.map { b.name(with: $0) + " " + b.contender } }
        #expect(Set(names).count == names.count)
        let families = Suite.all().map { $0.family + " " + $0.contender }
        #expect(Set(families).count == families.count, "one declaration per family and contender")
    }

    @Test func everyBenchmarkRunsOnEveryContender() {
        let families = Dictionary(
            grouping: Suite.all().filter { $0.contender != Benchmark.floorContender }, by: \.family)
        for (family, benchmarks) in families {
            #expect(Set(benchmarks.map(\.contender)) == Set(Contenders.names), "\(family)")
        }
    }
}
