import Foundation
import Harness

/// The steps of the book collection workload (Documentation/Workloads.md, section 3). One operation is the
/// step's mutations followed by one frame (two for the steps that undo themselves).
enum Books {
    static let stepNames = [
        "toggle-available", "toggle-unmounted", "rename-title", "rename-author", "equal-write",
        "update-every-10th", "select", "swap", "remove-insert", "append-remove", "scroll",
    ]
    static let defaultSets: [Parameters] = [1000, 100_000].map { Parameters([("n", String($0)), ("visible", "50")]) }
    static let largeSets: [Parameters] =
        [10_000, 1_000_000].map { Parameters([("n", String($0)), ("visible", "50")]) }
        + [1000, 10_000, 100_000].map { Parameters([("n", String($0)), ("visible", String($0))]) }
    static let kinds: [String: ParameterKind] = ["n": .integer(10...10_000_000), "visible": .integer(1...100_000)]

    /// Operations counted under callgrind at 1000 books: 20, and 400 for the steps that cost a
    /// fine-grained contender a few thousand instructions or less. Over 20 such operations, a
    /// one-off cost in the counted region (an allocator refilling a cache, say; whether it falls
    /// there depends on what ran before in the same child) moved `equal-write` from 123 to 175
    /// instructions per operation between two selections of the suite. (The others re-render
    /// every row, 40,000 instructions and more an operation: 20 keep `--quick` under 3 minutes.)
    static func instructionOperations(_ step: String, fineGrained: Bool) -> Int {
        fineGrained && ["rename-title", "rename-author", "equal-write", "select"].contains(step) ? 400 : 20
    }

    static func counts(_ inv: Int, _ evals: Int, notifications: Int? = nil, unnecessary: Int = 0) -> InvalidationCounts
    {
        InvalidationCounts(
            notifications: notifications ?? inv, invalidations: inv, evaluations: evals, unnecessary: unnecessary)
    }

    /// The exact counts per operation, derived in the comments; nil where a step does not apply.
    static func expected(_ step: String, fineGrained fine: Bool, n: Int, visible v: Int) -> InvalidationCounts? {
        switch step {
        case "toggle-available":
            // Fine: row, count. Naive: the book publishes to its item and row, the library
            // republishes to the list and count; the item and list outputs do not change.
            return fine ? counts(2, 2) : counts(4, 4, unnecessary: 2)
        case "toggle-unmounted":
            guard v < n else { return nil }
            return fine ? counts(1, 1) : counts(2, 2, unnecessary: 1)
        case "rename-title":
            return fine ? counts(1, 1) : counts(4, 4, unnecessary: 3)
        case "rename-author":
            // m = 1 mounted book of the author while n / 10 >= visible. Naive: each of the author's
            // books republishes, and the library republishes each of those to list and count.
            guard n / 10 >= v else { return nil }
            let authors = max(1, n / 10)
            let booksOfAuthor = (n + authors - 1) / authors
            return fine ? counts(1, 1) : counts(4, 4, notifications: 2 + 2 * booksOfAuthor, unnecessary: 3)
        case "equal-write":
            return fine ? counts(0, 0) : counts(4, 4, unnecessary: 4)
        case "update-every-10th":
            let k = (v + 9) / 10
            return fine ? counts(k, k) : counts(2 * k + 2, 2 * k + 2, notifications: 4 * k, unnecessary: k + 2)
        case "select":
            return fine ? counts(2, 2) : counts(6, 6, notifications: 8, unnecessary: 4)
        case "swap":
            // `books` changed: the list (its first id changes) and the count (unchanged output);
            // rows move with their books, so none is mounted.
            return v >= 3 ? counts(2, 2, unnecessary: 1) : nil
        case "remove-insert":
            // Each frame: list and count; the window gains one book (2 views mounted).
            return v < n ? counts(4, 8) : nil
        case "append-remove":
            return v < n ? counts(4, 4) : nil
        case "scroll":
            return 2 * v <= n ? counts(0, 2 * v) : nil
        default:
            return nil
        }
    }

    /// One operation of `step` on `scene`; `i` counts operations. Prepares the scene first.
    static func operation<C: Contender>(_ step: String, _ scene: BookScene<C>) throws -> (Int) throws -> Void {
        let library = scene.library
        let visible = scene.visible
        let n = library.books.count
        switch step {
        case "toggle-available":
            return { _ in
                scene.mountedBook.isAvailable.toggle()
                try scene.frame()
            }
        case "toggle-unmounted":
            return { _ in
                guard visible < n else { return }
                library.books[n - 1].isAvailable.toggle()
                try scene.frame()
            }
        case "rename-title":
            return { i in
                // The binding ends before the frame: a `let` that lived on across `frame()` would be
                // retained and released around it (lexical lifetimes), in every contender.
                do {
                    let book = scene.mountedBook
                    book.title = i % 2 == 0 ? "Renamed \(book.id)" : "Book \(book.id)"
                }
                try scene.frame()
            }
        case "rename-author":
            return { i in
                scene.mountedBook.author.name = i % 2 == 0 ? "Renamed author" : "Author"
                try scene.frame()
            }
        case "equal-write":
            return { _ in
                do {
                    let book = scene.mountedBook
                    book.title = book.title
                }
                try scene.frame()
            }
        case "update-every-10th":
            return { i in
                let books = library.books
                for j in stride(from: scene.windowStart, to: scene.windowStart + visible, by: 10) {
                    books[j].title = i % 2 == 0 ? "Updated \(j)" : "Book \(j)"
                }
                try scene.frame()
            }
        case "select":
            let a = library.books[0]
            let b = library.books[min(2, visible - 1)]
            a.isSelected = true
            try scene.frame()
            return { i in
                let (old, new) = i % 2 == 0 ? (a, b) : (b, a)
                old.isSelected = false
                new.isSelected = true
                try scene.frame()
            }
        case "swap", "remove-insert", "append-remove", "scroll":
            return listEdit(step, scene)
        default:
            throw BenchmarkFailure("unknown book step \(step)")
        }
    }

    /// The steps that edit the list or scroll it: one operation of `step` on `scene`.
    static func listEdit<C: Contender>(_ step: String, _ scene: BookScene<C>) -> (Int) throws -> Void {
        let library = scene.library
        let visible = scene.visible
        let n = library.books.count
        switch step {
        case "swap":
            return { _ in
                library.swapAt(scene.windowStart, scene.windowStart + min(2, visible - 1))
                try scene.frame()
            }
        case "remove-insert":
            return { _ in
                let index = scene.windowStart + min(1, visible - 1)
                let book = library.remove(at: index)
                try scene.frame()
                library.insert(book, at: index)
                try scene.frame()
            }
        case "append-remove":
            return { i in
                let author = library.books[i % n].author
                library.insert(
                    C.Book(id: n + i, title: "New", author: author, isAvailable: true), at: library.books.count)
                try scene.frame()
                _ = library.remove(at: library.books.count - 1)
                try scene.frame()
            }
        default:  // scroll
            return { _ in
                guard 2 * visible <= n else { return }
                try scene.scroll(by: visible)
            }
        }
    }

    static func benchmarks() -> [Benchmark] {
        Family().benchmarks + BookThreads().benchmarks
    }

    struct Family: WorkloadFamily {
        func visit<C: Contender>(_: C.Type) -> [Benchmark] {
            stepNames.map { step in
                Benchmark(
                    family: "books/\(step)", contender: C.name, parameterSets: defaultSets,
                    largeParameterSets: largeSets, parameterKinds: kinds,
                    expectedCounts: { params in
                        let n = params.int("n", default: 1000)
                        return expected(
                            step, fineGrained: C.isFineGrained, n: n,
                            visible: min(params.int("visible", default: 50), n))
                    },
                    // Up to 1000 books: setup under callgrind takes seconds beyond that.
                    instructionOperations: {
                        $0.int("n", default: 1000) <= 1000
                            ? instructionOperations(step, fineGrained: C.isFineGrained) : nil
                    }
                ) { params in
                    let scene = BookScene<C>(
                        n: params.int("n", default: 1000), visible: params.int("visible", default: 50))
                    let body = try operation(step, scene)
                    let start = scene.graph.counts
                    // Operations are numbered across runs, so alternating steps keep alternating.
                    var done = 0
                    let instance = ClosureInstance(counts: { scene.graph.counts - start }) { ops in
                        for _ in 0..<ops {
                            try body(done)
                            done += 1
                        }
                        return scene.graph.counts.evaluations
                    }
                    instance.onVerify = { scene.graph.verifies = true }
                    return instance
                }
            }
        }
    }
}
