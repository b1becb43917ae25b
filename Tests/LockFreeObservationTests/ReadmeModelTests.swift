import Synchronization
import Testing

@testable import LockFreeObservation

/// The models of the README, declared exactly as it shows them.
private enum Readme {
    final class Author: TrackedObject {
        @Tracked(0) var name = ""
    }

    final class Book: TrackedObject {
        @Tracked(0) var title = ""
        @Tracked var author: Author
        @Tracked(2) var isAvailable = true

        init(title: String, author: Author) {
            _author = Tracked(author, 1)
            super.init()
            self.title = title
        }
    }

    final class Library: TrackedObject {
        @Tracked(0) var books: [Book] = []

        var availableBooksCount: Int { books.filter(\.isAvailable).count }
    }
}

private final class Calls: Sendable {
    let count = Atomic<Int>(0)
    func bump() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

extension RegistrarTests {
    @Suite struct ReadmeModelTests {
        @Test func availableBooksCountIsTrackedThroughBooksAndEachIsAvailable() {
            let author = Readme.Author()
            let library = Readme.Library()
            library.books = (0..<3).map { Readme.Book(title: "Book \($0)", author: author) }
            var fired = [Int]()
            for change in 0..<4 {
                let calls = Calls()
                let count = withTracking({ library.availableBooksCount }, onChange: { calls.bump() })
                #expect(count == library.books.filter(\.isAvailable).count)
                switch change {
                case 0: library.books[1].isAvailable = false
                case 1: library.books.append(Readme.Book(title: "New", author: author))
                case 2: library.books[0].title = "Renamed"  // not read by availableBooksCount
                default: library.books.removeLast()
                }
                fired.append(calls.value)
            }
            #expect(fired == [1, 1, 0, 1])
        }

        @Test func aRowReadingTitleAndAuthorName() {
            let author = Readme.Author()
            author.name = "A"
            let book = Readme.Book(title: "T", author: author)
            let calls = Calls()
            withTracking({ _ = book.title + book.author.name }, onChange: { calls.bump() })
            book.isAvailable = false
            #expect(calls.value == 0)
            author.name = "B"
            #expect(calls.value == 1)
            author.name = "C"
            #expect(calls.value == 1)  // one-shot
        }
    }
}
