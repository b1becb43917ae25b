/// Where fine-grained observation starts to pay: for families that run at several render costs
/// (`render=` nanoseconds per view evaluation), the cost at which `lockfree`'s time per operation
/// falls to `naive`'s, and the report's table and charts of it.
public enum Crossover {
    public static let parameter = "render"
    public static let fineGrained = "lockfree"
    public static let publishEverything = "naive"

    public enum Point: Sendable, Equatable {
        /// Faster at the smallest cost already.
        case always
        /// Not faster at any measured cost, and not closing in.
        case never
        /// Faster from about this cost (ns), interpolated between two measured costs.
        case at(Double)
        /// Not faster at any measured cost, but closing in: faster from about this cost (ns),
        /// extrapolated from the last two.
        case beyond(Double)

        public var text: String {
            switch self {
            case .always: "always"
            case .never: "never"
            case .at(let ns): "from about \(NumberFormat.duration(ns))"
            case .beyond(let ns): "beyond the costs measured (about \(NumberFormat.duration(ns)), extrapolated)"
            }
        }
    }

    /// `points`: cost, then the two times. Where `a` first falls to `b` or below. `evaluations`:
    /// each side's view evaluations per operation, when known: the render cost multiplies them, so
    /// with no fewer evaluations than `b`, `a` never overtakes it, and with fewer, the cost beyond the
    /// measured ones where it does is the gap at the first cost over the difference in evaluations.
    public static func find(
        _ points: [(cost: Double, a: Double, b: Double)], evaluations: (a: Double, b: Double)? = nil
    ) -> Point? {
        let sorted = points.sorted { $0.cost < $1.cost }
        guard let first = sorted.first else { return nil }
        if first.a <= first.b { return .always }
        if let evaluations, evaluations.a >= evaluations.b { return .never }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where next.a <= next.b {
            let d0 = previous.a - previous.b
            let d1 = next.a - next.b
            return .at(previous.cost + d0 * (next.cost - previous.cost) / (d0 - d1))
        }
        if let evaluations { return .beyond(first.cost + (first.a - first.b) / (evaluations.b - evaluations.a)) }
        guard sorted.count >= 2 else { return .never }
        let previous = sorted[sorted.count - 2]
        let last = sorted[sorted.count - 1]
        let d0 = previous.a - previous.b
        let d1 = last.a - last.b
        guard d1 < d0 else { return .never }
        return .beyond(last.cost + d1 * (last.cost - previous.cost) / (d0 - d1))
    }

    /// The families with several render costs, each with its other parameters (`family/k=v...`
    /// without `render`), in run order.
    static func cases(_ set: ResultSet) -> [(name: String, results: [BenchmarkResult])] {
        set.seriesVarying(parameter).filter { Set($0.results.compactMap { $0.parameter(parameter) }).count >= 2 }
    }

    static func time(_ r: BenchmarkResult) -> Double? { r.metric(Metric.time)?.summary.p50 }
    static func cost(_ r: BenchmarkResult) -> Double? { r.parameter(parameter).flatMap(Double.init) }

    /// The report's section: per family, lockfree / naive p50 at each cost and the crossover.
    public static func section(_ set: ResultSet) -> String {
        let cases = cases(set)
        guard !cases.isEmpty else { return "" }
        let costs = Array(Set(cases.flatMap { $0.results.compactMap(cost) })).sorted()
        var rows: [[String]] = []
        for (name, results) in cases {
            var points: [(cost: Double, a: Double, b: Double)] = []
            var cells: [String] = []
            for c in costs {
                let a = results.first { $0.contender == fineGrained && cost($0) == c }.flatMap(time)
                let b = results.first { $0.contender == publishEverything && cost($0) == c }.flatMap(time)
                if let a, let b { points.append((c, a, b)) }
                cells.append(
                    a.map(NumberFormat.duration).map { "\($0) / " + (b.map(NumberFormat.duration) ?? "–") } ?? "–")
            }
            let evaluations = { (c: String) in
                results.first { $0.contender == c }?.metric(Metric.evaluations)?.summary.p50
            }
            let counted = evaluations(fineGrained).flatMap { a in evaluations(publishEverything).map { (a, $0) } }
            rows.append([name] + cells + [find(points, evaluations: counted)?.text ?? "–"])
        }
        let header =
            ["family"]
            + costs.map { "render \($0 == 0 ? "0" : NumberFormat.duration($0)): \(fineGrained) / \(publishEverything)" }
            + ["\(fineGrained) faster than \(publishEverything)"]
        return "\n## Render cost: where fine-grained observation pays\n\n"
            + "Each view evaluation is charged a render cost standing for its body and diff (`--param render=NS`,"
            + " the same work for every contender). Time per operation, p50. The last column is the render cost"
            + " from which `\(fineGrained)` is faster than `\(publishEverything)`: interpolated between the two"
            + " measured costs around it; beyond them, the gap at the smallest cost over the difference in view"
            + " evaluations per operation; \"never\" where `\(fineGrained)` evaluates as many views as"
            + " `\(publishEverything)`.\n\n"
            + MarkdownTable(header: header, rows: rows, rightAligned: Set(1...costs.count)).text
    }

    /// A chart per family: time per operation against render cost, one line per contender.
    static func charts(_ set: ResultSet) -> [ChartSet.Chart] {
        cases(set).map { name, results in
            let contenders = set.contenders.filter { c in results.contains { $0.contender == c } }
            let series = contenders.map { c in
                SVGChart.Series(
                    name: c,
                    points: results.filter { $0.contender == c }.compactMap { r in
                        guard let x = cost(r), let y = time(r) else { return nil }
                        return (x / 1000, y)
                    })
            }
            let svg = SVGChart.lines(
                title: "\(name): time per operation against render cost",
                xLabel: "render cost per view evaluation (µs)",
                yLabel: "time per operation (log scale)", series: series, yTick: NumberFormat.duration, linearX: true)
            let slug = name.replacingOccurrences(of: "/", with: "-").replacingOccurrences(of: "=", with: "")
            return ChartSet.Chart(
                group: ReportFormat.groupName(name), title: "\(name): time against render cost",
                fileName: "\(slug)-render.svg", svg: svg)
        }
    }
}
