import LockFreeObservation
import Synchronization
import Testing

@testable import Workloads

// The scenarios of Apple's "Managing model data in your app", run on every contender through the
// `Contender` protocol, with a tiny stand-in for a view. Fine-grained contenders (lockfree, apple)
// must produce exactly the same counts; naive has its own, coarser, documented counts and must
// never miss an update.

/// A view stand-in: counts notifications, optionally runs a hook in the callback.
final class ViewObserver: ChangeObserver, @unchecked Sendable {
    // `@unchecked Sendable`: `hook` is set before the observer is subscribed; the count is atomic.
    let notifications = Atomic<Int>(0)
    var hook: (() -> Void)?
    init(hook: (() -> Void)? = nil) { self.hook = hook }
    func observedValueWillChange() {
        notifications.add(1, ordering: .relaxed)
        hook?()
    }
    var count: Int { notifications.load(ordering: .relaxed) }
}

/// An atomic counter for `@Sendable` callbacks.
final class Tally: Sendable {
    let raw = Atomic<Int>(0)
    func bump() { raw.add(1, ordering: .relaxed) }
    var value: Int { raw.load(ordering: .relaxed) }
}

/// A value the test moves into a `@Sendable` callback on its own responsibility (single thread).
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Calls `body` with the contender type named `name` (as `Contenders.names` lists them).
func withContender<R>(named name: String, _ body: (any Contender.Type) -> R) -> R {
    let contender = Contenders.all.first { $0.name == name }
    precondition(contender != nil, "unknown contender \(name)")
    return body(contender!)
}

/// Every contender, from the one list (`Contenders.visitAll`).
let contenderNames = Contenders.names

/// A mounted view: a body, the objects it holds, its observer and subscription.
struct MountedView<C: Contender, Output: Equatable> {
    let body: () -> Output
    let holding: Holdings
    let observer: ViewObserver
    var subscription: C.Subscription?
    var output: Output

    init(_: C.Type, holding: Holdings, observer: ViewObserver = ViewObserver(), body: @escaping () -> Output) {
        self.body = body
        self.holding = holding
        self.observer = observer
        subscription = nil
        output = C.evaluate(body, holding: holding, observer: observer, subscription: &subscription)
    }

    /// Evaluates the body again (re-subscribing), as a frame does for a dirty view.
    mutating func evaluate() {
        output = C.evaluate(body, holding: holding, observer: observer, subscription: &subscription)
    }

    mutating func unmount() { C.unsubscribe(&subscription) }
}

/// The fixture of Documentation/Workloads.md, section 3: authors Ann (books 0 and 1) and Bob (book 2); book 1 unavailable.
struct Fixture<C: Contender> {
    let ann: C.Author
    let bob: C.Author
    let books: [C.Book]
    let library: C.Library

    init() {
        ann = C.Author(name: "Ann")
        bob = C.Author(name: "Bob")
        books = [
            C.Book(id: 0, title: "Zero", author: ann, isAvailable: true),
            C.Book(id: 1, title: "One", author: ann, isAvailable: false),
            C.Book(id: 2, title: "Two", author: bob, isAvailable: true),
        ]
        library = C.Library(books: books)
    }
}

/// The views of the scenarios; each observes book 0 or the library.
enum ViewKind: String, CaseIterable, Sendable {
    /// Reads `book.title` only.
    case title
    /// `BookRow`: reads title, author.name, isAvailable, isSelected.
    case row
    /// `LibraryItemView`: holds the book, reads nothing.
    case passThrough
    /// Reads `book.author.name`.
    case authorName
    /// `LibraryView`: reads `library.books`.
    case list
    /// `CountView`: reads `library.availableBooksCount`.
    case count
}

/// One change of the fixture.
enum Change: String, CaseIterable, Sendable {
    case renameTitle, sameTitle, toggleAvailable, sameAvailable, select
    case renameAuthor, sameAuthorName, replaceAuthor, sameAuthor
    case renameOtherTitle, toggleOtherAvailable, renameOtherAuthor
    case insertBook, removeBook, swapBooks, replaceBook, selectID

    func apply<C: Contender>(to fixture: Fixture<C>) {
        let book = fixture.books[0]
        switch self {
        case .renameTitle: book.title = "Renamed"
        case .sameTitle: book.title = "Zero"
        case .toggleAvailable: book.isAvailable.toggle()
        case .sameAvailable: book.isAvailable = true
        case .select: book.isSelected = true
        case .renameAuthor: fixture.ann.name = "Anne"
        case .sameAuthorName: fixture.ann.name = "Ann"
        case .replaceAuthor: book.author = fixture.bob
        case .sameAuthor: book.author = fixture.ann
        case .renameOtherTitle: fixture.books[2].title = "Deux"
        case .toggleOtherAvailable: fixture.books[2].isAvailable = false
        case .renameOtherAuthor: fixture.bob.name = "Bea"
        case .insertBook:
            fixture.library.insert(C.Book(id: 3, title: "Three", author: fixture.bob, isAvailable: true), at: 1)
        case .removeBook: _ = fixture.library.remove(at: 2)
        case .swapBooks: fixture.library.swapAt(0, 2)
        case .replaceBook:
            fixture.library.books[1] = C.Book(id: 4, title: "Four", author: fixture.bob, isAvailable: true)
        case .selectID: fixture.library.selectedID = 2
        }
    }
}

/// Expected notifications of one view for one change: (fine-grained, naive).
///
/// Fine-grained: 1 when the view read the changed property (one-shot), else 0; equal values
/// through the setter never notify. Naive: every write publishes to the written object's
/// subscribers, then each parent republishes: an author to each of its books (Ann has books 0
/// and 1), a book to the library.
func expectedNotifications(_ view: ViewKind, _ change: Change) -> (fine: Int, naive: Int) {
    // Naive: what reaches a subscriber of book 0, and of the library.
    let naiveBook0: Int
    let naiveLibrary: Int
    switch change {
    case .renameTitle, .sameTitle, .toggleAvailable, .sameAvailable, .select, .replaceAuthor, .sameAuthor:
        (naiveBook0, naiveLibrary) = (1, 1)
    case .renameAuthor, .sameAuthorName:
        (naiveBook0, naiveLibrary) = (1, 2)  // Ann -> book 0 -> library, Ann -> book 1 -> library
    case .renameOtherTitle, .toggleOtherAvailable, .renameOtherAuthor:
        (naiveBook0, naiveLibrary) = (0, 1)
    case .insertBook, .removeBook, .swapBooks, .replaceBook, .selectID:
        (naiveBook0, naiveLibrary) = (0, 1)
    }
    let reads: Set<Change>
    switch view {
    case .title: reads = [.renameTitle]
    case .row: reads = [.renameTitle, .toggleAvailable, .select, .renameAuthor, .replaceAuthor]
    case .passThrough: reads = []
    case .authorName: reads = [.renameAuthor, .replaceAuthor]
    case .list: reads = [.insertBook, .removeBook, .swapBooks, .replaceBook]
    case .count:
        reads = [.toggleAvailable, .toggleOtherAvailable, .insertBook, .removeBook, .swapBooks, .replaceBook]
    }
    let holdsLibrary = view == .list || view == .count
    return (reads.contains(change) ? 1 : 0, holdsLibrary ? naiveLibrary : naiveBook0)
}

struct ViewCase: Sendable, CustomTestStringConvertible {
    let view: ViewKind
    let change: Change
    var testDescription: String { "\(view) / \(change)" }
    static let all = ViewKind.allCases.flatMap { view in Change.allCases.map { ViewCase(view: view, change: $0) } }
}

/// Mounts `view` on a fresh fixture, applies `change`; returns the notifications and whether the
/// view's output changed.
func notifications<C: Contender>(_: C.Type, _ view: ViewKind, _ change: Change) -> (count: Int, outputChanged: Bool) {
    let fixture = Fixture<C>()
    let book = fixture.books[0]
    let library = fixture.library
    func measure<Output: Equatable>(holding: AnyObject, _ body: @escaping () -> Output) -> (Int, Bool) {
        var mounted = MountedView(C.self, holding: Holdings(holding), body: body)
        change.apply(to: fixture)
        let count = mounted.observer.count
        let before = mounted.output
        mounted.evaluate()
        let changed = mounted.output != before
        mounted.unmount()
        return (count, changed)
    }
    switch view {
    case .title: return measure(holding: book) { book.title }
    case .row:
        return measure(holding: book) { "\(book.title)|\(book.author.name)|\(book.isAvailable)|\(book.isSelected)" }
    case .passThrough: return measure(holding: book) { book.id }
    case .authorName: return measure(holding: book) { book.author.name }
    case .list: return measure(holding: library) { library.books.map(\.id) }
    case .count: return measure(holding: library) { library.availableBooksCount }
    }
}

@Suite struct ContenderSemanticsTests {
    /// Every view against every change, on every contender: exact counts.
    @Test(arguments: contenderNames, ViewCase.all)
    func viewInvalidation(contender name: String, _ scenario: ViewCase) {
        withContender(named: name) { contender in
            func run<C: Contender>(_ c: C.Type) {
                let (count, outputChanged) = notifications(c, scenario.view, scenario.change)
                let expected = expectedNotifications(scenario.view, scenario.change)
                #expect(count == (C.isFineGrained ? expected.fine : expected.naive))
                // Never miss an update: a view whose output changed was told.
                if outputChanged { #expect(count >= 1) }
                // A fine-grained contender tells a view whose output changed exactly once.
                if C.isFineGrained && outputChanged { #expect(count == 1) }
            }
            run(contender)
        }
    }

    /// The expectations themselves: naive is never told less than a fine-grained contender.
    @Test(arguments: ViewCase.all)
    func naiveNeverMissesWhatFineGrainedSees(_ scenario: ViewCase) {
        let expected = expectedNotifications(scenario.view, scenario.change)
        #expect(expected.naive >= expected.fine)
    }

    /// lockfree and apple agree on every count, computed side by side.
    @Test(arguments: ViewCase.all)
    func fineGrainedContendersAgree(_ scenario: ViewCase) {
        let lockfree = notifications(LockFree.self, scenario.view, scenario.change)
        let apple = notifications(Apple.self, scenario.view, scenario.change)
        #expect(lockfree.count == apple.count)
        #expect(lockfree.outputChanged == apple.outputChanged)
    }

    /// availableBooksCount is computed through `books` and each `isAvailable`: after each change
    /// the count view is told and re-evaluates to the right value.
    @Test(arguments: contenderNames)
    func availableBooksCountFollowsTheLibrary(contender name: String) {
        withContender(named: name) { contender in
            func run<C: Contender>(_: C.Type) {
                let fixture = Fixture<C>()
                let library = fixture.library
                var view = MountedView(C.self, holding: Holdings(library)) { library.availableBooksCount }
                #expect(view.output == 2)
                var expectedNotifications = 0
                func step(_ change: () -> Void, count: Int, naive: Int = 1) {
                    change()
                    expectedNotifications += C.isFineGrained ? 1 : naive
                    #expect(view.observer.count == expectedNotifications)
                    view.evaluate()
                    #expect(view.output == count)
                }
                step({ fixture.books[1].isAvailable = true }, count: 3)
                step(
                    {
                        fixture.library.insert(
                            C.Book(id: 3, title: "3", author: fixture.bob, isAvailable: false), at: 0)
                    }, count: 3)
                step({ library.books[0].isAvailable = true }, count: 4)
                step({ _ = library.remove(at: 1) }, count: 3)
                step({ library.books = [] }, count: 0)
                step({ library.books = fixture.books }, count: 3)
                step({ fixture.books[2].isAvailable = false }, count: 2)
                view.unmount()
            }
            run(contender)
        }
    }

    /// A view reading one property is told once (one-shot) by fine-grained contenders, at every
    /// write by naive. After re-evaluation the fine-grained view is subscribed again.
    @Test(arguments: contenderNames)
    func oneShotVersusEveryWrite(contender name: String) {
        withContender(named: name) { contender in
            func run<C: Contender>(_: C.Type) {
                let fixture = Fixture<C>()
                let book = fixture.books[0]
                var view = MountedView(C.self, holding: Holdings(book)) { book.title }
                for i in 1...3 { book.title = "Title \(i)" }
                #expect(view.observer.count == (C.isFineGrained ? 1 : 3))
                view.evaluate()
                #expect(view.output == "Title 3")
                book.title = "Title 4"
                #expect(view.observer.count == (C.isFineGrained ? 2 : 4))
                // Unmounted: no more notifications.
                view.unmount()
                book.title = "Title 5"
                #expect(view.observer.count == (C.isFineGrained ? 2 : 4))
            }
            run(contender)
        }
    }

    /// Re-evaluating replaces the subscription: dependencies are those of the latest evaluation.
    @Test(arguments: contenderNames)
    func dependenciesAreThoseOfTheLatestEvaluation(contender name: String) {
        withContender(named: name) { contender in
            func run<C: Contender>(_: C.Type) {
                let fixture = Fixture<C>()
                let book = fixture.books[0]
                let readsTitle = Unchecked(Tally())
                readsTitle.value.bump()
                var view = MountedView(C.self, holding: Holdings(book)) {
                    readsTitle.value.value == 1 ? book.title : book.author.name
                }
                readsTitle.value.bump()  // the next evaluation reads the author's name instead
                view.evaluate()
                #expect(view.output == "Ann")
                book.title = "Renamed"
                #expect(view.observer.count == (C.isFineGrained ? 0 : 1))
                fixture.ann.name = "Anne"
                #expect(view.observer.count == (C.isFineGrained ? 1 : 2))
                view.unmount()
            }
            run(contender)
        }
    }

    /// A global (singleton or environment) model read by a view is tracked like any other.
    @Test(arguments: contenderNames)
    func globalSingletonModel(contender name: String) {
        withContender(named: name) { contender in
            func run<C: Contender>(_: C.Type) {
                let settings = GlobalSettings.shared(C.self)
                var view = MountedView(C.self, holding: Holdings(settings)) { settings.fontSize }
                settings.theme += 1
                #expect(view.observer.count == (C.isFineGrained ? 0 : 1))
                settings.fontSize += 1
                #expect(view.observer.count == (C.isFineGrained ? 1 : 2))
                view.evaluate()
                #expect(view.output == 15)
                settings.fontSize = 15  // equal value
                #expect(view.observer.count == (C.isFineGrained ? 1 : 3))
                settings.fontSize = 14
                #expect(view.observer.count == (C.isFineGrained ? 2 : 4))
                view.unmount()
            }
            run(contender)
        }
    }

    /// onChange runs at willSet: the callback reads the old value, for all three.
    @Test(arguments: contenderNames)
    func callbackSeesTheOldValue(contender name: String) {
        withContender(named: name) { contender in
            func run<C: Contender>(_: C.Type) {
                let fixture = Fixture<C>()
                let book = Unchecked(fixture.books[0])
                let seen = Unchecked(Box<[String]>([]))
                let observer = ViewObserver(hook: { seen.value.value.append(book.value.title) })
                var view = MountedView(C.self, holding: Holdings(book.value), observer: observer) { book.value.title }
                book.value.title = "New"
                #expect(seen.value.value == ["Zero"])
                #expect(book.value.title == "New")
                view.evaluate()
                book.value.title += "er"  // in place
                #expect(seen.value.value == ["Zero", "New"])
                #expect(book.value.title == "Newer")
                view.unmount()
            }
            run(contender)
        }
    }

    /// Continuous observation: exactly one callback per change, none after cancel.
    @Test(arguments: contenderNames, [1, 5, 40])
    func continuousLogger(contender name: String, changes: Int) {
        withContender(named: name) { contender in
            func run<C: Contender>(_: C.Type) {
                let fixture = Fixture<C>()
                let book = fixture.books[0]
                let logged = Tally()
                let cancellation = C.observeContinuously({ _ = book.title }, holding: Holdings(book)) { logged.bump() }
                for i in 1...changes { book.title = "Title \(i)" }
                #expect(logged.value == changes)
                cancellation.cancel()
                for i in 1...changes { book.title = "After \(i)" }
                #expect(logged.value == changes)
            }
            run(contender)
        }
    }

    /// The same logger also sees changes of nested objects it read (fine-grained) or that the held
    /// object republishes (naive), and other properties only under naive.
    @Test(arguments: contenderNames)
    func continuousLoggerOfANestedRead(contender name: String) {
        withContender(named: name) { contender in
            func run<C: Contender>(_: C.Type) {
                let fixture = Fixture<C>()
                let book = fixture.books[0]
                let logged = Tally()
                let cancellation = C.observeContinuously({ _ = book.author.name }, holding: Holdings(book)) {
                    logged.bump()
                }
                fixture.ann.name = "A1"
                fixture.ann.name = "A2"
                #expect(logged.value == 2)
                book.isAvailable = false  // not read
                #expect(logged.value == (C.isFineGrained ? 2 : 3))
                cancellation.cancel()
                fixture.ann.name = "A3"
                #expect(logged.value == (C.isFineGrained ? 2 : 3))
            }
            run(contender)
        }
    }
}

/// A class box, for state a callback appends to on the test's single thread.
final class Box<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// One global settings object per contender, as an app's singleton or environment object.
enum GlobalSettings {
    nonisolated(unsafe) static let lockfree = LockFree.Settings()
    nonisolated(unsafe) static let locked = Locked.Settings()
    nonisolated(unsafe) static let apple = Apple.Settings()
    nonisolated(unsafe) static let naive = Naive.Settings()
    nonisolated(unsafe) static let bridged = Bridged.Settings()
    nonisolated(unsafe) static let bridgedScopes = BridgedScopes.Settings()

    static func shared<C: Contender>(_: C.Type) -> C.Settings {
        switch C.name {
        case "lockfree": lockfree as! C.Settings
        case "locked": locked as! C.Settings
        case "apple": apple as! C.Settings
        case "naive": naive as! C.Settings
        case "bridged": bridged as! C.Settings
        case "bridged-scopes": bridgedScopes as! C.Settings
        default: fatalError("no global settings for \(C.name)")
        }
    }
}
