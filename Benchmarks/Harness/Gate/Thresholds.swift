import Foundation

/// Tolerances of the gate, kept per toolchain in `results/thresholds/<swift version>.json`:
///
/// ```json
/// {
///   "mallocTolerance" : 0.5,
///   "mallocTolerances" : { "books/toggle-available/n=1000/visible=50" : 2 },
///   "instructionTolerance" : 1.1,
///   "instructionTolerances" : { "primitives/fire-scopes/scopes=1" : 1.2 },
///   "timeRatioTolerance" : 5,
///   "timeRatioTolerances" : { "primitives/mutation-threads/threads=2" : 1000 },
///   "nondeterministicCounts" : [ "trees/cellx/" ]
/// }
/// ```
/// `mallocTolerance`: mallocs per operation may differ from the baseline by at most this much
/// (absolute); `mallocTolerances` overrides it per benchmark. `instructionTolerance`: this run's
/// `lockfree` instructions per operation may be at most this factor above or below the baseline's,
/// where both counted instructions (then the time ratio is not gated); `instructionTolerances`
/// overrides it per benchmark. `timeRatioTolerance`: this run's
/// `lockfree p50 / apple p50` may be at most this factor above (regression) or below (improvement)
/// the baseline's; `timeRatioTolerances` overrides it per benchmark. Count metrics are gated
/// exactly, except for benchmarks whose name starts with a prefix in `nondeterministicCounts`.
/// What a benchmark's threads do to its figures is declared with the benchmark (`ThreadTiming`)
/// and added to these by `check` (`declaring`): a benchmark whose counts vary with thread timing
/// is not gated on them, and its declared malloc and time ratio tolerances apply to it.
public struct Thresholds: Sendable, Equatable, Codable {
    public var mallocTolerance: Double
    public var mallocTolerances: [String: Double]
    public var instructionTolerance: Double
    public var instructionTolerances: [String: Double]
    public var timeRatioTolerance: Double
    public var timeRatioTolerances: [String: Double]
    public var nondeterministicCounts: [String]
    /// What the measured benchmarks declare of their threads (`Benchmark.threads`), by
    /// `benchmark@contender`: added by `declaring(_:)`, never read from or written to the file.
    public var declared: [String: ThreadTiming] = [:]

    public init(
        mallocTolerance: Double = 0.5, mallocTolerances: [String: Double] = [:],
        instructionTolerance: Double = 1.1, instructionTolerances: [String: Double] = [:],
        timeRatioTolerance: Double = 5, timeRatioTolerances: [String: Double] = [:],
        nondeterministicCounts: [String] = []
    ) {
        self.mallocTolerance = mallocTolerance
        self.mallocTolerances = mallocTolerances
        self.instructionTolerance = instructionTolerance
        self.instructionTolerances = instructionTolerances
        self.timeRatioTolerance = timeRatioTolerance
        self.timeRatioTolerances = timeRatioTolerances
        self.nondeterministicCounts = nondeterministicCounts
    }

    enum CodingKeys: String, CodingKey {
        case mallocTolerance, mallocTolerances, instructionTolerance, instructionTolerances
        case timeRatioTolerance, timeRatioTolerances, nondeterministicCounts
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mallocTolerance = try c.decode(Double.self, forKey: .mallocTolerance)
        mallocTolerances = try c.decodeIfPresent([String: Double].self, forKey: .mallocTolerances) ?? [:]
        instructionTolerance = try c.decodeIfPresent(Double.self, forKey: .instructionTolerance) ?? 1.1
        instructionTolerances =
            try c.decodeIfPresent([String: Double].self, forKey: .instructionTolerances) ?? [:]
        timeRatioTolerance = try c.decode(Double.self, forKey: .timeRatioTolerance)
        timeRatioTolerances = try c.decodeIfPresent([String: Double].self, forKey: .timeRatioTolerances) ?? [:]
        nondeterministicCounts = try c.decodeIfPresent([String].self, forKey: .nondeterministicCounts) ?? []
    }

    /// These thresholds with what `runs` declare of their threads: a benchmark whose counts vary
    /// with thread timing is not gated on them, and its mallocs get its declared tolerance (or the
    /// file's, whichever is larger).
    public func declaring(_ runs: [PlannedRun]) -> Thresholds {
        var copy = self
        for run in runs {
            let timing = run.benchmark.threads(run.parameters)
            if timing != .oneThread { copy.declared["\(run.name)@\(run.contender)"] = timing }
        }
        return copy
    }

    /// Whether `benchmark`'s counts on `contender` vary between runs by design (see
    /// `nondeterministicCounts` and `ThreadTiming`).
    public func countsAreNondeterministic(_ benchmark: String, contender: String) -> Bool {
        if case .timingDependent(countsVary: true, _, _) = declared["\(benchmark)@\(contender)"] { return true }
        return nondeterministicCounts.contains { benchmark.hasPrefix($0) }
    }

    public func mallocTolerance(for benchmark: String, contender: String) -> Double {
        let file = mallocTolerances[benchmark] ?? mallocTolerance
        if case .timingDependent(_, let declared, _) = declared["\(benchmark)@\(contender)"] {
            return max(file, declared)
        }
        return file
    }
    public func instructionTolerance(for benchmark: String) -> Double {
        instructionTolerances[benchmark] ?? instructionTolerance
    }
    /// The file's, or the largest that `benchmark`'s contenders declare (`ThreadTiming`).
    public func timeRatioTolerance(for benchmark: String) -> Double {
        let file = timeRatioTolerances[benchmark] ?? timeRatioTolerance
        let ownDeclarations = declared.filter { $0.key.hasPrefix(benchmark + "@") }.values
        let declaredTolerances = ownDeclarations.compactMap { timing -> Double? in
            if case .timingDependent(_, _, let tolerance) = timing { return tolerance }
            return nil
        }
        return declaredTolerances.max().map { max($0, file) } ?? file
    }

    /// The file for `toolchain` under `folder`.
    public static func path(in folder: String = "results/thresholds", toolchain: String = MetadataCollector.toolchain)
        -> String
    {
        "\(folder)/\(toolchain).json"
    }

    /// The defaults, as written to a missing thresholds file: the tolerances this project measured
    /// (wall-clock ratios moved up to 3.7x between two quick runs on a 2-core machine).
    public static var defaultsJSON: String { Thresholds().json }

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
