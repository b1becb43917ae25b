import Glibc
import LockFreeObservation
import Observation
import Testing

@testable import Workloads

// Where lockfree and apple (Observation on Swift 6.3.1) do NOT agree. Each test pins both sides, so
// that a change of either (a registrar change, or a toolchain whose Observation closes the
// lost-change race as 6.4 does) shows up here and in the report.

/// Runs `body` on a new thread and waits for it.
private func onNewThread(_ body: @escaping @Sendable () -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let created = pthread_create(
        &thread, nil,
        { argument in
            Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
            return nil
        }, Unmanaged.passRetained(Box(body)).toOpaque())
    precondition(created == 0)
    pthread_join(thread, nil)
}

@Suite struct FineGrainedDifferencesTests {
    /// Strict one-shot: a mutation of the observed property inside `onChange` does not call it
    /// again with lockfree; Observation calls it again (it cancels only after `onChange` returns),
    /// recursively: here capped at 3 by the callback itself, unbounded without the cap.
    @Test func reentrantMutationInsideOnChange() {
        let lockfreeAuthor = LockFree.Author(name: "a")
        let lockfreeRef = Unchecked(lockfreeAuthor)
        let lockfree = Tally()
        withTracking(
            { _ = lockfreeAuthor.name },
            onChange: {
                lockfree.bump()
                if lockfree.value < 3 { lockfreeRef.value.name += "!" }
            })
        lockfreeAuthor.name = "b"
        #expect(lockfree.value == 1)

        let appleAuthor = Apple.Author(name: "a")
        let appleRef = Unchecked(appleAuthor)
        let apple = Tally()
        withObservationTracking(
            { _ = appleAuthor.name },
            onChange: {
                apple.bump()
                if apple.value < 3 { appleRef.value.name += "!" }
            })
        appleAuthor.name = "b"
        #expect(apple.value == 3)
    }

    /// No lost change: a write on another thread between the read and the end of the tracking
    /// call is reported by lockfree before it returns; Observation 6.3 loses it (only the next
    /// write fires).
    @Test func writeOnAnotherThreadDuringTheTrackedClosure() {
        let lockfreeBook = LockFree.Book(id: 0, title: "t", author: LockFree.Author(name: "a"), isAvailable: true)
        let lockfreeRef = Unchecked(lockfreeBook)
        let lockfree = Tally()
        withTracking(
            {
                _ = lockfreeBook.title
                onNewThread { lockfreeRef.value.title = "u" }
            }, onChange: { lockfree.bump() })
        #expect(lockfree.value == 1)

        let appleBook = Apple.Book(id: 0, title: "t", author: Apple.Author(name: "a"), isAvailable: true)
        let appleRef = Unchecked(appleBook)
        let apple = Tally()
        withObservationTracking(
            {
                _ = appleBook.title
                onNewThread { appleRef.value.title = "u" }
            }, onChange: { apple.bump() })
        #expect(apple.value == 0)  // lost
        appleBook.title = "v"
        #expect(apple.value == 1)
    }

    /// A write on another thread to a property the scope did NOT read, made while the tracked
    /// closure runs, after the read: an outermost scope installed the object at the read
    /// (`TrackingScope.installAtRead`), so it is not reported, as in Observation. A scope nested in
    /// another still installs when it ends, checking the object's write count from its read: there
    /// it is reported as a possible change (the price of the per-object version: a spurious
    /// notification, never a lost one).
    @Test func writeOfAnotherPropertyOnAnotherThreadDuringTheTrackedClosure() {
        let lockfreeBook = LockFree.Book(id: 0, title: "t", author: LockFree.Author(name: "a"), isAvailable: true)
        let lockfreeRef = Unchecked(lockfreeBook)
        let lockfree = Tally()
        withTracking(
            {
                _ = lockfreeBook.title
                onNewThread { lockfreeRef.value.isAvailable = false }
            }, onChange: { lockfree.bump() })
        #expect(lockfree.value == 0)

        let nested = Tally()
        withTracking(
            {
                withTracking(
                    {
                        _ = lockfreeBook.title
                        onNewThread { lockfreeRef.value.isAvailable = true }
                    }, onChange: { nested.bump() })
            }, onChange: {})
        #expect(nested.value == 1)

        let appleBook = Apple.Book(id: 0, title: "t", author: Apple.Author(name: "a"), isAvailable: true)
        let appleRef = Unchecked(appleBook)
        let apple = Tally()
        withObservationTracking(
            {
                _ = appleBook.title
                onNewThread { appleRef.value.isAvailable = false }
            }, onChange: { apple.bump() })
        #expect(apple.value == 0)
    }

    /// Assigning an equal array of models: the setter skips only equal values of `Equatable` or
    /// class types, and `[Book]` is neither (the models impose no equality), so every contender
    /// notifies, as Observation does (naive always does).
    @Test(arguments: contenderNames)
    func reassigningTheSameBooks(contender name: String) {
        withContender(named: name) { contender in
            func run<C: Contender>(_: C.Type) {
                let fixture = Fixture<C>()
                let library = fixture.library
                var view = MountedView(C.self, holding: Holdings(library)) { library.books.count }
                library.books = fixture.books
                #expect(view.observer.count == 1)
                view.unmount()
            }
            run(contender)
        }
    }

    /// When the only observed object goes away, both release the `onChange` closure with it
    /// (lockfree closes the scope when it holds no slot in a living object).
    @Test func onChangeOfAScopeWhoseObjectDeinitialised() {
        final class Captured: Sendable {
            let released: Tally
            init(_ released: Tally) { self.released = released }
            deinit { released.bump() }
        }
        let appleReleased = Tally()
        do {
            let captured = Captured(appleReleased)
            let author = Apple.Author(name: "a")
            withObservationTracking({ _ = author.name }, onChange: { _ = captured })
        }
        #expect(appleReleased.value == 1)

        let lockfreeReleased = Tally()
        var token = TrackingToken.inert
        do {
            let captured = Captured(lockfreeReleased)
            let author = LockFree.Author(name: "a")
            token = withCancellableTracking({ _ = author.name }, onChange: { _ = captured }).token
        }
        #expect(lockfreeReleased.value == 1)
        #expect(!token.isArmed)
        #expect(!token.cancel())
    }
}
