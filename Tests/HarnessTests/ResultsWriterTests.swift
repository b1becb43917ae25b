import Foundation
import Testing

@testable import Harness

func temporaryFolder() -> String {
    let path = NSTemporaryDirectory() + "harness-tests-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func read(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}

@Suite struct ResultsWriterTests {
    @Test func replacesTheWholeFolder() throws {
        let root = temporaryFolder()
        let folder = root + "/results/latest"
        try ResultsWriter.write([("a.txt", "one"), ("b.txt", "two")], to: folder)
        try ResultsWriter.write([("a.txt", "three")], to: folder)
        #expect(read(folder + "/a.txt") == "three")
        #expect(read(folder + "/b.txt") == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/results") == ["latest"])
    }

    @Test func failedWriteKeepsPreviousResults() throws {
        let root = temporaryFolder()
        let folder = root + "/latest"
        try ResultsWriter.write([("results.csv", "old")], to: folder)
        #expect(throws: WriteError.self) {
            try ResultsWriter.write([("results.csv", "new"), ("missing-dir/report.md", "x")], to: folder)
        }
        #expect(read(folder + "/results.csv") == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["latest"])  // no partial folder left
    }

    @Test func unwritableFolderIsDetectedUpFront() throws {
        let root = temporaryFolder()
        try Data("a file".utf8).write(to: URL(fileURLWithPath: root + "/file"))
        #expect(throws: WriteError.self) { try ResultsWriter.checkWritable(root + "/file/latest") }
        #expect(throws: WriteError(message: "cannot write results to '\(root)/file': it exists and is not a folder")) {
            try ResultsWriter.checkWritable(root + "/file")
        }
        #expect(read(root + "/file") == "a file")
        try ResultsWriter.checkWritable(root + "/new/latest")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/new") == [])
    }

    @Test func writesOneFileAtomically() throws {
        let root = temporaryFolder()
        try ResultsWriter.writeFile("x", to: root + "/deep/er/f.json")
        try ResultsWriter.writeFile("y", to: root + "/deep/er/f.json")
        #expect(read(root + "/deep/er/f.json") == "y")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/deep/er") == ["f.json"])
    }
}
