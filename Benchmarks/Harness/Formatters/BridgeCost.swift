/// The report's table of what bridging `lockfree`'s models to Observation costs and keeps
/// (`TrackedObservable`): `bridged` (the bridged models under Observation's tracking, subscribed as
/// `apple`'s views are) against `apple`, and `bridged-scopes` (the same models under this
/// registrar's scopes) against `lockfree`, with the invalidations each pair counted.
public enum BridgeCost {
    public static let bridged = "bridged"
    public static let bridgedScopes = "bridged-scopes"
    /// What a SwiftUI app pays with either model, under Observation's tracking.
    public static let observation = "apple"
    /// What a model costs under this registrar's own scopes.
    public static let scopes = "lockfree"
    /// The bound the suite holds each ratio to.
    public static let target = 1.1

    /// The section, or "" when neither pair ran.
    public static func section(_ set: ResultSet) -> String {
        let pairs = [(bridged, observation), (bridgedScopes, scopes)].filter {
            set.contenders.contains($0.0) && set.contenders.contains($0.1)
        }
        guard !pairs.isEmpty else { return "" }
        let names = set.benchmarkNames.filter { name in pairs.contains { set.result(name, $0.0) != nil } }
        guard !names.isEmpty else { return "" }
        let pooled = set.pooledRoundVariance(reference: set.referenceContender)
        var out = "\n## What bridging to Observation costs\n\n"
        out +=
            "`bridged`: `lockfree`'s models bridged to Observation (`TrackedObservable`), observed through "
            + "Observation's tracking, subscribed as `apple`'s views are: what a SwiftUI app pays. "
            + "`bridged-scopes`: the same models under this registrar's scopes, against `lockfree`'s unbridged "
            + "ones. Instructions per operation where callgrind counted both, then p50 times; the suite's bound is "
            + "\(NumberFormat.ratioValue(target))× on each. Invalidations: per operation, each side of the pair "
            + "(`=` where they agree).\n\n"
        var beyond: [String] = []
        var differing: [String] = []
        let rows = names.map { name -> [String] in
            var row = [name]
            for (numerator, denominator) in pairs {
                row.append(set.comparison(name, numerator, denominator, pooledVariance: pooled))
                if let ratio = set.instructionRatio(name, numerator, denominator)
                    ?? set.timeRatio(name, numerator, denominator, pooledVariance: pooled)?.ratio, ratio > target
                {
                    beyond.append("\(name) (\(numerator) ÷ \(denominator) \(NumberFormat.ratioValue(ratio))×)")
                }
                let (cell, agree) = invalidations(set, name, numerator, denominator)
                row.append(cell)
                if !agree { differing.append("\(name) (\(numerator) vs \(denominator))") }
            }
            return row
        }
        let header =
            ["benchmark"]
            + pairs.flatMap { ["\($0.0) ÷ \($0.1)", "invalidations · unnecessary · missed (\($0.0) / \($0.1))"] }
        out += MarkdownTable(header: header, rows: rows, rightAligned: Set(1..<header.count)).text
        out += "\n"
        out +=
            beyond.isEmpty
            ? "Every ratio within \(NumberFormat.ratioValue(target))×.\n"
            : "Beyond \(NumberFormat.ratioValue(target))×: " + beyond.joined(separator: ", ") + ".\n"
        out +=
            differing.isEmpty
            ? "Invalidations, unnecessary and missed ones: the same on each side of every pair.\n"
            : "Invalidations differ: " + differing.joined(separator: ", ") + ".\n"
        return out
    }

    /// The invalidations, unnecessary and missed ones per operation of `a` and `b`, and whether they
    /// agree.
    static func invalidations(_ set: ResultSet, _ name: String, _ a: String, _ b: String) -> (String, Bool) {
        let metrics = [Metric.invalidations, Metric.unnecessary, Metric.missed]
        func values(_ contender: String) -> [Double?]? {
            guard let result = set.result(name, contender), result.failure == nil else { return nil }
            return metrics.map { result.metric($0)?.summary.p50 }
        }
        guard let left = values(a), let right = values(b) else { return ("–", true) }
        let cells = zip(left, right).map { l, r -> String in
            let text = { (v: Double?) in v.map(NumberFormat.readable) ?? "n/a" }
            return l == r ? "= \(text(l))" : "\(text(l)) / \(text(r))"
        }
        return (cells.joined(separator: " · "), left == right)
    }
}
