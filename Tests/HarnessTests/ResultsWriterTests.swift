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
        try ResultsWriter.write([("results.json", "one"), ("report.md", "two")], to: folder)
        try ResultsWriter.write([("results.json", "three")], to: folder)
        #expect(read(folder + "/results.json") == "three")
        #expect(read(folder + "/report.md") == nil)
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

    /// A run replaces its output folder whole: a folder that holds anything bench does not write
    /// (a user's file, a folder such as `results/baselines`) is refused before measuring, and
    /// left as it was; an earlier run's folder, or an empty one, is replaced.
    @Test func neverReplacesAFolderHoldingWhatBenchDidNotWrite() throws {
        let root = temporaryFolder()
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/desktop", withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: root + "/desktop/notes.txt"))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: root + "/desktop/results.json"))
        let refusal = WriteError(
            message: "cannot write results to '\(root)/desktop': it holds 'notes.txt', which bench did not write; "
                + "a run replaces its output folder whole, so give a new folder or an earlier run's")
        #expect(throws: refusal) { try ResultsWriter.checkWritable(root + "/desktop") }
        #expect(throws: refusal) { try ResultsWriter.write([("results.json", "new")], to: root + "/desktop") }
        #expect(read(root + "/desktop/notes.txt") == "keep me")
        #expect(read(root + "/desktop/results.json") == "{}")

        // `results/`: its baselines and thresholds are folders of their own.
        try ResultsWriter.write([("results.json", "run")], to: root + "/results/latest")
        try ResultsWriter.writeFile("{}", to: root + "/results/baselines/ci-quick.json")
        try ResultsWriter.writeFile("{}", to: root + "/results/thresholds/6.3.json")
        #expect(throws: WriteError.self) { try ResultsWriter.checkWritable(root + "/results") }
        #expect(throws: WriteError.self) { try ResultsWriter.checkWritable(root + "/results/baselines") }
        #expect(read(root + "/results/baselines/ci-quick.json") == "{}")

        // An earlier run's folder (every file of every format), and an empty one, are bench's.
        let every = [
            "results.json", "results.csv", "samples.json", "resume.json", "gate.md", "report.md",
            "report-books.md", "books-time.svg", "github-action-benchmark.json",
        ]
        try ResultsWriter.write(every.map { ($0, "x") }, to: root + "/results/latest")
        try ResultsWriter.checkWritable(root + "/results/latest")
        try ResultsWriter.write([("results.json", "again")], to: root + "/results/latest")
        #expect(try fm.contentsOfDirectory(atPath: root + "/results/latest") == ["results.json"])
        try fm.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        try ResultsWriter.checkWritable(root + "/empty")
    }

    /// The working directory and the folders above it cannot be swapped by a rename: refused
    /// before measuring, not after the run.
    @Test func theWorkingDirectoryIsRefusedUpFront() throws {
        let root = temporaryFolder()
        try FileManager.default.createDirectory(atPath: root + "/work/latest", withIntermediateDirectories: true)
        for folder in [root + "/work", root + "/work/", root + "/work/latest/..", root, "/"] {
            #expect(throws: WriteError.self) {
                try ResultsWriter.checkReplaceable(folder, workingDirectory: root + "/work")
            }
        }
        try ResultsWriter.checkReplaceable(root + "/work/latest", workingDirectory: root + "/work")
        // This process's own working directory, as `--output .` names it.
        #expect(throws: WriteError.self) { try ResultsWriter.checkWritable(".") }
    }

    @Test func writesOneFileAtomically() throws {
        let root = temporaryFolder()
        try ResultsWriter.writeFile("x", to: root + "/deep/er/f.json")
        try ResultsWriter.writeFile("y", to: root + "/deep/er/f.json")
        #expect(read(root + "/deep/er/f.json") == "y")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/deep/er") == ["f.json"])
    }
}
