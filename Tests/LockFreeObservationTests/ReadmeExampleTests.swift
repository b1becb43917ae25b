import Foundation
import RegistrarTestSupport
import Testing

@testable import LockFreeObservation

/// The README's model example, compiled: the declarations below are the README's, line for line
/// (`theReadmeShowsTheseDeclarations` checks it).
enum ReadmeExample {
    @TrackedModel final class Author: TrackedObject {
        var name = ""
    }

    @TrackedModel final class Book: TrackedObject {
        var title: String
        var author: Author
        var isAvailable = true
        @Untracked var coverCache: [Int: String] = [:]

        init(title: String, author: Author) {
            self.title = title
            self.author = author
        }
    }

    @TrackedModel final class Library: TrackedObject {
        var books: [Book] = []

        var availableBooksCount: Int { books.filter(\.isAvailable).count }
    }
}

extension ReadmeExample {
    /// The README's tracking example, compiled: the body below is the README's code block under
    /// "### Tracking", exactly (`theReadmeShowsThisTrackingExample` checks it).
    static func tracking() {
        let library = Library()
        library.books = [Book(title: "Emma", author: Author())]

        // One-shot, as withObservationTracking: told once, before the first change of what it read.
        withTracking {
            print(library.availableBooksCount)
        } onChange: {
            print("books or one of their isAvailable is about to change")
        }

        // A body that runs again and again (a view's) keeps one ReusableScope: a dependency read
        // again costs a compare and a load, and only what changed between runs touches the objects.
        let scope = ReusableScope(onChange: { print("re-render the count") })
        let count = scope.run { library.availableBooksCount }
        print("available:", count)
        scope.cancel()
    }
}

extension RegistrarTests {
    @Suite struct ReadmeExampleTests {
        @Test func theExampleObservesAvailability() {
            let library = ReadmeExample.Library()
            let book = ReadmeExample.Book(title: "Emma", author: ReadmeExample.Author())
            library.books = [book]
            let told = Counter()
            withTracking {
                _ = library.availableBooksCount
            } onChange: {
                told.bump()
            }
            book.coverCache[1] = "cover"
            #expect(told.value == 0)
            book.isAvailable = false
            #expect(told.value == 1)
        }

        static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()

        @Test func theTrackingExampleRuns() {
            ReadmeExample.tracking()
        }

        /// The README's tracking snippet is the body of `ReadmeExample.tracking()`, exactly.
        @Test func theReadmeShowsThisTrackingExample() throws {
            let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
            let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
            let body = source.components(separatedBy: "    static func tracking() {\n")[1]
                .components(separatedBy: "\n    }\n")[0]
            let compiled = body.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : String($0) }.joined(separator: "\n")
            let section = try #require(readme.components(separatedBy: "### Tracking\n").dropFirst().first)
            let shown = try #require(section.components(separatedBy: "```swift\n").dropFirst().first)
                .components(separatedBy: "\n```")[0]
            #expect(shown == compiled)
        }

        /// The README's snippet declares exactly these models.
        @Test func theReadmeShowsTheseDeclarations() throws {
            let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
            let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
            let declarations = source.components(separatedBy: "enum ReadmeExample {\n")[1]
                .components(separatedBy: "\n}\n")[0]
            // Each line, in this order, after the README's heading for models.
            var rest = Substring(readme.components(separatedBy: "### Declaring a model")[1])
            for line in declarations.split(separator: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard let found = rest.range(of: trimmed) else {
                    Issue.record("README lacks, or has out of order: \(trimmed)")
                    return
                }
                rest = rest[found.upperBound...]
            }
        }
    }
}
