/// The table `bench run` prints on stdout: per benchmark, each contender's p50 time, mallocs per
/// operation and invalidations per operation, side by side, then the reference (`lockfree`)
/// against each other contender: the instruction ratio where counted, the time ratio with its 95%
/// interval beside it. The floor rows (the same work without
/// observation, `Benchmark.floorContender`) get a time column only, named for what it is.
public enum SummaryTable {
    public static let floorHeader = "floor (no observation) p50"

    public static func format(_ set: ResultSet) -> String {
        let contenders = set.contenders
        let observing = contenders.filter { $0 != Benchmark.floorContender }
        var header = ["benchmark"]
        header += contenders.map { $0 == Benchmark.floorContender ? floorHeader : "\($0) p50" }
        header += observing.map { "\($0) mallocs/op" }
        header += observing.map { "\($0) invalidations/op" }
        let reference = set.referenceContender
        let others = set.compared(with: reference)
        let pooled = set.pooledRoundVariance(reference: reference)
        if let reference { header += others.map { "\(reference) ÷ \($0)" } }
        let rows = set.benchmarkNames.map { name -> [String] in
            func cell(_ c: String, _ metric: Metric, _ text: (Double) -> String) -> String {
                guard let r = set.result(name, c) else { return "–" }
                if r.failure != nil { return "FAILED" }
                return r.metric(metric).map { text($0.summary.p50) } ?? "n/a"
            }
            return [name] + contenders.map { cell($0, Metric.time, NumberFormat.duration) }
                + observing.map { cell($0, Metric.mallocs, NumberFormat.readable) }
                + observing.map { cell($0, Metric.invalidations, NumberFormat.readable) }
                + (reference.map { r in others.map { set.comparison(name, r, $0, pooledVariance: pooled) } } ?? [])
        }
        var text = MarkdownTable(header: header, rows: rows, rightAligned: Set(1..<header.count)).text
        if let note = set.metadata.allocationNote { text += "\nmallocs: unavailable (\(note))\n" }
        return text
    }

    /// The lines after the table: where the files are, the slowest benchmark, what failed.
    public static func closing(_ set: ResultSet, folder: String, files: [String]) -> String {
        var lines = ["Results: \(folder)/ (\(files.joined(separator: ", ")))"]
        let timed = set.results.compactMap { r in
            r.failure == nil ? r.metric(Metric.time).map { (r, $0.summary.p50) } : nil
        }
        if let (slowest, p50) = timed.max(by: { $0.1 < $1.1 }) {
            lines.append(
                "Slowest: \(slowest.benchmark) on \(slowest.contender), \(NumberFormat.duration(p50)) per operation (p50)"
            )
        }
        let failed = set.results.filter { $0.failure != nil }
        lines.append(
            failed.isEmpty
                ? "Failed: none of \(set.results.count) runs"
                : "Failed: \(failed.count) of \(set.results.count) runs: "
                    + failed.prefix(5).map { "\($0.benchmark) on \($0.contender)" }.joined(separator: ", ")
                    + (failed.count > 5 ? ", ..." : "") + " (reasons above)")
        return lines.joined(separator: "\n") + "\n"
    }
}

extension ResultSet {
    /// The contender others are compared with: `lockfree` when it ran, else the first.
    public var referenceContender: String? {
        contenders.contains("lockfree") ? "lockfree" : contenders.first
    }

    /// The time ratio `reference / other` for `benchmark`, with its 95% interval: from the paired
    /// rounds of alternating processes when both have them (`RatioEstimate(rounds:)`, moderated by
    /// `pooledVariance` when given), else the ratio of the pooled medians with a conservative
    /// interval.
    public func timeRatio(
        _ benchmark: String, _ reference: String, _ other: String, pooledVariance: Double? = nil
    ) -> RatioEstimate? {
        guard let (a, b) = timeMetrics(benchmark, reference, other) else { return nil }
        if let pa = a.samplesByProcess, let pb = b.samplesByProcess,
            let paired = RatioEstimate(rounds: pa, pb, pooledVariance: pooledVariance)
        {
            return paired
        }
        let sa = a.samples ?? [a.summary.p50]
        let sb = b.samples ?? [b.summary.p50]
        guard !sa.isEmpty, !sb.isEmpty else { return nil }
        return RatioEstimate(numerator: sa, denominator: sb)
    }

    /// The time metrics of `reference` and `other` on `benchmark`, when both ran without failing.
    func timeMetrics(_ benchmark: String, _ reference: String, _ other: String) -> (MetricResult, MetricResult)? {
        guard let ra = result(benchmark, reference), ra.failure == nil, let rb = result(benchmark, other),
            rb.failure == nil, let a = ra.metric(Metric.time), let b = rb.metric(Metric.time)
        else { return nil }
        return (a, b)
    }

    /// The mean variance of the log round ratios over every paired time ratio of `reference`
    /// against another contender (3 rounds or more), the floor rows left out: the run's own
    /// measure of how much a round's ratio moves, which moderates each ratio's interval
    /// (`RatioEstimate(rounds:_:pooledVariance:)`). `nil` without such ratios.
    public func pooledRoundVariance(reference: String?) -> Double? {
        guard let reference else { return nil }
        var variances: [Double] = []
        for name in benchmarkNames {
            for other in contenders where other != reference && other != Benchmark.floorContender {
                guard let (a, b) = timeMetrics(name, reference, other), let pa = a.samplesByProcess,
                    let pb = b.samplesByProcess
                else { continue }
                let logs = RatioEstimate.roundLogs(pa, pb)
                if logs.count >= 3 { variances.append(RatioEstimate.variance(logs)) }
            }
        }
        return variances.isEmpty ? nil : variances.reduce(0, +) / Double(variances.count)
    }

    /// `reference / other` in instructions per operation for `benchmark`, when both were counted.
    public func instructionRatio(_ benchmark: String, _ reference: String, _ other: String) -> Double? {
        guard let ra = result(benchmark, reference), ra.failure == nil, let rb = result(benchmark, other),
            rb.failure == nil, let a = ra.metric(Metric.instructions)?.summary.p50,
            let b = rb.metric(Metric.instructions)?.summary.p50, a > 0, b > 0
        else { return nil }
        return a / b
    }

    /// The comparison cell of `reference / other`: the instruction ratio where counted, then the
    /// time ratio with its 95% interval (`NumberFormat.comparison`), moderated by `pooledVariance`.
    public func comparison(
        _ benchmark: String, _ reference: String, _ other: String, pooledVariance: Double? = nil
    ) -> String {
        NumberFormat.comparison(
            instructions: instructionRatio(benchmark, reference, other),
            time: timeRatio(benchmark, reference, other, pooledVariance: pooledVariance))
    }

    /// The contenders compared with `reference`: those that share a benchmark with it.
    public func compared(with reference: String?) -> [String] {
        contenders.filter { other in
            guard let reference, other != reference else { return false }
            return benchmarkNames.contains { name in timeRatio(name, reference, other) != nil }
        }
    }
}
