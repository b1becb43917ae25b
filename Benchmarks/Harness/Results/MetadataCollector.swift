import Foundation
import Glibc

/// Gathers `RunMetadata` for the current process.
public enum MetadataCollector {
    /// The compiler version this code was built with. Compile-time: run time has no `swift`.
    public static var toolchain: String {
        #if compiler(>=6.5)
            "6.5+"
        #elseif compiler(>=6.4)
            "6.4"
        #elseif compiler(>=6.3.2)
            "6.3.2"
        #elseif compiler(>=6.3.1)
            "6.3.1"
        #elseif compiler(>=6.3)
            "6.3"
        #elseif compiler(>=6.2)
            "6.2"
        #else
            "older than 6.2"
        #endif
    }

    public static func collect(
        command: [String], mode: String, faultInjections: [String] = [], date: Date = Date()
    ) -> RunMetadata {
        var metadata = RunMetadata(
            date: ISO8601DateFormatter().string(from: date), command: reproducible(command), machine: machine(),
            cpu: cpuModel(),
            cores: ProcessInfo.processInfo.activeProcessorCount, toolchain: toolchain,
            toolchainOnPath: firstLine(of: ["swift", "--version"]) ?? "unknown",
            allocator: AllocationCounter.allocatorName, allocationNote: AllocationCounter.unavailableReason,
            gitCommit: gitCommit(), mode: mode,
            instructionCounter: InstructionCounter.tool.map { "callgrind (\($0))" },
            instructionNote: InstructionCounter.unavailableReason,
            faultInjections: faultInjections.isEmpty ? nil : faultInjections)
        metadata.build = buildIdentity
        metadata.host = hostName()
        return metadata
    }

    /// This executable's identity: FNV-1a (64 bits, hex) of its bytes, read once. Two builds of
    /// different code differ; a rebuild of the same code may not, which is what `--resume` needs.
    public static let buildIdentity: String = {
        guard let data = FileManager.default.contents(atPath: "/proc/self/exe") else { return "unknown" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        data.withUnsafeBytes { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
        }
        return "fnv1a64:" + String(hash, radix: 16)
    }()

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Now, ISO 8601, UTC.
    static func now() -> String { ISO8601DateFormatter().string(from: Date()) }

    /// The command as a user reruns it: `swift run -c release bench ARGS`, without the path of the
    /// binary (which names this machine's folders).
    static func reproducible(_ command: [String]) -> [String] {
        ["swift", "run", "-c", "release", "bench"] + command.dropFirst()
    }

    static func machine() -> String {
        var u = utsname()
        guard uname(&u) == 0 else { return "unknown" }
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return "\(field(u.sysname)) \(field(u.release)) \(field(u.machine))"
    }

    static func cpuModel() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }

    static func gitCommit() -> String {
        guard let head = firstLine(of: ["git", "rev-parse", "HEAD"]), !head.isEmpty else { return "unknown" }
        let status = output(of: ["git", "status", "--porcelain", "--untracked-files=no"]) ?? ""
        return status.isEmpty ? head : head + "-dirty"
    }

    static func firstLine(of command: [String]) -> String? {
        output(of: command)?.split(separator: "\n").first.map(String.init)
    }

    /// Standard output of `command` (looked up on PATH), or `nil` when it cannot run or fails.
    static func output(of command: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
