/// The values a parameter takes, declared by its family and checked before anything runs: a value
/// outside them is a usage error (exit 64) that names the parameter, the value and what it takes.
public enum ParameterKind: Sendable, Equatable, CustomStringConvertible {
    /// A whole number in the range.
    case integer(ClosedRange<Int>)
    /// A decimal number in the range.
    case number(ClosedRange<Double>)
    /// One of the listed values, exactly as written.
    case oneOf([String])
    /// Any non-empty text without `/` (it becomes part of the benchmark's name).
    case text

    public var description: String {
        switch self {
        case .integer(let range): "an integer in \(range.lowerBound)...\(range.upperBound)"
        case .number(let range):
            "a number in \(NumberFormat.plain(range.lowerBound))...\(NumberFormat.plain(range.upperBound))"
        case .oneOf(let values): "one of \(values.joined(separator: ", "))"
        case .text: "non-empty text without '/'"
        }
    }

    /// Whether `value` is one of this kind's values.
    public func accepts(_ value: String) -> Bool {
        switch self {
        case .integer(let range): Int(value).map(range.contains) ?? false
        case .number(let range): Double(value).map { $0.isFinite && range.contains($0) } ?? false
        case .oneOf(let values): values.contains(value)
        case .text: !value.isEmpty && !value.contains("/")
        }
    }

    /// The values at this kind's bounds, which it accepts, and the values one past them, which it
    /// refuses: what a test tries for every declared parameter.
    public var boundaries: (accepted: [String], refused: [String]) {
        switch self {
        case .integer(let range):
            (
                [range.lowerBound, range.upperBound].map(String.init),
                [range.lowerBound - 1, range.upperBound + 1].map(String.init) + ["1.5", "x"]
            )
        case .number(let range):
            (
                [range.lowerBound, range.upperBound].map { NumberFormat.plain($0) },
                [range.lowerBound - 0.001, range.upperBound + 0.001].map { NumberFormat.plain($0) } + ["nan", "x"]
            )
        case .oneOf(let values): (values, ["", values.joined(separator: "+")])
        case .text: (["a"], ["", "a/b"])
        }
    }
}

/// One `key=value` parameter.
public struct ParameterEntry: Sendable, Hashable, Codable {
    public var key: String
    public var value: String
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// Ordered `key=value` parameters: of one benchmark run, of a child request, of a result, and the
/// `--param` overrides of a selection. Encoded as an array of `{key, value}` objects.
public struct Parameters: Sendable, Hashable, Codable {
    public var entries: [ParameterEntry]

    /// Declaration form: `Parameters([("n", "1000"), ("visible", "50")])`.
    public init(_ entries: [(String, String)] = []) {
        self.entries = entries.map { ParameterEntry(key: $0.0, value: $0.1) }
    }

    public init(entries: [ParameterEntry]) { self.entries = entries }

    public init(from decoder: any Decoder) throws {
        entries = try decoder.singleValueContainer().decode([ParameterEntry].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(entries)
    }

    public subscript(key: String) -> String? {
        get { entries.first { $0.key == key }?.value }
        set {
            if let i = entries.firstIndex(where: { $0.key == key }) {
                if let newValue { entries[i].value = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append(ParameterEntry(key: key, value: newValue))
            }
        }
    }

    /// The integer value of `key`, or `fallback` when absent. Values were validated before `make`.
    public func int(_ key: String, default fallback: Int) -> Int {
        self[key].flatMap { Int($0) } ?? fallback
    }

    /// The number value of `key`, or `fallback` when absent.
    public func double(_ key: String, default fallback: Double) -> Double {
        self[key].flatMap { Double($0) } ?? fallback
    }
}
