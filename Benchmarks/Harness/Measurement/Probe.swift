import Foundation

/// The outside measurement: `Benchmarks/probe`, a standalone executable that times Apple's
/// registrar in the most direct code possible (global `@Observable` objects, a loop, 21 rounds),
/// built beside `bench`. `bench run` runs it once after the timing passes and records, on the
/// `apple` result of each primitive the probe stands beside, its median round as `probe-time`:
/// the suite's figure and an independent one from the same run, side by side in the report. With
/// jemalloc it also records the probe's mallocs per operation as `probe-mallocs`: its `onChange`
/// closures capture nothing, so for a track / fire cycle they are the registrar's own, and the
/// report attributes the rest of the suite's `apple` allocations to the API and app code.
public enum Probe {
    public static let metric = Metric.probeTime
    public static let mallocsMetric = Metric.probeMallocs
    /// The suite's `apple` p50 and the probe's should agree within this factor.
    public static let agreement = 1.3

    /// The probe's executable beside `bench`, when it was built.
    public static func executable(beside bench: String) -> String? {
        let path = (bench as NSString).deletingLastPathComponent + "/probe"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    struct Line: Decodable {
        var benchmark: String
        var p50: Double
        var best: Double
        /// Mallocs per operation; absent without jemalloc.
        var mallocs: Double?
    }

    /// What the probe measured for one benchmark.
    struct Figures: Equatable {
        var p50: Double
        var mallocs: Double? = nil
    }

    /// Runs the probe (at most `limit` seconds, stopped by `interruption`) and returns its figures
    /// per benchmark name; `nil` when it failed.
    static func measure(_ path: String, limit: Double = 120, interruption: Interruption = .process) -> [String:
        Figures]?
    {
        let child = ChildProcess(
            program: path, arguments: [], environment: ProcessInfo.processInfo.environment, deadline: limit,
            capturesErrors: false)
        let outcome = child.run(interruption: interruption)
        guard outcome.ending == .exited(0) else { return nil }
        var figures: [String: Figures] = [:]
        for line in outcome.output.split(separator: "\n") {
            if let parsed = try? JSONDecoder().decode(Line.self, from: Data(line.utf8)) {
                figures[parsed.benchmark] = Figures(p50: parsed.p50, mallocs: parsed.mallocs)
            }
        }
        return figures.isEmpty ? nil : figures
    }

    /// Adds `probe-time` to the `apple` results the probe measured, when they were timed, and
    /// `probe-mallocs` when their allocations were counted.
    static func attach(_ figures: [String: Figures], to set: inout ResultSet) {
        for i in set.results.indices where set.results[i].contender == "apple" && set.results[i].failure == nil {
            // A resumed run keeps the figures its first part attached.
            guard let probe = figures[set.results[i].benchmark], set.results[i].metric(metric) == nil else { continue }
            if set.results[i].metric(Metric.time) != nil {
                set.results[i].metrics.append(MetricResult(metric, value: probe.p50))
            }
            if let mallocs = probe.mallocs, set.results[i].metric(Metric.mallocs) != nil {
                set.results[i].metrics.append(MetricResult(mallocsMetric, value: mallocs))
            }
        }
    }

    /// What the probe does differently from the suite's benchmark, the likely reason when the two
    /// differ by more than `agreement`.
    static let differences = [
        "primitives/untracked-read":
            "the probe reads one global object; the suite walks 1024 objects in an array, and Swift retains"
            + " and releases each element around apple's getter, an opaque call into the registrar",
        "primitives/mutation-unobserved/objects=1": "the probe writes a global object; the suite one the closure holds",
        "primitives/track-properties-fire/properties=1":
            "the probe's object has one property; the suite's record has eight, one of them tracked",
        "primitives/track-objects-fire/objects=64":
            "the probe's objects are a global array; the suite's, the closure's",
    ]

    /// The report's section: per primitive, the suite's apple p50 beside the probe's; empty when
    /// the probe did not run.
    public static func section(_ set: ResultSet) -> String {
        let rows = set.results.compactMap { r -> [String]? in
            guard let probe = r.metric(metric)?.summary.p50, let suite = r.metric(Metric.time)?.summary.p50 else {
                return nil
            }
            let ratio = suite / probe
            let agrees = { (x: Double) in x <= agreement && x >= 1 / agreement }
            let verdict: String
            if agrees(ratio) {
                verdict = "agree"
            } else if let medians = r.metric(Metric.time)?.samplesByProcess?.filter({ !$0.isEmpty })
                .map({ Percentiles.value(50, sorted: $0.sorted()) }), medians.count > 1,
                let closest = medians.min(by: { abs(log($0 / probe)) < abs(log($1 / probe)) }), agrees(closest / probe)
            {
                // The suite's processes moved with the machine's speed modes, and one of them agrees.
                verdict =
                    "differ by more than \(NumberFormat.plain(agreement))x: the suite's \(medians.count) processes took "
                    + "\(NumberFormat.duration(medians.min()!)) to \(NumberFormat.duration(medians.max()!)) (the machine's speed modes);"
                    + " the closest, \(NumberFormat.duration(closest)), agrees (\(String(format: "%.2f", closest / probe)))"
            } else {
                verdict =
                    "differ by more than \(NumberFormat.plain(agreement))x: "
                    + (differences[r.benchmark] ?? "no known reason")
            }
            return [
                r.benchmark, NumberFormat.duration(suite), NumberFormat.duration(probe), String(format: "%.2f", ratio),
                verdict,
            ]
        }
        guard !rows.isEmpty else { return "" }
        return "\n## Agreement with an outside measurement\n\n"
            + "`Benchmarks/probe` times Apple's registrar without the suite: global `@Observable` objects, a plain"
            + " loop, the median of 21 rounds, in the same run. Beside it, the suite's `apple` p50.\n\n"
            + MarkdownTable(
                header: ["benchmark", "suite apple p50", "probe p50", "suite ÷ probe", ""], rows: rows,
                rightAligned: [1, 2, 3]
            ).text
            + allocations(set)
    }

    /// `apple`'s mallocs per operation, attributed: the registrar's own (the probe's, whose
    /// `onChange` captures nothing) and the rest (the suite's `onChange` closure, which captures
    /// the view and its generation, and any other app code), for the benchmarks the probe counted.
    static func allocations(_ set: ResultSet) -> String {
        let rows = set.results.compactMap { r -> [String]? in
            guard let own = r.metric(mallocsMetric)?.summary.p50, let total = r.metric(Metric.mallocs)?.summary.p50,
                total > 0
            else { return nil }
            let figure = { (x: Double) in String(format: "%.2f", x) }
            return [r.benchmark, figure(total), figure(own), figure(total - own)]
        }
        guard !rows.isEmpty else { return "" }
        return "\n### Apple's allocations, attributed\n\n"
            + "Mallocs per operation of the suite's `apple` contender, and of the probe in the same run: its `onChange`"
            + " captures nothing, so its count is the registrar's own (`withObservationTracking` and the observation"
            + " registrar); the rest is the API's closure that the suite's contender builds per evaluation (it"
            + " captures the view and its generation) and other app code.\n\n"
            + MarkdownTable(
                header: [
                    "benchmark", "suite apple mallocs/op", "the registrar's own (probe)",
                    "the API closure and app code",
                ],
                rows: rows, rightAligned: [1, 2, 3]
            ).text
    }
}
