import Foundation

/// Hand-written SVG charts with logarithmic axes (no graphics library on Linux). Pure functions:
/// the same input gives the same text.
public enum SVGChart {
    public struct Series: Sendable, Equatable {
        public var name: String
        public var points: [(x: Double, y: Double)]
        public init(name: String, points: [(x: Double, y: Double)]) {
            self.name = name
            self.points = points
        }
        public static func == (a: Series, b: Series) -> Bool {
            a.name == b.name && a.points.map(\.x) == b.points.map(\.x) && a.points.map(\.y) == b.points.map(\.y)
        }
    }

    static let palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]

    /// Horizontal grouped bars on a log axis: one group per category, one bar per series
    /// (`values[category]`, `nil` or non-positive values are left out).
    public static func bars(
        title: String, axisLabel: String, categories: [String], series: [(name: String, values: [Double?])],
        tick: (Double) -> String
    ) -> String {
        let barHeight = 14.0
        let groupGap = 12.0
        let left = min(10 + 7 * Double(categories.map(\.count).max() ?? 10), 380)
        let right = 30.0
        let top = 56.0
        let width = 900.0
        let plotWidth = width - left - right
        let groupHeight = Double(series.count) * barHeight + groupGap
        let height = top + Double(categories.count) * groupHeight + 50
        let values = series.flatMap { $0.values.compactMap { $0 } }.filter { $0 > 0 }
        let axis = LogAxis(values)
        func x(_ v: Double) -> Double { left + axis.fraction(v) * plotWidth }

        var svg = header(width: width, height: height, title: title)
        svg += legend(series.map(\.name), x: left, y: 40)
        let bottom = height - 50
        for (k, t) in axis.ticks.enumerated() {
            let tx = fmt(x(t))
            svg += "<line x1=\"\(tx)\" y1=\"\(fmt(top - 4))\" x2=\"\(tx)\" y2=\"\(fmt(bottom))\" stroke=\"#ddd\"/>\n"
            svg += "<text x=\"\(tx)\" y=\"\(fmt(bottom + 16))\" text-anchor=\"middle\">\(escape(tick(t)))</text>\n"
            _ = k
        }
        svg +=
            "<text x=\"\(fmt(left + plotWidth / 2))\" y=\"\(fmt(bottom + 36))\" text-anchor=\"middle\">\(escape(axisLabel))</text>\n"
        for (c, category) in categories.enumerated() {
            let gy = top + Double(c) * groupHeight
            svg +=
                "<text x=\"\(fmt(left - 6))\" y=\"\(fmt(gy + Double(series.count) * barHeight / 2 + 4))\" text-anchor=\"end\">\(escape(category))</text>\n"
            for (s, serie) in series.enumerated() {
                guard c < serie.values.count, let v = serie.values[c], v > 0 else { continue }
                let y = gy + Double(s) * barHeight
                svg +=
                    "<rect x=\"\(fmt(left))\" y=\"\(fmt(y))\" width=\"\(fmt(max(x(v) - left, 1)))\" height=\"\(fmt(barHeight - 2))\" fill=\"\(color(s))\"><title>\(escape(serie.name)): \(escape(tick(v)))</title></rect>\n"
            }
        }
        svg +=
            "<line x1=\"\(fmt(left))\" y1=\"\(fmt(top - 4))\" x2=\"\(fmt(left))\" y2=\"\(fmt(bottom))\" stroke=\"#333\"/>\n"
        return svg + "</svg>\n"
    }

    /// A log-log line chart: one polyline with point markers per series.
    /// Lines on a log-log plot; with `linearX`, the x axis is linear from 0 (and points at x = 0 are
    /// drawn). `xTick` labels the x ticks (by default, as readable numbers).
    public static func lines(
        title: String, xLabel: String, yLabel: String, series: [Series], yTick: (Double) -> String,
        linearX: Bool = false, xTick: ((Double) -> String)? = nil
    ) -> String {
        let width = 720.0
        let height = 440.0
        let left = 90.0
        let right = 170.0
        let top = 40.0
        let bottomMargin = 56.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottomMargin
        let xValues = series.flatMap { $0.points.map(\.x) }
        let xs: any ChartAxis = linearX ? LinearAxis(xValues.filter { $0 >= 0 }) : LogAxis(xValues.filter { $0 > 0 })
        let ys = LogAxis(series.flatMap { $0.points.map(\.y) }.filter { $0 > 0 })
        func px(_ v: Double) -> Double { left + xs.fraction(v) * plotWidth }
        func py(_ v: Double) -> Double { top + plotHeight - ys.fraction(v) * plotHeight }
        let bottom = top + plotHeight

        var svg = header(width: width, height: height, title: title)
        for t in xs.ticks {
            svg +=
                "<line x1=\"\(fmt(px(t)))\" y1=\"\(fmt(top))\" x2=\"\(fmt(px(t)))\" y2=\"\(fmt(bottom))\" stroke=\"#ddd\"/>\n"
            svg +=
                "<text x=\"\(fmt(px(t)))\" y=\"\(fmt(bottom + 16))\" text-anchor=\"middle\">\(escape(xTick?(t) ?? NumberFormat.readable(t)))</text>\n"
        }
        for t in ys.ticks {
            svg +=
                "<line x1=\"\(fmt(left))\" y1=\"\(fmt(py(t)))\" x2=\"\(fmt(left + plotWidth))\" y2=\"\(fmt(py(t)))\" stroke=\"#ddd\"/>\n"
            svg +=
                "<text x=\"\(fmt(left - 6))\" y=\"\(fmt(py(t) + 4))\" text-anchor=\"end\">\(escape(yTick(t)))</text>\n"
        }
        svg +=
            "<rect x=\"\(fmt(left))\" y=\"\(fmt(top))\" width=\"\(fmt(plotWidth))\" height=\"\(fmt(plotHeight))\" fill=\"none\" stroke=\"#333\"/>\n"
        svg +=
            "<text x=\"\(fmt(left + plotWidth / 2))\" y=\"\(fmt(height - 14))\" text-anchor=\"middle\">\(escape(xLabel))</text>\n"
        svg +=
            "<text x=\"18\" y=\"\(fmt(top + plotHeight / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 18 \(fmt(top + plotHeight / 2)))\">\(escape(yLabel))</text>\n"
        for (i, s) in series.enumerated() {
            let points = s.points.filter { (linearX ? $0.x >= 0 : $0.x > 0) && $0.y > 0 }.sorted { $0.x < $1.x }
            let path = points.map { "\(fmt(px($0.x))),\(fmt(py($0.y)))" }.joined(separator: " ")
            svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(color(i))\" stroke-width=\"2\"/>\n"
            for p in points {
                svg +=
                    "<circle cx=\"\(fmt(px(p.x)))\" cy=\"\(fmt(py(p.y)))\" r=\"3\" fill=\"\(color(i))\"><title>\(escape(s.name)): \(escape(yTick(p.y)))</title></circle>\n"
            }
            let ly = top + 14 + Double(i) * 18
            svg +=
                "<rect x=\"\(fmt(left + plotWidth + 12))\" y=\"\(fmt(ly - 9))\" width=\"12\" height=\"12\" fill=\"\(color(i))\"/>\n"
            svg += "<text x=\"\(fmt(left + plotWidth + 30))\" y=\"\(fmt(ly + 1))\">\(escape(s.name))</text>\n"
        }
        return svg + "</svg>\n"
    }

    static func header(width: Double, height: Double, title: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(fmt(width))\" height=\"\(fmt(height))\" viewBox=\"0 0 \(fmt(width)) \(fmt(height))\" font-family=\"sans-serif\" font-size=\"12\">\n"
            + "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
            + "<text x=\"\(fmt(width / 2))\" y=\"20\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">\(escape(title))</text>\n"
    }

    static func legend(_ names: [String], x: Double, y: Double) -> String {
        var svg = ""
        var cx = x
        for (i, name) in names.enumerated() {
            svg += "<rect x=\"\(fmt(cx))\" y=\"\(fmt(y - 10))\" width=\"12\" height=\"12\" fill=\"\(color(i))\"/>\n"
            svg += "<text x=\"\(fmt(cx + 16))\" y=\"\(fmt(y))\">\(escape(name))</text>\n"
            cx += 30 + 7 * Double(name.count)
        }
        return svg
    }

    static func color(_ i: Int) -> String { palette[i % palette.count] }

    static func fmt(_ v: Double) -> String { NumberFormat.plain((v * 10).rounded() / 10) }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// Where a value falls on an axis, and its tick values.
protocol ChartAxis {
    func fraction(_ v: Double) -> Double
    var ticks: [Double] { get }
}

/// A linear axis from 0 to a round value at or above the largest, with 4 to 5 ticks.
struct LinearAxis: ChartAxis {
    var high: Double
    var step: Double

    init(_ values: [Double]) {
        let top = max(values.max() ?? 1, 1e-12)
        let rough = top / 4
        let magnitude = pow(10, (log10(rough)).rounded(.down))
        step = [1, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= rough } ?? 10 * magnitude
        high = (top / step).rounded(.up) * step
    }

    func fraction(_ v: Double) -> Double { v / high }
    var ticks: [Double] { stride(from: 0, through: high + step / 2, by: step).map { $0 } }
}

/// A logarithmic axis spanning whole decades around positive values.
struct LogAxis: ChartAxis {
    var lowExponent: Int
    var highExponent: Int

    init(_ values: [Double]) {
        guard let lo = values.min(), let hi = values.max() else {
            lowExponent = 0
            highExponent = 1
            return
        }
        lowExponent = Int(log10(lo).rounded(.down))
        highExponent = max(Int(log10(hi).rounded(.up)), lowExponent + 1)
    }

    /// Where `v` falls, 0 at the low end, 1 at the high end.
    func fraction(_ v: Double) -> Double {
        (log10(v) - Double(lowExponent)) / Double(highExponent - lowExponent)
    }

    var ticks: [Double] { (lowExponent...highExponent).map { pow(10, Double($0)) } }
}
