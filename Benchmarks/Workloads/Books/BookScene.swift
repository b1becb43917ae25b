import Harness

/// The book collection of Documentation/Workloads.md, section 3, rendered by the view graph: a `LibraryView`
/// (holds the library, reads `books`), a `CountView` (reads `availableBooksCount`), and for each
/// of the `visible` books of the window a pass-through `LibraryItemView` (holds the book, reads
/// nothing) with its `BookRow` (reads title, author.name, isAvailable, isSelected).
final class BookScene<C: Contender> {
    let graph = ViewGraph<C>()
    let library: C.Library
    let authors: [C.Author]
    let visible: Int
    private(set) var windowStart = 0
    /// Set when the list's body ran (or the window moved): the rows must be reconciled, as a list
    /// re-diffs its rows only when its body runs.
    private var listChanged = true
    /// Mounted rows by book identity: (pass-through item, row).
    private var rows: [ObjectIdentifier: (item: ViewNode<C>, row: ViewNode<C>)] = [:]

    /// `n` books by `n / 10` authors, 10% unavailable, the first `visible` mounted.
    init(n: Int, visible: Int) {
        let authorCount = max(1, n / 10)
        let authors = (0..<authorCount).map { C.Author(name: "Author \($0)") }
        var books: [C.Book] = []
        books.reserveCapacity(n)
        for i in 0..<n {
            books.append(C.Book(id: i, title: "Book \(i)", author: authors[i % authorCount], isAvailable: i % 10 != 0))
        }
        self.authors = authors
        self.library = C.Library(books: books)
        self.visible = min(visible, n)

        let library = self.library
        graph.mount(
            ViewNode("LibraryView", depth: 0, holding: Holdings(library), graph: graph) { [unowned self] in
                listChanged = true
                let books = library.books
                return books.count &* 1_000_003 &+ (books.first?.id ?? -1) &* 31 &+ (books.last?.id ?? -1)
            })
        graph.mount(
            ViewNode("CountView", depth: 1, holding: Holdings(library), graph: graph) {
                library.availableBooksCount
            })
        syncRows()
    }

    /// Mounts the rows of the window's books and unmounts the others, keyed by book identity (a
    /// book that moves inside the window keeps its views, as `ForEach` with ids does).
    func syncRows() {
        guard listChanged else { return }
        listChanged = false
        let books = library.books
        let end = min(windowStart + visible, books.count)
        var wanted: [ObjectIdentifier: C.Book] = [:]
        wanted.reserveCapacity(end - windowStart)
        for i in windowStart..<end { wanted[ObjectIdentifier(books[i])] = books[i] }
        // The keys first: removing while iterating `rows` would copy the whole dictionary.
        for key in rows.keys.filter({ wanted[$0] == nil }) {
            guard let views = rows.removeValue(forKey: key) else { continue }
            graph.unmount(views.row)
            graph.unmount(views.item)
        }
        for i in windowStart..<end where rows[ObjectIdentifier(books[i])] == nil {
            let book = books[i]
            let item = ViewNode("LibraryItemView", number: book.id, depth: 1, holding: Holdings(book), graph: graph) {
                book.id
            }
            let row = ViewNode("BookRow", number: book.id, depth: 2, holding: Holdings(book), graph: graph) {
                var hasher = Hasher()
                hasher.combine(book.title)
                hasher.combine(book.author.name)
                hasher.combine(book.isAvailable)
                hasher.combine(book.isSelected)
                return hasher.finalize()
            }
            graph.mount(item)
            graph.mount(row)
            rows[ObjectIdentifier(book)] = (item, row)
        }
    }

    /// A frame: evaluate what changed, then reconcile the window's rows. With nothing invalidated
    /// and the window unchanged there is nothing to do, as a UI framework skips the render pass.
    func frame() throws {
        guard graph.hasDirtyViews || listChanged || graph.verifies else { return }
        try graph.flush()
        syncRows()
        if graph.verifies { try graph.verify() }
    }

    /// Scrolls the window by `rows` books (wrapping around at the end).
    func scroll(by delta: Int) throws {
        let count = library.books.count
        windowStart = count > visible ? (windowStart + delta) % (count - visible + 1) : 0
        listChanged = true
        try frame()
    }

    var mountedRowCount: Int { rows.count }

    /// The book the single-book steps change: the window's second row (its first when it has one).
    var mountedBook: C.Book { library.books[windowStart + min(1, visible - 1)] }
}
