/// The charts a result set gets: a bar chart of time per operation for `primitives/*`, log-log
/// scaling curves (time and invalidations per operation against `n`) for each family that ran
/// with several values of `n`, and a latency percentile plot for each benchmark that records
/// latency (`LatencyPercentiles`).
public enum ChartSet {
    public struct Chart: Sendable, Equatable {
        /// The report section it belongs to (the first path component).
        public var group: String
        public var title: String
        public var fileName: String
        public var svg: String
    }

    public static func charts(_ set: ResultSet) -> [Chart] {
        var charts: [Chart] = []
        let contenders = set.contenders
        let primitives = set.benchmarkNames.filter { $0.hasPrefix("primitives/") }
        if !primitives.isEmpty {
            let series = contenders.map { c in
                (name: c, values: primitives.map { set.result($0, c)?.metric(Metric.time)?.summary.p50 })
            }
            let svg = SVGChart.bars(
                title: "primitives: time per operation (p50, log scale)", axisLabel: "time per operation",
                categories: primitives.map { String($0.dropFirst("primitives/".count)) }, series: series,
                tick: NumberFormat.duration)
            charts.append(
                Chart(
                    group: "primitives", title: "primitives: time per operation", fileName: "primitives.svg", svg: svg))
        }

        charts += Crossover.charts(set)
        charts += LatencyPercentiles.charts(set)
        var families: [String] = []
        for r in set.results
        where r.parameter("n") != nil && r.parameter(Crossover.parameter) == nil
            && !families.contains(r.family)
        {
            families.append(r.family)
        }
        for family in families {
            let results = set.results.filter { $0.family == family && $0.failure == nil }
            let ns = Set(results.compactMap { $0.parameter("n") })
            guard ns.count >= 2 else { continue }
            let group = ReportFormat.groupName(family)
            let slug = family.replacingOccurrences(of: "/", with: "-")
            for (metric, label, tick) in [
                (Metric.time, "time per operation", NumberFormat.duration),
                (Metric.invalidations, "invalidations per operation", NumberFormat.readable),
            ] {
                let series = lineSeries(results, contenders: contenders, metric: metric)
                guard series.contains(where: { $0.points.contains { $0.y > 0 } }) else { continue }
                let svg = SVGChart.lines(
                    title: "\(family): \(label)", xLabel: "n (log scale)", yLabel: "\(label) (log scale)",
                    series: series, yTick: tick)
                charts.append(
                    Chart(
                        group: group, title: "\(family): \(label) against n", fileName: "\(slug)-\(metric).svg",
                        svg: svg))
            }
        }
        return charts
    }

    /// One series per contender and combination of the other parameters that vary in the family
    /// (constant ones are left out of the label).
    static func lineSeries(_ results: [BenchmarkResult], contenders: [String], metric: Metric) -> [SVGChart.Series] {
        var values: [String: Set<String>] = [:]
        for r in results {
            for p in r.parameters.entries where p.key != "n" { values[p.key, default: []].insert(p.value) }
        }
        let varying = Set(values.filter { $0.value.count > 1 }.keys)
        var series: [SVGChart.Series] = []
        for c in contenders {
            var keys: [String] = []
            var points: [String: [(x: Double, y: Double)]] = [:]
            for r in results where r.contender == c {
                guard let n = r.parameter("n").flatMap(Double.init), let y = r.metric(metric)?.summary.p50 else {
                    continue
                }
                let rest = r.parameters.entries.filter { varying.contains($0.key) }.map { "\($0.key)=\($0.value)" }
                    .joined(separator: " ")
                if points[rest] == nil { keys.append(rest) }
                points[rest, default: []].append((x: n, y: y))
            }
            for key in keys {
                series.append(SVGChart.Series(name: key.isEmpty ? c : "\(c) \(key)", points: points[key]!))
            }
        }
        return series
    }
}
