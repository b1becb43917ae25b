import CCallgrind
import Foundation
import Synchronization

/// Instructions executed per operation, counted by valgrind's callgrind: a count, not a time, so it
/// repeats exactly for the same binary and inputs however busy the machine is. That makes it the
/// gate's measure of speed for benchmarks that declare `instructionOperations`.
///
/// The instruction pass runs one child per contender under `valgrind --tool=callgrind
/// --collect-atstart=no` for all of its runs that declare it (valgrind takes over a second to
/// start; `Runner.countInstructions`); for each run the child
/// zeroes the counters and starts collecting just before the measured region
/// (`bench_callgrind_begin`), stops and dumps just after (`bench_callgrind_end`, naming the dump
/// after the run), and the parent reads each dump's `totals:` line. Unavailable (reported, never 0) when valgrind is not on PATH or
/// its header (`valgrind/callgrind.h`) was missing when `bench` was built.
public enum InstructionCounter {
    /// Why instruction counts cannot be measured here; `nil` when they can.
    public static let unavailableReason: String? = {
        if bench_callgrind_built() == 0 {
            return "bench was built without valgrind's header (apt-get install valgrind, then rebuild)"
        }
        if valgrindPath == nil { return "valgrind is not on PATH (apt-get install valgrind)" }
        return nil
    }()

    /// `valgrind-3.19.0`-style version, or `nil` when unavailable.
    public static let tool: String? =
        unavailableReason == nil
        ? MetadataCollector.firstLine(of: ["valgrind", "--version"]) : nil

    /// The first `valgrind` executable on PATH.
    static let valgrindPath: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/valgrind" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// A copy of `executable` without debug information, made once per process with
    /// `objcopy --strip-debug` and removed at exit: valgrind 3.19 cannot read the DWARF 5 that
    /// Swift 6.3 emits and gives up on the whole program; it needs no symbols to count.
    static func executableForValgrind(_ executable: String) -> Result<String, PassFailure> {
        strippedCopies.withLock { copies in
            if let copy = copies[executable] { return .success(copy) }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bench-callgrind-\(getpid())-\(copies.count)")
            let copy = folder.appendingPathComponent("bench").path
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            guard MetadataCollector.output(of: ["objcopy", "--strip-debug", executable, copy]) != nil else {
                return .failure(PassFailure("objcopy --strip-debug failed (apt-get install binutils)"))
            }
            copies[executable] = copy
            if copies.count == 1 { atexit { InstructionCounter.removeCopies() } }
            return .success(copy)
        }
    }

    private static let strippedCopies = Mutex<[String: String]>([:])

    private static func removeCopies() {
        for copy in strippedCopies.withLock({ Array($0.values) }) {
            try? FileManager.default.removeItem(atPath: (copy as NSString).deletingLastPathComponent)
        }
    }

    /// Why a pass could not run.
    struct PassFailure: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// Whether this process runs under valgrind (the child side of the instruction pass).
    static var runningUnderValgrind: Bool { bench_running_on_valgrind() != 0 }

    /// Counts the instructions `body` executes, when running under callgrind with collection off
    /// at start. The count itself is read by the parent from the dump.
    static func measure<T>(region: String, _ body: () throws -> T) rethrows -> T {
        bench_callgrind_begin()
        defer { bench_callgrind_end(region) }
        return try body()
    }

    /// The name of the dump of the `index`th run of a batch.
    static func regionName(_ index: Int) -> String { "bench region \(index)" }

    /// The region index a dump names in its `desc: Trigger: Client Request:` line.
    public static func region(ofDump text: String) -> Int? {
        let prefix = "desc: Trigger: Client Request: bench region "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        return Int(line.dropFirst(prefix.count))
    }

    /// The arguments that run `executable arguments` under callgrind, dumping to `outFile`.
    static func valgrindArguments(outFile: String, executable: String, arguments: [String]) -> [String] {
        ["--tool=callgrind", "--collect-atstart=no", "--callgrind-out-file=\(outFile)", "--quiet", executable]
            + arguments
    }

    /// The instruction total of a callgrind dump: its `totals:` line (or `summary:` in older
    /// formats), first event (`Ir`).
    public static func total(ofDump text: String) -> UInt64? {
        for line in text.split(separator: "\n") where line.hasPrefix("totals:") || line.hasPrefix("summary:") {
            let fields = line.split(separator: " ")
            if fields.count >= 2, let value = UInt64(fields[1]) { return value }
        }
        return nil
    }
}
