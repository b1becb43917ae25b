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

    public static let standard = Console(
        out: { text in
            FileHandle.standardOutput.write(Data(text.utf8))
        },
        err: { FileHandle.standardError.write(Data($0.utf8)) }, interactive: isatty(2) == 1)
}
