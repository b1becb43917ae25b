/// Everything one run of the suite measured: enough to regenerate the report and to compare runs.
/// Encoded as `results.json` (see `JSONFormat`).
public struct ResultSet: Sendable, Equatable, Codable {
    /// Bumped when the JSON layout changes incompatibly.
    public var schemaVersion: Int
    public var metadata: RunMetadata
    /// One entry per benchmark x contender, in run order.
    public var results: [BenchmarkResult]

    public init(schemaVersion: Int = 1, metadata: RunMetadata, results: [BenchmarkResult]) {
        self.schemaVersion = schemaVersion
        self.metadata = metadata
        self.results = results
    }

    /// The result of `benchmark` on `contender`, if it ran.
    public func result(_ benchmark: String, _ contender: String) -> BenchmarkResult? {
        results.first { $0.benchmark == benchmark && $0.contender == contender }
    }

    /// Whether any result counted instructions.
    public var hasInstructions: Bool {
        results.contains { $0.metric(Metric.instructions) != nil }
    }

    /// Benchmark names in first-run order, each once.
    public var benchmarkNames: [String] {
        var seen = Set<String>()
        return results.map(\.benchmark).filter { seen.insert($0).inserted }
    }

    /// Contender names, each once, in first-run order (the suite runs them in `Contenders.all`
    /// order), with the floor rows' `Benchmark.floorContender` last.
    public var contenders: [String] {
        var seen = Set<String>()
        let all = results.map(\.contender).filter { seen.insert($0).inserted }
        return all.filter { $0 != Benchmark.floorContender } + all.filter { $0 == Benchmark.floorContender }
    }
}

/// One benchmark (family + parameters) on one contender.
public struct BenchmarkResult: Sendable, Equatable, Codable {
    /// The full name, `family/key=value/...`.
    public var benchmark: String
    public var family: String
    public var parameters: Parameters
    public var contender: String
    public var metrics: [MetricResult]
    /// A correctness failure (missed update, count mismatch, thrown `BenchmarkFailure`, crash).
    public var failure: String?

    public init(
        benchmark: String, family: String, parameters: Parameters, contender: String,
        metrics: [MetricResult], failure: String? = nil
    ) {
        self.benchmark = benchmark
        self.family = family
        self.parameters = parameters
        self.contender = contender
        self.metrics = metrics
        self.failure = failure
    }

    /// What it measured of `metric`, if anything.
    public func metric(_ metric: Metric) -> MetricResult? { metrics.first { $0.name == metric.name } }

    /// The value of parameter `key`, if this benchmark has it.
    public func parameter(_ key: String) -> String? { parameters[key] }
}

/// What one run measured of one metric (`Metric`, by name and unit): its statistics and, for
/// sampled metrics (time), the raw samples.
public struct MetricResult: Sendable, Equatable, Codable {
    public var name: String
    public var unit: String
    public var summary: Summary
    /// Raw samples in the order they were taken; `nil` for metrics measured once.
    public var samples: [Double]?
    /// How many of `samples` each timing process took, in order, when several were pooled: the
    /// rounds that pair contenders' processes (`RatioEstimate(rounds:)`).
    public var processes: [Int]?
    /// The median of each process's samples, in order, where the samples themselves were not kept
    /// (the compact `results.json`): enough for the paired ratios, which read only those medians.
    public var processMedians: [Double]?

    public init(
        name: String, unit: String, summary: Summary, samples: [Double]? = nil, processes: [Int]? = nil,
        processMedians: [Double]? = nil
    ) {
        self.name = name
        self.unit = unit
        self.summary = summary
        self.samples = samples
        self.processes = processes
        self.processMedians = processMedians
    }

    /// `samples` cut into the processes that took them; without them, each process's median
    /// alone (`processMedians`); `nil` without either.
    public var samplesByProcess: [[Double]]? {
        guard let samples, let processes, processes.reduce(0, +) == samples.count else {
            return processMedians.map { $0.map { [$0] } }
        }
        var start = 0
        return processes.map { count in
            defer { start += count }
            return Array(samples[start..<start + count])
        }
    }

    /// A metric with one exact value.
    public init(name: String, unit: String, value: Double) {
        self.init(name: name, unit: unit, summary: Summary(single: value))
    }

    /// `metric`'s samples, summarised.
    public init(_ metric: Metric, summary: Summary, samples: [Double]? = nil, processes: [Int]? = nil) {
        self.init(name: metric.name, unit: metric.unit, summary: summary, samples: samples, processes: processes)
    }

    /// `metric`'s one value.
    public init(_ metric: Metric, value: Double) {
        self.init(name: metric.name, unit: metric.unit, value: value)
    }

    /// The metric measured (`Metric.named`).
    public var metric: Metric { Metric.named(name, unit: unit) }
}

extension ResultSet {
    /// The successful results that have `parameter`, grouped by family and their other parameters
    /// (`family/k=v...` without `parameter`), in run order: a series along `parameter` each.
    func seriesVarying(_ parameter: String) -> [(name: String, results: [BenchmarkResult])] {
        var order: [String] = []
        var byName: [String: [BenchmarkResult]] = [:]
        for r in results where r.parameter(parameter) != nil && r.failure == nil {
            let others = r.parameters.entries.filter { $0.key != parameter }.map { "/\($0.key)=\($0.value)" }.joined()
            let name = r.family + others
            if byName[name] == nil { order.append(name) }
            byName[name, default: []].append(r)
        }
        return order.map { ($0, byName[$0]!) }
    }
}
