import LockFreeObservation
import RegistrarTestSupport
import Testing

// The models of Apple's "Managing model data in your app", declared with the lock-free registrar
// as `Benchmarks/Workloads/Contenders/LockFreeContender.swift` declares them: `@Observable class`
// becomes a `@TrackedModel` subclass of `TrackedObject`.

@TrackedModel final class Author: TrackedObject {
    var name = ""
    init(name: String) {
        super.init()
        self.name = name
    }
}

@TrackedModel final class Book: TrackedObject {
    let id: Int
    var title = ""
    var author: Author
    var isAvailable = true
    var isSelected = false

    init(id: Int, title: String, author: Author, isAvailable: Bool) {
        self.id = id
        self.author = author
        super.init()
        self.title = title
        self.isAvailable = isAvailable
    }
}

@TrackedModel final class Library: TrackedObject {
    var books: [Book] = []
    var selectedID = -1

    init(books: [Book]) {
        super.init()
        self.books = books
    }

    var availableBooksCount: Int {
        var count = 0
        for book in books where book.isAvailable { count += 1 }
        return count
    }
}

extension RegistrarTests {
    @Suite struct AppleDocumentationModelTests {
        /// Ten books, every third one unavailable (0, 3, 6, 9): 6 available.
        static func makeLibrary() -> (Library, [Book], Author) {
            let author = Author(name: "Ann")
            let books = (0..<10).map { Book(id: $0, title: "Book \($0)", author: author, isAvailable: $0 % 3 != 0) }
            return (Library(books: books), books, author)
        }

        enum Change: String, CaseIterable, Sendable {
            case makeAvailable, makeUnavailable, appendAvailable, appendUnavailable, removeAvailable, removeUnavailable
            case swap, replace
            case renameTitle, renameAuthor, select, selectBook, equalAvailability, equalBooks
        }

        /// availableBooksCount tracks `books` and the `isAvailable` of every book it read, nothing else.
        @Test(arguments: Change.allCases)
        func availableBooksCountTracking(_ change: Change) {
            let (library, books, author) = Self.makeLibrary()
            let fired = Counter()
            let (count, token) = withCancellableTracking({ library.availableBooksCount }, onChange: { fired.bump() })
            #expect(count == 6)
            let expected: (fires: Int, count: Int)
            switch change {
            case .makeAvailable:
                books[3].isAvailable = true
                expected = (1, 7)
            case .makeUnavailable:
                books[4].isAvailable = false
                expected = (1, 5)
            case .appendAvailable:
                library.books.append(Book(id: 10, title: "New", author: author, isAvailable: true))
                expected = (1, 7)
            case .appendUnavailable:
                library.books.append(Book(id: 10, title: "New", author: author, isAvailable: false))
                expected = (1, 6)
            case .removeAvailable:
                library.books.remove(at: 1)
                expected = (1, 5)
            case .removeUnavailable:
                library.books.remove(at: 0)
                expected = (1, 6)
            case .swap:
                library.books.swapAt(0, 9)
                expected = (1, 6)
            case .replace:
                library.books[0] = Book(id: 10, title: "New", author: author, isAvailable: true)
                expected = (1, 7)
            case .renameTitle:
                books[1].title = "Renamed"
                expected = (0, 6)
            case .renameAuthor:
                author.name = "Bob"
                expected = (0, 6)
            case .select:
                library.selectedID = 4
                expected = (0, 6)
            case .selectBook:
                books[4].isSelected = true
                expected = (0, 6)
            case .equalAvailability:
                books[4].isAvailable = true
                expected = (0, 6)
            // `[Book]` is neither `Equatable` nor a class: as with Observation, the write tells.
            case .equalBooks:
                library.books = books
                expected = (1, 6)
            }
            #expect(fired.value == expected.fires)
            #expect(token.isArmed == (expected.fires == 0))
            #expect(library.availableBooksCount == expected.count)
            token.cancel()
        }

        /// A removed book is no longer a dependency once the count is evaluated again.
        @Test func aRemovedBookIsNotTrackedAfterReevaluation() {
            let (library, books, _) = Self.makeLibrary()
            let removed = library.books.remove(at: 1)
            #expect(removed === books[1])
            let fired = Counter()
            let (count, token) = withCancellableTracking({ library.availableBooksCount }, onChange: { fired.bump() })
            #expect(count == 5)
            removed.isAvailable = false
            #expect(fired.value == 0)
            books[2].isAvailable = false
            #expect(fired.value == 1)
            #expect(!token.isArmed)
        }

        /// A row reading one book's title, author name and availability: its own book only.
        @Test func bookRowDependsOnItsOwnBook() {
            let (_, books, author) = Self.makeLibrary()
            let observer = CountingObserver()
            let (text, token) = withTracking(
                {
                    "\(books[2].title) by \(books[2].author.name)\(books[2].isAvailable ? "" : " (out)")"
                }, notifying: observer)
            #expect(text == "Book 2 by Ann")
            books[1].title = "Other"
            books[3].isAvailable = true
            #expect(observer.count == 0)
            author.name = "Bob"
            #expect(observer.count == 1)
            books[2].title = "Again"
            #expect(observer.count == 1)
            #expect(!token.isArmed)
        }
    }
}
