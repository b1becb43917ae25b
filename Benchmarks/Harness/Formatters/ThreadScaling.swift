/// How throughput scales with threads, for families run at several `threads=` counts: each thread
/// does one operation's work per operation, so N threads do N times the work of one, and their
/// throughput over one thread's is N x t(threads=1) / t(threads=N), p50 times of the same run.
public enum ThreadScaling {
    public static let parameter = "threads"

    /// One family's runs at N > 1 threads, against the one-thread run they are compared with.
    struct Case {
        var name: String
        var threads: Int
        var base: String
        var results: [BenchmarkResult]
        var baseResults: [BenchmarkResult]
    }

    /// `threads` threads' throughput over one thread's: `threads` x `one` / `many` (times per
    /// operation).
    public static func scaling(threads: Int, one: Double, many: Double) -> Double? {
        guard threads > 0, one > 0, many > 0 else { return nil }
        return Double(threads) * one / many
    }

    /// The families with a run at N > 1 threads and a one-thread run to compare it with: their
    /// own, or, for a variant without one (`tracked-read-threads-private`,
    /// `mutation-threads-same-object`), that of the family it varies (the longest family name
    /// that, followed by `-`, begins its name, other parameters equal). In run order.
    static func cases(_ set: ResultSet) -> [Case] {
        let series = set.seriesVarying(parameter)
        let order = series.map(\.name)
        let byName = Dictionary(uniqueKeysWithValues: series.map { ($0.name, $0.results) })
        func threads(_ r: BenchmarkResult) -> Int? { r.parameter(parameter).flatMap { Int($0) } }
        let withOne = Set(order.filter { byName[$0]!.contains { threads($0) == 1 } })
        var cases: [Case] = []
        for name in order {
            let base =
                withOne.contains(name)
                ? name
                : withOne.filter { sameShape($0, name) }.max { $0.count < $1.count }
            guard let base else { continue }
            let counts = Set(byName[name]!.compactMap(threads).filter { $0 > 1 }).sorted()
            for n in counts {
                cases.append(
                    Case(
                        name: name, threads: n, base: base,
                        results: byName[name]!.filter { threads($0) == n },
                        baseResults: byName[base]!.filter { threads($0) == 1 }))
            }
        }
        return cases
    }

    /// Whether `name` varies the family of `base`: `family-variant` with the same other parameters.
    static func sameShape(_ base: String, _ name: String) -> Bool {
        let (baseFamily, baseRest) = split(base)
        let (family, rest) = split(name)
        return baseRest == rest && family.hasPrefix(baseFamily + "-")
    }

    /// A case name's family (`group/name`) and its other parameters.
    static func split(_ name: String) -> (String, String) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        let family = parts.prefix(2).joined(separator: "/")
        return (family, parts.dropFirst(2).joined(separator: "/"))
    }

    static func time(_ r: BenchmarkResult?) -> Double? { r?.metric(Metric.time)?.summary.p50 }

    /// The report's section: per family and thread count, each contender's scaling.
    public static func section(_ set: ResultSet) -> String {
        let cases = cases(set)
        guard !cases.isEmpty else { return "" }
        let contenders = set.contenders.filter { c in cases.contains { $0.results.contains { $0.contender == c } } }
        let rows = cases.map { c -> [String] in
            let label = "\(c.name)/threads=\(c.threads)" + (c.base == c.name ? "" : " (against \(c.base)/threads=1)")
            return [label]
                + contenders.map { contender in
                    let one = time(c.baseResults.first { $0.contender == contender })
                    let many = time(c.results.first { $0.contender == contender })
                    guard let one, let many, let s = scaling(threads: c.threads, one: one, many: many) else {
                        return "–"
                    }
                    return NumberFormat.ratioValue(s) + "×"
                }
        }
        return "\n## Thread scaling\n\n"
            + "Throughput of N threads over one thread's: each thread does an operation's work, so N threads do N"
            + " times the work of one, in N x t(threads=1) / t(threads=N), p50 times of this run (1.00×: no gain;"
            + " below: the threads slow each other down). A variant without a one-thread run of its own (objects of"
            + " each thread's own, or one shared object) is compared with that of the family it varies. One run's"
            + " figure: a machine's speed modes move it (see the README).\n\n"
            + MarkdownTable(header: ["benchmark"] + contenders, rows: rows, rightAligned: Set(1...contenders.count))
            .text
    }
}
