import Foundation
import Testing

@testable import Harness

// The output-format example of Documentation/Extending.md, compiled; the doc quotes the code between
// `// region format` and `// endregion format` exactly (`ExtendingDocTests` checks it).

// region format
/// `results.tsv`: one line per benchmark, contender and metric, with its p50, for a spreadsheet.
enum TSVFormat {
    static let header = ["benchmark", "contender", "metric", "unit", "p50"]

    static func format(_ set: ResultSet) -> String {
        var lines = [header.joined(separator: "\t")]
        for result in set.results {
            for metric in result.metrics {
                let fields = [
                    result.benchmark, result.contender, metric.name, metric.unit,
                    NumberFormat.plain(metric.summary.p50),
                ]
                lines.append(fields.joined(separator: "\t"))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
// endregion format

@Suite struct ExtendingFormatExampleTests {
    // region format-test
    @Test func tsvHasOneLinePerMetric() {
        let expected = """
            benchmark\tcontender\tmetric\tunit\tp50
            books/toggle/n=10\tlockfree\ttime\tns\t13
            books/toggle/n=10\tlockfree\tmallocs\tcount\t1
            books/toggle/n=10\tlockfree\tinvalidations\tcount\t2
            books/toggle/n=10\tapple\ttime\tns\t23
            books/toggle/n=10\tapple\tmallocs\tcount\t1
            books/toggle/n=10\tapple\tinvalidations\tcount\t2

            """
        #expect(TSVFormat.format(sampleSet()) == expected)
    }
    // endregion format-test
}

/// Documentation/Extending.md quotes its worked examples from the test files that compile them:
/// every Swift block in it follows a `<!-- compiled: PATH#REGION -->` line and equals that region.
@Suite struct ExtendingDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The lines between `// region NAME` and `// endregion NAME`, without nested region markers,
    /// dedented by the first line's indentation.
    static func region(_ name: String, in path: String) throws -> String? {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// region \(name)" }),
            let end = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "// endregion \(name)" }),
            start < end
        else { return nil }
        let body = lines[(start + 1)..<end].filter {
            let trimmed = $0.trimmingCharacters(in: .whitespaces)
            return !trimmed.hasPrefix("// region ") && !trimmed.hasPrefix("// endregion ")
        }
        let indent = body.first.map { $0.prefix(while: { $0 == " " }).count } ?? 0
        return body.map { $0.count >= indent ? String($0.dropFirst(indent)) : $0 }.joined(separator: "\n")
    }

    /// Each Swift block of the doc, with the marker before it (nil when there is none).
    static func blocks() throws -> [(marker: String?, code: String)] {
        let doc = try String(contentsOf: root.appendingPathComponent("Documentation/Extending.md"), encoding: .utf8)
        var blocks: [(String?, String)] = []
        var marker: String?
        var code: [String]?
        for line in doc.components(separatedBy: "\n") {
            if var open = code {
                if line == "```" {
                    blocks.append((marker, open.joined(separator: "\n")))
                    code = nil
                    marker = nil
                } else {
                    open.append(line)
                    code = open
                }
            } else if line == "```swift" {
                code = []
            } else if line.hasPrefix("<!-- compiled: ") && line.hasSuffix(" -->") {
                marker = String(line.dropFirst("<!-- compiled: ".count).dropLast(" -->".count))
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                marker = nil
            }
        }
        return blocks
    }

    @Test func everySwiftBlockIsACompiledRegion() throws {
        let blocks = try Self.blocks()
        #expect(blocks.count >= 4)
        for (marker, code) in blocks {
            guard let marker, let hash = marker.firstIndex(of: "#") else {
                Issue.record("a Swift block without a <!-- compiled: PATH#REGION --> line before it:\n\(code)")
                continue
            }
            let path = String(marker[..<hash])
            let name = String(marker[marker.index(after: hash)...])
            let region = try Self.region(name, in: path)
            #expect(region != nil, "\(path) has no region \(name)")
            #expect(region == code, "Documentation/Extending.md's block for \(marker) differs from the compiled code")
        }
    }
}
