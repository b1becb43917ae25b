import Foundation

/// `results.json`: the `ResultSet` as JSON, keys sorted so files diff well.
public enum JSONFormat {
    public static func encode(_ set: ResultSet) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(set), as: UTF8.self) + "\n"
    }

    public static func decode(_ text: String) throws -> ResultSet {
        try JSONDecoder().decode(ResultSet.self, from: Data(text.utf8))
    }
}
