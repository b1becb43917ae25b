import Foundation
import Testing

@testable import Harness

/// The outside measurement: the probe runs and prints what `bench` reads; its figures land on the
/// `apple` results beside the suite's and in the report.
@Suite struct ProbeTests {
    @Test func probeRunsAndPrintsTheFourPrimitives() throws {
        // The test bundle is built beside the package's executables.
        let folder = (CommandLine.arguments[0] as NSString).deletingLastPathComponent
        let probe = try #require(Probe.executable(beside: folder + "/bench"), "probe not built beside the tests")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: probe)
        process.arguments = ["--smoke"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Probe.Line.self, from: Data($0.utf8))
        }
        #expect(
            lines.map(\.benchmark) == [
                "primitives/untracked-read", "primitives/mutation-unobserved/objects=1",
                "primitives/track-properties-fire/properties=1", "primitives/track-objects-fire/objects=64",
            ])
        #expect(lines.allSatisfy { $0.best > 0 && $0.best <= $0.p50 })
        // With jemalloc (the default trait), every line counts mallocs: a registrar track / fire
        // cycle allocates, reads allocate nothing. Without it (the probe is built with the same
        // traits), every count is unavailable, never 0.
        let mallocs = lines.map(\.mallocs)
        if AllocationCounter.unavailableReason == nil {
            #expect(mallocs.allSatisfy { $0 != nil })
            #expect((mallocs[0] ?? 1) < 0.5 && (mallocs[2] ?? 0) >= 1 && (mallocs[3] ?? 0) >= 64)
        } else {
            #expect(mallocs.allSatisfy { $0 == nil })
        }
    }

    @Test func figuresLandBesideTheSuitesAndInTheReport() {
        var set = sampleSet()  // books/toggle/n=10: lockfree 13 ns, apple 23 ns
        Probe.attach(["books/toggle/n=10": .init(p50: 20), "primitives/other": .init(p50: 5)], to: &set)
        #expect(set.result("books/toggle/n=10", "apple")?.metric(Probe.metric)?.summary.p50 == 20)
        #expect(set.result("books/toggle/n=10", "lockfree")?.metric(Probe.metric) == nil)
        let section = Probe.section(set)
        #expect(section.contains("| books/toggle/n=10 | 23.0 ns | 20.0 ns | 1.15 | agree |"))
        var far = sampleSet()
        Probe.attach(["books/toggle/n=10": .init(p50: 10)], to: &far)
        #expect(Probe.section(far).contains("| 2.30 | differ by more than 1.3x: no known reason |"))
        #expect(Probe.section(sampleSet()) == "")
        // Pooled from processes, one of which agrees: the report says the processes moved.
        var moved = sampleSet(appleTime: [20, 21, 22, 40, 41, 42, 43])
        for i in moved.results.indices {
            let j = moved.results[i].metrics.firstIndex { $0.metric == .time }!
            moved.results[i].metrics[j].processes = [3, 4]
        }
        Probe.attach(["books/toggle/n=10": .init(p50: 20)], to: &moved)
        #expect(
            Probe.section(moved).contains(
                "| 2.00 | differ by more than 1.3x: the suite's 2 processes took 21.0 ns to 41.5 ns (the machine's speed modes);"
                    + " the closest, 21.0 ns, agrees (1.05) |"))
        #expect(ReportFormat.format(set).contains("## Agreement with an outside measurement"))
        #expect(Probe.executable(beside: "/nonexistent/bench") == nil)
    }

    @Test func applesAllocationsAreAttributed() {
        var set = sampleSet(mallocs: 10)
        Probe.attach(["books/toggle/n=10": .init(p50: 20, mallocs: 9)], to: &set)
        #expect(set.result("books/toggle/n=10", "apple")?.metric(Probe.mallocsMetric)?.summary.p50 == 9)
        #expect(Probe.section(set).contains("| books/toggle/n=10 | 10.00 | 9.00 | 1.00 |"))
        // Without the suite's count (allocations not measured) there is nothing to attribute.
        var uncounted = sampleSet()
        for i in uncounted.results.indices { uncounted.results[i].metrics.removeAll { $0.metric == .mallocs } }
        Probe.attach(["books/toggle/n=10": .init(p50: 20, mallocs: 9)], to: &uncounted)
        #expect(uncounted.result("books/toggle/n=10", "apple")?.metric(Probe.mallocsMetric) == nil)
        #expect(!Probe.section(uncounted).contains("attributed"))
    }
}
