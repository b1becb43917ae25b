import Foundation

/// Number formatting shared by the formatters. Pure and locale-independent.
public enum NumberFormat {
    /// Machine-readable: integers without a fraction, others with up to 4 decimals.
    public static func plain(_ v: Double) -> String {
        if v.isNaN { return "nan" }
        if v.isInfinite { return v > 0 ? "inf" : "-inf" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        var s = String(format: "%.4f", v)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }

    /// About three significant digits, for people: `1234`, `12.3`, `1.23`, `0.0123`.
    public static func readable(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        let a = abs(v)
        let digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : max(2, Int((-log10(a)).rounded(.down)) + 3)
        return String(format: "%.\(min(digits, 9))f", v)
    }

    /// A duration in nanoseconds with a unit: `850 ns`, `12.3 µs`, `4.56 ms`, `1.20 s`.
    public static func duration(_ ns: Double) -> String {
        let a = abs(ns)
        let (value, unit): (Double, String) =
            a >= 1e9 ? (a / 1e9, "s") : a >= 1e6 ? (a / 1e6, "ms") : a >= 1e3 ? (a / 1e3, "µs") : (a, "ns")
        let digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
        return (ns < 0 ? "-" : "") + String(format: "%.\(digits)f", value) + " " + unit
    }

    /// A ratio with its interval: `0.52× [0.49, 0.56]`, or `0.52×` without one.
    public static func ratio(_ r: RatioEstimate) -> String {
        let main = String(format: "%.2f×", r.ratio)
        guard let low = r.low, let high = r.high else { return main }
        return main + String(format: " [%.2f, %.2f]", low, high)
    }
}
