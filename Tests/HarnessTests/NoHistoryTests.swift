import Foundation
import Testing

/// The documents say how things are; what changed, and when, goes in CHANGELOG.md. So README.md,
/// Documentation/ and the sources name no commit and no numbered item of a past list.
@Suite struct NoHistoryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A commit hash: 7 to 40 hex digits with at least one digit and one letter (so no word or plain
    /// number), either alone in backticks or after the word "commit"; `0x` constants never match.
    /// An "item N" reference: "item 3", "items 12 and 13".
    static let patterns: [(what: String, regex: NSRegularExpression)] = [
        ("commit hash", try! NSRegularExpression(pattern: "`(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}`")),
        (
            "commit hash",
            try! NSRegularExpression(
                pattern: "\\b(?i:commits?)\\s+`?(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\\b")
        ),
        ("item reference", try! NSRegularExpression(pattern: "\\b(?i:items?)\\s+[0-9]+\\b")),
    ]

    /// The files checked: README.md, Documentation/ and Sources/, recursively.
    static func files() -> [URL] {
        var files = [root.appendingPathComponent("README.md")]
        for folder in ["Documentation", "Sources"] {
            let enumerator = FileManager.default.enumerator(
                at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                if ["swift", "md", "c", "h"].contains(url.pathExtension) { files.append(url) }
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// `path:line: what: match` for each hit in `text`. The README's generated results block, which
    /// names the commit its figures were measured at (where they come from, not history), is skipped.
    static func hits(in text: String, path: String) -> [String] {
        var hits: [String] = []
        var generated = false
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            if line.contains("<!-- results:begin -->") { generated = true }
            if line.contains("<!-- results:end -->") {
                generated = false
                continue
            }
            if generated { continue }
            let range = NSRange(line.startIndex..., in: line)
            for (what, regex) in patterns {
                for match in regex.matches(in: line, range: range) {
                    hits.append("\(path):\(number + 1): \(what): \((line as NSString).substring(with: match.range))")
                }
            }
        }
        return hits
    }

    @Test func theDocumentsAndSourcesNameNoCommitAndNoItem() throws {
        var hits: [String] = []
        for file in Self.files() {
            let text = try String(contentsOf: file, encoding: .utf8)
            hits += Self.hits(in: text, path: String(file.path.dropFirst(Self.root.path.count + 1)))
        }
        #expect(hits.isEmpty, "history belongs in CHANGELOG.md:\n\(hits.joined(separator: "\n"))")
    }

    @Test func thePatternsCatchHashesAndItemsButNotConstants() {
        let caught = [
            "measured at `6ba685d`", "at commit 6ba685d91ba16612e0bd39757873711cc12da395", "Commit `a955fc8` took",
            "(item 15)", "items 12 and 13", "Item 3 made it",
        ]
        for text in caught { #expect(!Self.hits(in: text, path: "x").isEmpty, "\(text)") }
        let passed = [
            "let mask = 0x00ff00ff00ff", "`0xdeadbeef12`", "`1000000`", "`deadbeef`", "the `committed` baseline",
            "an item of the list", "`listItem 3`", "jemalloc 5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c",
            "<!-- results:begin -->\nat commit `6ba685d`\n<!-- results:end -->",
        ]
        for text in passed { #expect(Self.hits(in: text, path: "x").isEmpty, "\(text)") }
    }
}
