import Foundation

/// A baseline cannot be used: missing, unreadable, or measured on another toolchain or allocator
/// (exit 5).
public struct BaselineError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Named baselines live in `results/baselines/NAME.json`.
public enum Baseline {
    public static let folder = "results/baselines"

    /// A path for `reference`: itself when it looks like a path, else the named baseline's file.
    public static func path(for reference: String) -> String {
        reference.contains("/") || reference.hasSuffix(".json") ? reference : "\(folder)/\(reference).json"
    }

    /// What a baseline keeps of `set`: what the gate reads (`Gate.reads`). Times move in every run,
    /// so a baseline that kept them all would change on every line when re-measured.
    public static func gated(in set: ResultSet) -> (BenchmarkResult, MetricResult) -> Bool {
        { result, metric in Gate.reads(metric, of: result, counted: Gate.countsInstructions(set, result.benchmark)) }
    }

    /// Loads a result set, with a one-line reason when it cannot. `role` names it in messages.
    /// A results folder (what `bench run --output` writes) reads as its `samples.json` when it
    /// has one (every sample), else its `results.json`.
    public static func load(_ reference: String, role: String = "baseline") throws(BaselineError) -> ResultSet {
        var path = path(for: reference)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: reference, isDirectory: &isFolder), isFolder.boolValue {
            let samples = reference + "/samples.json"
            path = FileManager.default.fileExists(atPath: samples) ? samples : reference + "/results.json"
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw BaselineError("\(role) '\(path)' does not exist")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BaselineError("\(role) '\(path)' cannot be read")
        }
        do { return try JSONFormat.decode(data) } catch {
            throw BaselineError("\(role) '\(path)' is not a results.json: \(describe(error))")
        }
    }

    /// Throws when `baseline` was measured with another toolchain or allocator than `current`, or by
    /// a build with faults injected for the gate's self-check.
    public static func checkComparable(_ baseline: ResultSet, toolchain: String, allocator: String)
        throws(BaselineError)
    {
        if let faults = baseline.metadata.faultInjections, !faults.isEmpty {
            throw BaselineError(
                "baseline was measured by a build with injected faults (\(faults.joined(separator: ", "))), not a real measurement"
            )
        }
        if baseline.metadata.toolchain != toolchain {
            throw BaselineError(
                "baseline was measured with Swift \(baseline.metadata.toolchain), this is Swift \(toolchain)")
        }
        if baseline.metadata.allocator != allocator {
            throw BaselineError(
                "baseline was measured with \(baseline.metadata.allocator), this build uses \(allocator)")
        }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): "bad JSON (\(c.debugDescription))"
        case DecodingError.keyNotFound(let key, _): "missing key '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            "wrong value at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "\(error)"
        }
    }
}
