import Foundation
import Glibc

/// Where a command writes: stdout, stderr, and whether stderr is a terminal (for progress lines).
/// Tests pass a console that records.
public struct Console: Sendable {
    public var out: @Sendable (String) -> Void
    public var err: @Sendable (String) -> Void
    public var interactive: Bool

    public init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void, interactive: Bool)
    {
        self.out = out
        self.err = err
        self.interactive = interactive
    }

    /// stdout and stderr. A write that fails (a reader gone: `bench check | head`, a closed
    /// terminal) is dropped: the command goes on to write its files (`bench` ignores SIGPIPE).
    public static let standard = Console(
        out: { writeAll(1, $0) }, err: { writeAll(2, $0) }, interactive: isatty(2) == 1)

    /// Writes all of `text` to `fd`, retrying what is interrupted; gives up at the first error.
    static func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes = bytes.dropFirst(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
