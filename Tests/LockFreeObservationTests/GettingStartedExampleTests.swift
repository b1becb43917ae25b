import LockFreeObservation
import RegistrarTestSupport
import Testing

/// The row view of the documentation's getting-started article
/// (Sources/LockFreeObservation/LockFreeObservation.docc/GettingStarted.md), compiled, with a count
/// of its notifications in place of the article's comment.
private final class RowView: ChangeObserver {
    let book: ReadmeExample.Book
    private(set) var scope: ReusableScope!
    let told = Counter()

    init(book: ReadmeExample.Book) {
        self.book = book
        scope = ReusableScope(notifying: self)
    }

    func render() -> String {
        scope.run { "\(book.title) by \(book.author.name)" }
    }

    func observedValueWillChange() {
        told.bump()
    }
}

extension RegistrarTests {
    @Suite struct GettingStartedExampleTests {
        @Test func theRowViewIsToldOncePerRunAndCancels() {
            let book = ReadmeExample.Book(title: "Dune", author: ReadmeExample.Author())
            let row = RowView(book: book)
            #expect(row.render() == "Dune by ")
            book.title = "Dune Messiah"
            book.author.name = "Frank Herbert"
            #expect(row.told.value == 1)
            #expect(row.render() == "Dune Messiah by Frank Herbert")
            book.author.name = "F. Herbert"
            #expect(row.told.value == 2)
            _ = row.render()
            #expect(row.scope.cancel())
            book.title = "Children of Dune"
            #expect(row.told.value == 2)
        }
    }
}
