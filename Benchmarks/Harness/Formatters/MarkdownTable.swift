/// A Markdown (GitHub) table. Cells have `|` escaped and newlines flattened.
public struct MarkdownTable: Sendable, Equatable {
    public var header: [String]
    public var rows: [[String]]
    /// Per column: right-align (numbers) or not.
    public var rightAligned: Set<Int>

    public init(header: [String], rows: [[String]] = [], rightAligned: Set<Int> = []) {
        self.header = header
        self.rows = rows
        self.rightAligned = rightAligned
    }

    public var text: String {
        func line(_ cells: [String]) -> String { "| " + cells.map(Self.escape).joined(separator: " | ") + " |" }
        let rule = "|" + header.indices.map { rightAligned.contains($0) ? "---:" : "---" }.joined(separator: "|") + "|"
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    static func escape(_ cell: String) -> String {
        cell.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
