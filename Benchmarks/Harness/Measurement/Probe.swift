import Foundation

/// The outside measurement: `Benchmarks/probe`, a standalone executable that times Apple's
/// registrar in the most direct code possible (global `@Observable` objects, a loop, 21 rounds),
/// built beside `bench`. `bench run` runs it once after the timing passes and records, on the
/// `apple` result of each primitive the probe stands beside, its median round as `probe-time`:
/// the suite's figure and an independent one from the same run, side by side in the report.
public enum Probe {
    public static let metric = "probe-time"
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
    }

    /// Runs the probe (at most `limit` seconds) and returns its median per benchmark name; `nil`
    /// when it failed.
    static func measure(_ path: String, limit: Double = 120) -> [String: Double]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { return nil }
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        guard process.terminationStatus == 0 else { return nil }
        var figures: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if let parsed = try? JSONDecoder().decode(Line.self, from: Data(line.utf8)) { figures[parsed.benchmark] = parsed.p50 }
        }
        return figures.isEmpty ? nil : figures
    }

    /// Adds `probe-time` to the `apple` results the probe measured, when they were timed.
    static func attach(_ figures: [String: Double], to set: inout ResultSet) {
        for i in set.results.indices where set.results[i].contender == "apple" && set.results[i].failure == nil {
            guard set.results[i].metric(MetricName.time) != nil, let ns = figures[set.results[i].benchmark] else { continue }
            set.results[i].metrics.append(MetricResult(name: metric, unit: "ns", value: ns))
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
        "primitives/track-objects-fire/objects=64": "the probe's objects are a global array; the suite's, the closure's",
    ]

    /// The report's section: per primitive, the suite's apple p50 beside the probe's; empty when
    /// the probe did not run.
    public static func section(_ set: ResultSet) -> String {
        let rows = set.results.compactMap { r -> [String]? in
            guard let probe = r.metric(metric)?.summary.p50, let suite = r.metric(MetricName.time)?.summary.p50 else { return nil }
            let ratio = suite / probe
            let verdict =
                ratio <= agreement && ratio >= 1 / agreement
                ? "agree" : "differ by more than \(NumberFormat.plain(agreement))x: " + (differences[r.benchmark] ?? "no known reason")
            return [r.benchmark, NumberFormat.duration(suite), NumberFormat.duration(probe), String(format: "%.2f", ratio), verdict]
        }
        guard !rows.isEmpty else { return "" }
        return "\n## Agreement with an outside measurement\n\n"
            + "`Benchmarks/probe` times Apple's registrar without the suite: global `@Observable` objects, a plain"
            + " loop, the median of 21 rounds, in the same run. Beside it, the suite's `apple` p50.\n\n"
            + MarkdownTable(header: ["benchmark", "suite apple p50", "probe p50", "suite ÷ probe", ""], rows: rows,
                rightAligned: [1, 2, 3]).text
    }
}
