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

        /// The README's snippet declares exactly these models.
        @Test func theReadmeShowsTheseDeclarations() throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
            let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
            let declarations = source.components(separatedBy: "enum ReadmeExample {\n")[1]
                .components(separatedBy: "\n}\n")[0]
            // Each line, in this order, after the README's heading for models.
            var rest = Substring(readme.components(separatedBy: "## Declaring a model")[1])
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
