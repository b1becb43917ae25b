import Glibc
import RegistrarTestSupport
import Synchronization
import Testing

@testable import LockFreeObservation

extension RegistrarTests {
    /// The semantics every fine-grained contender shares (Documentation/Guarantees.md, "The
    /// semantics every contender shares"), checked on the lock-free registrar one by one.
    @Suite struct SemanticsTests {
        // 3.1
        @Test func onChangeRunsAtWillSetAndSeesTheOldValue() {
            let model = Counters()
            model.count = 1
            let ref = Unchecked(model)
            let seen = Counter(-1)
            let fired = Counter()
            withTracking {
                _ = model.count
            } onChange: {
                fired.bump()
                seen.set(ref.value.count)
            }
            model.count = 2
            #expect(fired.value == 1)
            #expect(seen.value == 1)
            #expect(model.count == 2)

            // The in-place path (`_modify`) also calls it before the store.
            let fired2 = Counter()
            withTracking {
                _ = model.count
            } onChange: {
                fired2.bump()
                seen.set(ref.value.count)
            }
            model.count += 5
            #expect(fired2.value == 1)
            #expect(seen.value == 2)
            #expect(model.count == 7)
        }

        // 3.2
        @Test func oneShot() {
            let model = Counters()
            let fired = Counter()
            let (_, token) = withCancellableTracking({ _ = model.count }, onChange: { fired.bump() })
            #expect(token.isArmed)
            model.count = 1
            #expect(fired.value == 1)
            #expect(!token.isArmed)
            model.count = 2
            model.count += 1
            model.items.append(4)
            #expect(fired.value == 1)
            #expect(!token.cancel())
        }

        // 3.3
        @Test func equalValueThroughTheSetterDoesNotNotifyButInPlaceMutationDoes() {
            let model = Counters()
            model.count = 3
            let fired = Counter()
            let (_, token) = withCancellableTracking(
                {
                    _ = model.count
                    _ = model.items
                    _ = model.name
                },
                onChange: { fired.bump() })
            model.count = 3
            model.items = [1, 2, 3]
            model.name = "a"
            #expect(fired.value == 0)
            #expect(token.isArmed)
            model.count += 0
            #expect(fired.value == 1)

            let appended = Counter()
            withTracking({ _ = model.items }, onChange: { appended.bump() })
            model.items.append(4)
            #expect(appended.value == 1)
            #expect(model.items == [1, 2, 3, 4])

            // An object-valued property compares identity: assigning the same object is not a change.
            let author = Author(name: "Ann")
            let book = Book(id: 1, title: "T", author: author, isAvailable: true)
            let sameAuthor = Counter()
            let (_, authorToken) = withCancellableTracking({ _ = book.author }, onChange: { sameAuthor.bump() })
            book.author = author
            #expect(sameAuthor.value == 0)
            book.author = Author(name: "Ann")
            #expect(sameAuthor.value == 1)
            #expect(!authorToken.isArmed)
        }

        // 3.4
        @Test func computedPropertiesAreTrackedThroughStoredOnes() {
            let model = Counters()
            let fired = Counter()
            let total = withTracking({ model.total }, onChange: { fired.bump() })
            #expect(total == 0)
            model.name = "b"
            #expect(fired.value == 0)
            model.other = 4
            #expect(fired.value == 1)

            let second = Counter()
            withTracking({ _ = model.total }, onChange: { second.bump() })
            model.count = 1
            #expect(second.value == 1)
        }

        // 3.5
        @Test(arguments: [false, true])
        func nestedObjects(replaceTheAuthor: Bool) {
            let author = Author(name: "Ann")
            let book = Book(id: 1, title: "T", author: author, isAvailable: true)
            let fired = Counter()
            let name = withTracking({ book.author.name }, onChange: { fired.bump() })
            #expect(name == "Ann")
            book.title = "U"
            #expect(fired.value == 0)
            if replaceTheAuthor {
                book.author = Author(name: "Bob")
            } else {
                author.name = "Bea"
            }
            #expect(fired.value == 1)
            author.name = "Cid"
            #expect(fired.value == 1)
        }

        enum CollectionEdit: String, CaseIterable, Sendable {
            case append, insert, remove, swap, replace, inPlaceElementEdit, reassignDifferent, removeAll
        }

        // 3.6
        @Test(arguments: CollectionEdit.allCases)
        func wholeCollectionTracking(_ edit: CollectionEdit) {
            let model = Counters()  // items == [1, 2, 3]
            let fired = Counter()
            let (count, token) = withCancellableTracking({ model.items.count }, onChange: { fired.bump() })
            #expect(count == 3)
            model.count = 9  // another property: no
            #expect(fired.value == 0)
            switch edit {
            case .append: model.items.append(4)
            case .insert: model.items.insert(0, at: 0)
            case .remove: model.items.remove(at: 1)
            case .swap: model.items.swapAt(0, 2)
            case .replace: model.items[1] = 20
            case .inPlaceElementEdit: model.items[0] += 1
            case .reassignDifferent: model.items = [3, 2, 1]
            case .removeAll: model.items.removeAll()
            }
            #expect(fired.value == 1)
            #expect(!token.isArmed)
        }

        @Test(arguments: CollectionEdit.allCases)
        func booksCollectionTracking(_ edit: CollectionEdit) {
            let author = Author(name: "Ann")
            let books = (0..<3).map { Book(id: $0, title: "T\($0)", author: author, isAvailable: true) }
            let library = Library(books: books)
            let fired = Counter()
            withTracking({ _ = library.books }, onChange: { fired.bump() })
            books[0].title = "X"  // an element's own property is not part of `books`
            books[1].isAvailable = false
            #expect(fired.value == 0)
            let extra = Book(id: 9, title: "N", author: author, isAvailable: true)
            switch edit {
            case .append: library.books.append(extra)
            case .insert: library.books.insert(extra, at: 0)
            case .remove: library.books.remove(at: 1)
            case .swap: library.books.swapAt(0, 2)
            case .replace: library.books[1] = extra
            case .inPlaceElementEdit: library.books[0] = library.books[0]  // `_modify`: same element, still a change
            case .reassignDifferent: library.books = [books[2], books[1], books[0]]
            case .removeAll: library.books.removeAll()
            }
            #expect(fired.value == 1)
        }

        // 3.7
        @Test func nestedScopes() {
            let model = Counters()
            let outer = Counter()
            let inner = Counter()
            withTracking {
                _ = model.count
                withTracking({ _ = model.other }, onChange: { inner.bump() })
            } onChange: {
                outer.bump()
            }
            // `count` was read only by the outer scope.
            model.count = 1
            #expect(outer.value == 1)
            #expect(inner.value == 0)
            // `other` was read by the inner scope, and counts for the outer one too (already fired).
            model.other = 1
            #expect(inner.value == 1)
            #expect(outer.value == 1)
        }

        @Test func innerReadsCountForTheOuterScope() {
            let model = Counters()
            let outer = Counter()
            let inner = Counter()
            let (_, outerToken) = withCancellableTracking(
                {
                    withTracking({ _ = model.other }, onChange: { inner.bump() })
                }, onChange: { outer.bump() })
            #expect(outerToken.isArmed)
            model.count = 1
            #expect(outer.value == 0)
            model.other = 1
            #expect(outer.value == 1)
            #expect(inner.value == 1)
        }

        @Test func innerScopeSeesOnlyItsOwnReadsOfASharedObject() {
            // The outer scope reads `count` of an object that the inner scope reads `other` of.
            let model = Counters()
            let outer = Counter()
            let inner = Counter()
            withTracking {
                _ = model.count
                withTracking({ _ = model.other }, onChange: { inner.bump() })
                _ = model.name
            } onChange: {
                outer.bump()
            }
            model.count = 5
            model.name = "z"
            #expect(inner.value == 0)
            #expect(outer.value == 1)
        }

        // 3.8
        @Test func mutationsInsideTheTrackedClosureAreNotReported() {
            let model = Counters()
            let fired = Counter()
            let (_, token) = withCancellableTracking(
                {
                    _ = model.count
                    model.count = 5  // the same property it read
                    model.count += 1
                    model.other = 7  // another property of an object it read
                    model.items.append(9)
                    _ = model.items
                }, onChange: { fired.bump() })
            #expect(fired.value == 0)
            #expect(token.isArmed)
            model.other = 8  // written, never read: not a dependency
            #expect(fired.value == 0)
            model.count = 100
            #expect(fired.value == 1)
        }

        @Test func aWriteBeforeTheReadInsideTheClosureIsNotReported() {
            let model = Counters()
            let fired = Counter()
            let (_, token) = withCancellableTracking(
                {
                    model.count = 5
                    _ = model.count
                }, onChange: { fired.bump() })
            #expect(fired.value == 0)
            #expect(token.isArmed)
            model.count = 6
            #expect(fired.value == 1)
        }

        // 3.9
        @Test func deinitOfAnObservedObjectDropsItsObserversSilently() {
            let fired = Counter()
            let survivor = Counters()
            var token = TrackingToken.inert
            do {
                let doomed = Counters()
                (_, token) = withCancellableTracking(
                    {
                        _ = doomed.count
                        _ = survivor.count
                    }, onChange: { fired.bump() })
                doomed.other = 1
            }
            // `doomed` is gone: no callback, no crash. The scope still watches `survivor`.
            #expect(fired.value == 0)
            survivor.count = 1
            #expect(fired.value == 1)
            #expect(!token.isArmed)

            let observer = CountingObserver()
            do {
                let doomed = Counters()
                let (_, soloToken) = withTracking({ _ = doomed.count }, notifying: observer)
                token = soloToken
            }
            #expect(observer.count == 0)
            // The scope whose only object is gone was closed with it.
            #expect(!token.isArmed)
        }

        /// A scope whose observed objects have all deinitialised can never fire: it is closed, and its
        /// `onChange` (and everything that captures) released, as Apple's registrar releases it.
        @Test func deinitOfEveryObservedObjectReleasesTheCallback() {
            final class Captured: Sendable {
                let released: Counter
                init(_ released: Counter) { self.released = released }
                deinit { released.bump() }
            }
            let released = Counter()
            var token = TrackingToken.inert
            do {
                let captured = Captured(released)
                let doomed = Counters()
                (_, token) = withCancellableTracking({ _ = doomed.count }, onChange: { _ = captured })
            }
            // The scope lost its last object: it is closed and its callback released.
            #expect(released.value == 1)
            #expect(!token.isArmed)
            #expect(!token.cancel())
            #expect(released.value == 1)
        }

        /// The registrar calls an observer or a closure without a reference of its own
        /// (`ScopeRecord.callBack`): the scope's record holds it until the callback has returned,
        /// even when the callback cancels its scope and drops the last reference outside it. (A
        /// record recycled before its callback returned fails the observer half, tried; the closure
        /// half only in an optimised build: a debug build copies the closure to call it.)
        @Test func aCallbackThatCancelsItsScopeAndDropsItselfFinishesBeforeItIsReleased() {
            final class Log: @unchecked Sendable {  // one thread: the test's
                var events: [String] = []
                var token = TrackingToken.inert
                var observer: AnyObject?
            }
            final class Dropping: ChangeObserver, @unchecked Sendable {
                let log: Log
                init(_ log: Log) { self.log = log }
                deinit { log.events.append("deinit") }
                func observedValueWillChange() {
                    log.events.append("start")
                    _ = log.token.cancel()
                    log.observer = nil  // the record's is now the only reference
                    log.events.append("end")
                }
            }
            final class Captured: Sendable {
                let log: Log
                init(_ log: Log) { self.log = log }
                deinit { log.events.append("deinit") }
            }
            let model = Counters()
            let byObserver = Log()
            do {
                let observer = Dropping(byObserver)
                byObserver.observer = observer
                byObserver.token = observeChanges({ _ = model.count }, notifying: observer)
            }
            let byClosure = Log()
            do {
                let captured = Captured(byClosure)
                byClosure.token = observeChanges({ _ = model.count }) {
                    captured.log.events.append("start")
                    _ = captured.log.token.cancel()
                    captured.log.events.append("end")
                }
            }
            model.count += 1
            #expect(byObserver.events == ["start", "end", "deinit"])
            #expect(byClosure.events == ["start", "end", "deinit"])
        }

        // 3.10
        @Test func trackingIsPerThread() {
            let model = Counters()
            let ref = Unchecked(model)
            let fired = Counter()
            let (_, token) = withCancellableTracking(
                {
                    onNewThread { _ = ref.value.count }  // not this scope's read
                    _ = model.other
                }, onChange: { fired.bump() })
            #expect(token.isArmed)
            model.count = 1
            #expect(fired.value == 0)
            model.other = 1
            #expect(fired.value == 1)

            // A scope that read nothing on its own thread observes nothing.
            let none = Counter()
            let (_, inert) = withCancellableTracking({ onNewThread { _ = ref.value.count } }, onChange: { none.bump() })
            #expect(inert == .inert)
            #expect(!inert.isArmed)
            model.count = 2
            #expect(none.value == 0)
        }

        @Test func onChangeRunsOnTheMutatingThread() {
            let model = Counters()
            let ref = Unchecked(model)
            let mutator = Counter()
            let caller = Counter()
            withTracking({ _ = model.count }, onChange: { caller.set(Int(bitPattern: pthread_self())) })
            onNewThread {
                mutator.set(Int(bitPattern: pthread_self()))
                ref.value.count = 1
            }
            #expect(caller.value != 0)
            #expect(caller.value == mutator.value)
            #expect(caller.value != Int(bitPattern: pthread_self()))
        }
    }
}
