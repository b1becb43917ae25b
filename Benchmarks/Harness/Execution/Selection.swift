/// One benchmark with one parameter set on one contender: the unit the runner measures.
public struct PlannedRun: Sendable {
    public var benchmark: Benchmark
    public var parameters: Parameters
    public var name: String { benchmark.name(with: parameters) }
    public var contender: String { benchmark.contender }
}

/// A usage error: the command line asked for something that does not exist or is malformed.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Chooses what a run measures: contenders, parameter sets (with `--param` overrides), filter.
public struct Selection: Sendable {
    /// A regular expression matched anywhere in the full name; `nil` selects everything.
    public var filter: String?
    /// `nil` selects every contender.
    public var contenders: [String]?
    /// Adds each family's large parameter sets.
    public var full = false
    /// Leaves out the benchmarks not in the quick suite (`Benchmark.inQuickSuite`), unless a
    /// filter is given.
    public var quick = false
    /// `--param key=value` overrides, in command-line order.
    public var overrides = Parameters()

    public init(
        filter: String? = nil, contenders: [String]? = nil, full: Bool = false, overrides: Parameters = Parameters()
    ) {
        self.filter = filter
        self.contenders = contenders
        self.full = full
        self.overrides = overrides
    }

    /// The runs, grouped by benchmark name (each name's contenders together), in suite order.
    public func plan(_ suite: [Benchmark]) throws(UsageError) -> [PlannedRun] {
        let known = Set(suite.map(\.contender))
        var chosen = quick && filter == nil ? suite.filter(\.inQuickSuite) : suite
        if let contenders {
            for c in contenders where !known.contains(c) {
                throw UsageError("unknown contender '\(c)' (known: \(known.sorted().joined(separator: ", ")))")
            }
            chosen = suite.filter { contenders.contains($0.contender) }
        }
        for entry in overrides.entries {
            let (key, value) = (entry.key, entry.value)
            let declaring = chosen.filter { $0.parameterKinds[key] != nil }
            if declaring.isEmpty { throw UsageError("no selected benchmark has a parameter '\(key)'") }
            for b in declaring where !b.parameterKinds[key]!.accepts(value) {
                throw UsageError(
                    "bad value '\(value)' for parameter '\(key)' of \(b.family): want \(b.parameterKinds[key]!)")
            }
        }
        let regex: Regex<AnyRegexOutput>?
        do { regex = try filter.map { try Regex($0) } } catch {
            throw UsageError("bad --filter regular expression '\(filter ?? "")'")
        }

        var runs: [PlannedRun] = []
        for b in chosen {
            var sets: [Parameters] = []
            for var p in b.defaultParameterSets + (full ? b.largeParameterSets : []) {
                for entry in overrides.entries where b.parameterKinds[entry.key] != nil { p[entry.key] = entry.value }
                if !sets.contains(p) { sets.append(p) }
            }
            for p in sets {
                let run = PlannedRun(benchmark: b, parameters: p)
                if let regex, (try? regex.firstMatch(in: run.name)) == nil { continue }
                runs.append(run)
            }
        }
        // A key only filtered-out benchmarks declare would silently change nothing.
        for entry in overrides.entries
        where !runs.isEmpty && !runs.contains(where: { $0.benchmark.parameterKinds[entry.key] != nil }) {
            throw UsageError("no selected benchmark has a parameter '\(entry.key)'")
        }
        // Group by name, keeping the order in which names first appear.
        var order: [String: Int] = [:]
        for r in runs where order[r.name] == nil { order[r.name] = order.count }
        return runs.enumerated().sorted { (order[$0.element.name]!, $0.offset) < (order[$1.element.name]!, $1.offset) }
            .map(\.element)
    }
}
