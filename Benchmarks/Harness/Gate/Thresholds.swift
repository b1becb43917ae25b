import Foundation

/// Tolerances of the gate, kept per toolchain in `results/thresholds/<swift version>.json`:
///
/// ```json
/// {
///   "mallocTolerance" : 0.5,
///   "mallocTolerances" : { "books/toggle-available/n=1000/visible=50" : 2 },
///   "timeRatioTolerance" : 1.35
/// }
/// ```
/// `mallocTolerance`: mallocs per operation may differ from the baseline by at most this much
/// (absolute); `mallocTolerances` overrides it per benchmark. `timeRatioTolerance`: this run's
/// `lockfree p50 / apple p50` may be at most this factor above (regression) or below (improvement)
/// the baseline's. Count metrics are always gated exactly.
public struct Thresholds: Sendable, Equatable, Codable {
    public var mallocTolerance: Double
    public var mallocTolerances: [String: Double]
    public var timeRatioTolerance: Double

    public init(mallocTolerance: Double = 0.5, mallocTolerances: [String: Double] = [:], timeRatioTolerance: Double = 1.35) {
        self.mallocTolerance = mallocTolerance
        self.mallocTolerances = mallocTolerances
        self.timeRatioTolerance = timeRatioTolerance
    }

    public func mallocTolerance(for benchmark: String) -> Double { mallocTolerances[benchmark] ?? mallocTolerance }

    /// The file for `toolchain` under `folder`.
    public static func path(in folder: String = "results/thresholds", toolchain: String = MetadataCollector.toolchain) -> String {
        "\(folder)/\(toolchain).json"
    }

    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// Loads the file at `path`, writing the defaults there first when it is missing.
    public static func loadOrCreate(_ path: String) throws(BaselineError) -> Thresholds {
        if !FileManager.default.fileExists(atPath: path) {
            do { try ResultsWriter.writeFile(Thresholds().json, to: path) } catch {
                throw BaselineError("cannot create thresholds file: \(error.message)")
            }
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BaselineError("cannot read thresholds file '\(path)'")
        }
        do { return try JSONDecoder().decode(Thresholds.self, from: data) } catch {
            throw BaselineError("thresholds file '\(path)' is not valid: \(error)")
        }
    }
}
