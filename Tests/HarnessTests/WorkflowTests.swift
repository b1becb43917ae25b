import Foundation
import Testing

/// The GitHub Actions workflow (`.github/workflows/bench.yml`) parses, runs the tests and the gate
/// on pull requests, and every command it runs exists in the repository.
@Suite struct WorkflowTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func workflowParsesAndItsCommandsExist() throws {
        let text = try String(
            contentsOf: Self.root.appendingPathComponent(".github/workflows/bench.yml"), encoding: .utf8)
        let workflow = try #require(try MiniYAML.parse(text) as? [String: Any])
        let triggers = try #require(workflow["on"] as? [String: Any])
        #expect(triggers.keys.contains("pull_request"))
        let jobs = try #require(workflow["jobs"] as? [String: Any])
        #expect(!jobs.isEmpty)
        var commands: [String] = []
        var actions: [String] = []
        for case let job as [String: Any] in jobs.values {
            #expect(job["runs-on"] is String)
            let steps = try #require(job["steps"] as? [Any])
            for case let step as [String: Any] in steps {
                #expect(step["name"] is String)
                if let run = step["run"] as? String { commands.append(run) }
                if let uses = step["uses"] as? String { actions.append(uses) }
            }
        }
        #expect(commands == ["scripts/test.sh", "scripts/gate.sh"])
        for command in commands {
            let path = Self.root.appendingPathComponent(String(command.split(separator: " ")[0])).path
            #expect(
                FileManager.default.isExecutableFile(atPath: path), "\(command) is not an executable in the repository")
        }
        #expect(actions.contains { $0.hasPrefix("actions/checkout@") })
        #expect(actions.contains { $0.hasPrefix("actions/upload-artifact@") })
        // .ci/run runs the same two steps.
        let ci = try String(contentsOf: Self.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.contains("scripts/test.sh 2>&1") && ci.contains("\nscripts/gate.sh\n"))
    }

    @Test func parserReadsMappingsListsAndFlowLists() throws {
        let parsed = try #require(
            try MiniYAML.parse(
                """
                # comment
                a: 1
                b:
                  c: [x, y]
                  d:
                    - name: one
                      run: echo "hi"
                    - plain
                """) as? [String: Any])
        #expect(parsed["a"] as? String == "1")
        let b = try #require(parsed["b"] as? [String: Any])
        #expect(b["c"] as? [String] == ["x", "y"])
        let d = try #require(b["d"] as? [Any])
        #expect((d[0] as? [String: Any])?["run"] as? String == "echo \"hi\"")
        #expect(d[1] as? String == "plain")
        #expect(throws: MiniYAML.Failure.self) { try MiniYAML.parse("a: 1\n  b: 2\n") }
    }
}

/// The block-style subset of YAML that workflows use: mappings, lists, flow lists `[a, b]`,
/// scalars, comments. Anything else is a `Failure`, with its line.
enum MiniYAML {
    struct Failure: Error, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "line \(line): \(reason)" }
    }

    typealias Line = (number: Int, indent: Int, text: String)

    static func parse(_ text: String) throws -> Any {
        let lines: [Line] = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
            i, raw in
            let stripped = raw.trimmingCharacters(in: .whitespaces)
            if stripped.isEmpty || stripped.hasPrefix("#") { return nil }
            return (i + 1, raw.prefix { $0 == " " }.count, stripped)
        }
        var index = 0
        let value = try block(lines, &index, indent: lines.first?.indent ?? 0)
        if index < lines.count { throw Failure(line: lines[index].number, reason: "unexpected indentation") }
        return value
    }

    static func block(_ lines: [Line], _ i: inout Int, indent: Int) throws -> Any {
        guard i < lines.count else { return [String: Any]() }
        if lines[i].text.hasPrefix("- ") || lines[i].text == "-" {
            var list: [Any] = []
            while i < lines.count, lines[i].indent == indent, lines[i].text.hasPrefix("-") {
                let rest = lines[i].text.dropFirst().trimmingCharacters(in: .whitespaces)
                if rest.contains(": ") || rest.hasSuffix(":") {
                    // A mapping item: its first key is on the dash's line, the others two deeper.
                    var item = lines
                    item[i] = (lines[i].number, indent + 2, rest)
                    list.append(try mapping(item, &i, indent: indent + 2))
                } else {
                    list.append(scalar(rest))
                    i += 1
                }
            }
            return list
        }
        return try mapping(lines, &i, indent: indent)
    }

    static func mapping(_ lines: [Line], _ i: inout Int, indent: Int) throws -> [String: Any] {
        var map: [String: Any] = [:]
        while i < lines.count, lines[i].indent == indent, !lines[i].text.hasPrefix("- ") {
            let line = lines[i]
            guard let colon = line.text.range(of: ":") else { throw Failure(line: line.number, reason: "no ':'") }
            let key = String(line.text[..<colon.lowerBound])
            let rest = line.text[colon.upperBound...].trimmingCharacters(in: .whitespaces)
            i += 1
            if !rest.isEmpty {
                map[key] = scalar(rest)
            } else if i < lines.count,
                lines[i].indent > indent
                    || (lines[i].indent == indent && lines[i].text.hasPrefix("- "))
            {
                map[key] = try block(lines, &i, indent: lines[i].indent)
            } else {
                map[key] = [String: Any]()
            }
        }
        if i < lines.count, lines[i].indent > indent {
            throw Failure(line: lines[i].number, reason: "unexpected indentation")
        }
        return map
    }

    static func scalar(_ text: String) -> Any {
        if text.hasPrefix("[") && text.hasSuffix("]") {
            return text.dropFirst().dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return text
    }
}
