import Foundation
import Glibc

/// The results folder cannot be written (exit 73).
public struct WriteError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Writes a folder of files atomically: everything goes into a temporary sibling
/// (`<folder>.partial-<pid>`), which is then swapped into place with one `rename` (Linux
/// `RENAME_EXCHANGE` when the folder exists). An interrupted or failed write leaves the previous
/// folder as it was and no half-written file in it.
public enum ResultsWriter {
    /// Fails early, before any measuring, when `folder` could not be written later, or is not
    /// `bench`'s to replace (`checkReplaceable`).
    public static func checkWritable(_ folder: String) throws(WriteError) {
        try checkNotAFile(folder)
        try checkReplaceable(folder)
        let temporary = partialPath(folder)
        do {
            try FileManager.default.createDirectory(atPath: parent(of: folder), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
            try FileManager.default.removeItem(atPath: temporary)
        } catch {
            throw WriteError(message: "cannot write results to '\(folder)': \(reason(error))")
        }
    }

    /// Replaces `folder` with one holding exactly `files` (file name -> contents). Refused where
    /// the folder holds anything `bench` does not write (`checkReplaceable`).
    public static func write(_ files: [(name: String, contents: String)], to folder: String) throws(WriteError) {
        try checkNotAFile(folder)
        try checkReplaceable(folder)
        let temporary = partialPath(folder)
        let fm = FileManager.default
        do {
            try? fm.removeItem(atPath: temporary)
            try fm.createDirectory(atPath: parent(of: folder), withIntermediateDirectories: true)
            try fm.createDirectory(atPath: temporary, withIntermediateDirectories: false)
            for file in files {
                try Data(file.contents.utf8).write(to: URL(fileURLWithPath: temporary + "/" + file.name))
            }
        } catch {
            try? fm.removeItem(atPath: temporary)
            throw WriteError(message: "cannot write results to '\(folder)': \(reason(error))")
        }
        if fm.fileExists(atPath: folder) {
            if exchange(temporary, folder) {
                try? fm.removeItem(atPath: temporary)  // now the previous folder
                return
            }
            // No RENAME_EXCHANGE (e.g. an old kernel or filesystem): move the old folder aside first.
            let old = folder + ".old-\(getpid())"
            // `errno` is read before the clean-up, which may change it.
            guard rename(folder, old) == 0 else {
                let why = String(cString: strerror(errno))
                try? fm.removeItem(atPath: temporary)
                throw WriteError(message: "cannot replace '\(folder)': \(why)")
            }
            guard rename(temporary, folder) == 0 else {
                let why = String(cString: strerror(errno))
                _ = rename(old, folder)
                try? fm.removeItem(atPath: temporary)
                throw WriteError(message: "cannot replace '\(folder)': \(why)")
            }
            try? fm.removeItem(atPath: old)
        } else if rename(temporary, folder) != 0 {
            let why = String(cString: strerror(errno))
            try? fm.removeItem(atPath: temporary)
            throw WriteError(message: "cannot create '\(folder)': \(why)")
        }
    }

    /// Writes one file atomically (temporary name in the same folder, then `rename`).
    public static func writeFile(_ contents: String, to path: String) throws(WriteError) {
        let temporary = path + ".partial-\(getpid())"
        do {
            try FileManager.default.createDirectory(atPath: parent(of: path), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: URL(fileURLWithPath: temporary))
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw WriteError(message: "cannot write '\(path)': \(reason(error))")
        }
        guard rename(temporary, path) == 0 else {
            let why = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw WriteError(message: "cannot write '\(path)': \(why)")
        }
    }

    /// Whether `name` is a file `bench` writes into a results folder: what a run replaces.
    public static func isResultsFile(_ name: String) -> Bool {
        let names: Set<String> = [
            "results.json", "results.csv", "samples.json", "resume.json", "gate.md", "report.md",
            "github-action-benchmark.json",
        ]
        return names.contains(name) || (name.hasPrefix("report-") && name.hasSuffix(".md")) || name.hasSuffix(".svg")
    }

    /// A run replaces its output folder whole, so the folder must be one `bench` may replace: one
    /// that does not exist yet, or an existing folder holding nothing but the files `bench` writes
    /// (`isResultsFile`): no folder inside it (`results/`, with `baselines/` and `thresholds/`, is
    /// refused), no file of anyone else's (`.`, a home folder, a desktop). The working directory
    /// and the folders above it, and a mount point, cannot be replaced by a rename: refused too.
    static func checkReplaceable(
        _ folder: String, workingDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(WriteError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            return
        }
        let resolved = URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path
        let here = URL(fileURLWithPath: workingDirectory).resolvingSymlinksInPath().path
        if resolved == "/" || here == resolved || here.hasPrefix(resolved.hasSuffix("/") ? resolved : resolved + "/") {
            throw WriteError(
                message: "cannot write results to '\(folder)': it is the working directory or a folder above it, "
                    + "which a run (replacing its output folder whole) cannot replace; give a folder of its own")
        }
        let entries: [String]
        do { entries = try FileManager.default.contentsOfDirectory(atPath: folder) } catch {
            throw WriteError(message: "cannot write results to '\(folder)': \(reason(error))")
        }
        let foreign = entries.filter { entry in
            var entryIsFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder + "/" + entry, isDirectory: &entryIsFolder)
            return entryIsFolder.boolValue || !isResultsFile(entry)
        }.sorted()
        if !foreign.isEmpty {
            let named = foreign.prefix(3).map { "'\($0)'" }.joined(separator: ", ")
            let more = foreign.count > 3 ? " and \(foreign.count - 3) more" : ""
            throw WriteError(
                message: "cannot write results to '\(folder)': it holds \(named)\(more), which bench did not write; "
                    + "a run replaces its output folder whole, so give a new folder or an earlier run's")
        }
        var folderStat = stat()
        var parentStat = stat()
        if stat(folder, &folderStat) == 0, stat(parent(of: resolved), &parentStat) == 0,
            folderStat.st_dev != parentStat.st_dev
        {
            throw WriteError(
                message: "cannot write results to '\(folder)': it is a mount point, which a rename cannot replace")
        }
    }

    /// Swapping a folder with a file the user named by mistake would delete the file: refuse.
    static func checkNotAFile(_ folder: String) throws(WriteError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), !isFolder.boolValue {
            throw WriteError(message: "cannot write results to '\(folder)': it exists and is not a folder")
        }
    }

    /// Swaps two paths atomically with `renameat2(RENAME_EXCHANGE)`, looked up at run time because
    /// Glibc's Swift module does not export it (it needs `_GNU_SOURCE`).
    static func exchange(_ a: String, _ b: String) -> Bool {
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return false }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let renameExchange: UInt32 = 2  // RENAME_EXCHANGE in <linux/fs.h>
        return renameat2(AT_FDCWD, a, AT_FDCWD, b, renameExchange) == 0
    }

    static func partialPath(_ folder: String) -> String {
        var f = folder
        while f.count > 1 && f.hasSuffix("/") { f.removeLast() }
        return f + ".partial-\(getpid())"
    }

    static func parent(of path: String) -> String {
        let p = (path as NSString).deletingLastPathComponent
        return p.isEmpty ? "." : p
    }

    static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return ns.localizedDescription
    }
}
