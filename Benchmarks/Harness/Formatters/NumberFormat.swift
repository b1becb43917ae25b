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

    /// A ratio with its interval: `0.52× [0.49, 0.56]`, or `0.52×` without one; below 0.1, two
    /// significant digits (`0.014× [0.013, 0.015]`), so that a small ratio keeps its size.
    public static func ratio(_ r: RatioEstimate) -> String {
        let main = ratioValue(r.ratio) + "×"
        guard let low = r.low, let high = r.high else { return main }
        return main + " [" + ratioValue(low) + ", " + ratioValue(high) + "]"
    }

    /// `12.3`, `0.52`, `0.014`.
    static func ratioValue(_ x: Double) -> String {
        if x >= 10 || x == 0 || !x.isFinite { return String(format: "%.1f", x) }
        if x >= 0.1 { return String(format: "%.2f", x) }
        let digits = min(12, 1 - Int(floor(log10(x))))
        return String(format: "%.\(digits)f", x)
    }

    /// A comparison cell, instructions first where both sides were counted:
    /// `0.014× instr · 0.026× [0.025, 0.027] time`; else the time ratio alone.
    public static func comparison(instructions: Double?, time: RatioEstimate?) -> String {
        let timeText = time.map(ratio)
        guard let instructions else { return timeText ?? "" }
        return ratioValue(instructions) + "× instr" + (timeText.map { " · " + $0 + " time" } ?? "")
    }
}
