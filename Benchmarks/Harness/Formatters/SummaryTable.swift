/// The table `bench run` prints on stdout: per benchmark, each contender's p50 time, mallocs per
/// operation and invalidations per operation, side by side.
public enum SummaryTable {
    public static func format(_ set: ResultSet) -> String {
        let contenders = set.contenders
        var header = ["benchmark"]
        header += contenders.map { "\($0) p50" }
        header += contenders.map { "\($0) mallocs/op" }
        header += contenders.map { "\($0) invalidations/op" }
        let rows = set.benchmarkNames.map { name -> [String] in
            func cell(_ c: String, _ metric: String, _ text: (Double) -> String) -> String {
                guard let r = set.result(name, c) else { return "–" }
                if r.failure != nil { return "FAILED" }
                return r.metric(metric).map { text($0.summary.p50) } ?? "n/a"
            }
            return [name] + contenders.map { cell($0, MetricName.time, NumberFormat.duration) }
                + contenders.map { cell($0, MetricName.mallocs, NumberFormat.readable) }
                + contenders.map { cell($0, MetricName.invalidations, NumberFormat.readable) }
        }
        var text = MarkdownTable(header: header, rows: rows, rightAligned: Set(1..<header.count)).text
        if let note = set.metadata.allocationNote { text += "\nmallocs: unavailable (\(note))\n" }
        return text
    }
}

extension ResultSet {
    /// The contender others are compared with: `lockfree` when it ran, else the first.
    public var referenceContender: String? {
        contenders.contains("lockfree") ? "lockfree" : contenders.first
    }

    /// The p50 time ratio `reference / other` for `benchmark`, with its 95% interval.
    public func timeRatio(_ benchmark: String, _ reference: String, _ other: String) -> RatioEstimate? {
        guard let ra = result(benchmark, reference), ra.failure == nil, let rb = result(benchmark, other),
            rb.failure == nil, let a = ra.metric(MetricName.time), let b = rb.metric(MetricName.time)
        else { return nil }
        let sa = a.samples ?? [a.summary.p50], sb = b.samples ?? [b.summary.p50]
        guard !sa.isEmpty, !sb.isEmpty else { return nil }
        return RatioEstimate(numerator: sa, denominator: sb)
    }
}
