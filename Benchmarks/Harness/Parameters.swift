/// The kind of value a parameter takes.
public enum ParameterKind: Sendable {
    case integer, number, text
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
