import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockFreeObservation

private final class Calls: Sendable {
    let count = Atomic<Int>(0)
    func bump() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

extension RegistrarTests {
    @Suite struct ReadmeModelTests {
        @Test func availableBooksCountIsTrackedThroughBooksAndEachIsAvailable() {
            let author = ReadmeExample.Author()
            let library = ReadmeExample.Library()
            library.books = (0..<3).map { ReadmeExample.Book(title: "Book \($0)", author: author) }
            var fired = [Int]()
            for change in 0..<4 {
                let calls = Calls()
                let count = withTracking({ library.availableBooksCount }, onChange: { calls.bump() })
                #expect(count == library.books.filter(\.isAvailable).count)
                switch change {
                case 0: library.books[1].isAvailable = false
                case 1: library.books.append(ReadmeExample.Book(title: "New", author: author))
                case 2: library.books[0].title = "Renamed"  // not read by availableBooksCount
                default: library.books.removeLast()
                }
                fired.append(calls.value)
            }
            #expect(fired == [1, 1, 0, 1])
        }

        @Test func aRowReadingTitleAndAuthorName() {
            let author = ReadmeExample.Author()
            author.name = "A"
            let book = ReadmeExample.Book(title: "T", author: author)
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
