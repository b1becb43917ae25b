import Foundation

/// `results.json`: the `ResultSet` as JSON, keys sorted so files diff well.
public enum JSONFormat {
    public static func encode(_ set: ResultSet) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(set), as: UTF8.self) + "\n"
    }

    /// Reads either form: the full one (with raw samples) or the compact `SummaryJSON`.
    public static func decode(_ text: String) throws -> ResultSet {
        try decode(Data(text.utf8))
    }

    public static func decode(_ data: Data) throws -> ResultSet {
        SummaryJSON.isCompact(data)
            ? try SummaryJSON.decode(data) : try JSONDecoder().decode(ResultSet.self, from: data)
    }
}
