import AdopterModels
import Foundation
import LockFreeObservation
@_spi(SwiftUI) import Observation
import Synchronization

// Observation's own tracking (`withObservationTracking`, what SwiftUI runs around a body) of
// bridged models declared in another module, as an app uses them: each check runs `rounds` times
// on fresh models. scripts/test.sh runs it built in debug and in release, in release with every
// bridged read forwarded to Observation (`LOCKFREE_OBSERVATION_BRIDGE_FORWARD_ALL=1`, the only mode
// on Apple platforms), and linked with the standard library statically, where the toolchain ships
// it. Exit status 1 when any check fails in any round.
//
// Usage: bridge-check [rounds]   (default 50)

let rounds = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 50

/// How many times Observation told a tracking that ran `read` when `write` ran.
func told(reading read: () -> Void, writing write: () -> Void) -> Int {
    let count = Atomic(0)
    withObservationTracking(read) { count.add(1, ordering: .relaxed) }
    write()
    return count.load(ordering: .relaxed)
}

/// A write through a key path, as `@Bindable`'s bindings make it.
func write<Model: Observable & AnyObject, Value>(
    _ value: Value, to keyPath: ReferenceWritableKeyPath<Model, Value>, of model: Model
) {
    model[keyPath: keyPath] = value
}

/// The key paths Observation's `willSet` tracking (SwiftUI's) is told of, for a tracking of `read`.
func changedKeyPaths(reading read: () -> Void, writing write: () -> Void) -> [AnyKeyPath] {
    final class Seen: @unchecked Sendable { var keyPaths: [AnyKeyPath] = [] }
    let seen = Seen()
    withObservationTracking(read, willSet: { seen.keyPaths.append($0.changed!) }, didSet: { _ in })
    write()
    return seen.keyPaths
}

/// The check's value in a round, compared with what it should be.
struct Check {
    let name: String
    let expected: Int
    let run: () -> Int
}

let checks: [Check] = [
    Check(name: "a write of the property read", expected: 1) {
        let shelf = Shelf(title: "Fiction")
        return told(reading: { _ = shelf.title }, writing: { shelf.title = "Poetry" })
    },
    Check(name: "a change after equal writes (told once, at the change)", expected: 1) {
        let shelf = Shelf(title: "Fiction")
        return told(
            reading: { _ = shelf.title },
            writing: {
                shelf.title = "Fiction"
                shelf.title = "Fiction"
                shelf.title = "Poetry"
            })
    },
    Check(name: "a nested model's property, then the reference to it", expected: 2) {
        let catalog = Catalog(featured: Shelf(title: "Fiction"))
        return told(reading: { _ = catalog.featured.title }, writing: { catalog.featured.title = "Poetry" })
            + told(reading: { _ = catalog.featured.title }, writing: { catalog.featured = Shelf(title: "Drama") })
    },
    Check(name: "a subclass's own property", expected: 1) {
        let featured = FeaturedShelf("Emma")
        return told(reading: { _ = featured.badge }, writing: { featured.badge = "hot" })
    },
    Check(name: "a property a subclass inherits", expected: 1) {
        let featured = FeaturedShelf("Emma")
        return told(reading: { _ = featured.item }, writing: { featured.item = "Persuasion" })
    },
    Check(name: "a write through a key path (@Bindable)", expected: 1) {
        let shelf = Shelf(title: "Fiction")
        return told(reading: { _ = shelf.title }, writing: { write("Poetry", to: \Shelf.title, of: shelf) })
    },
    Check(name: "a new model after another went away", expected: 1) {
        do {
            let gone = Shelf(title: "Gone")
            _ = told(reading: { _ = gone.title }, writing: {})
        }
        let shelf = Shelf(title: "Fiction")
        return told(reading: { _ = shelf.title }, writing: { shelf.title = "Poetry" })
    },
    Check(name: "a private(set) property its model writes, told as \\Shelf.visits", expected: 1) {
        let shelf = Shelf(title: "Fiction")
        let keyPaths = changedKeyPaths(reading: { _ = shelf.visits }, writing: { shelf.visit() })
        return keyPaths == [\Shelf.visits] ? 1 : 0
    },
    Check(name: "an in-place mutation", expected: 1) {
        let shelf = Shelf(title: "Fiction")
        return told(reading: { _ = shelf.books }, writing: { shelf.books.append("Emma") })
    },
    Check(name: "@Untracked and @ObservationIgnored properties tell nothing", expected: 0) {
        let catalog = Catalog(featured: Shelf(title: "Fiction"))
        return told(
            reading: {
                _ = catalog.lastOpened
                _ = catalog.featured.cache
            },
            writing: {
                catalog.lastOpened = 1
                catalog.featured.cache["a"] = 1
            })
    },
    Check(name: "a write of another property tells nothing", expected: 0) {
        let shelf = Shelf(title: "Fiction")
        return told(reading: { _ = shelf.title }, writing: { shelf.books.append("Emma") })
    },
    Check(name: "a tracking on a new thread, written from this one", expected: 1) {
        // The thread only reads it, and is done before this one writes.
        final class Shared: @unchecked Sendable {
            let shelf = Shelf(title: "Fiction")
            let count = Atomic(0)
            let installed = DispatchSemaphore(value: 0)
        }
        let shared = Shared()
        let thread = Thread {
            withObservationTracking({ _ = shared.shelf.title }) { shared.count.add(1, ordering: .relaxed) }
            shared.installed.signal()
        }
        thread.start()
        shared.installed.wait()
        shared.shelf.title = "Poetry"
        return shared.count.load(ordering: .relaxed)
    },
]

let mode = ObservationBridge.readsTrackingDirectly ? "Observation's tracking read directly" : "every read forwarded"
var failures = 0
for check in checks {
    var wrong: [Int] = []
    for _ in 0..<rounds {
        let value = check.run()
        if value != check.expected { wrong.append(value) }
    }
    if wrong.isEmpty {
        print("ok    \(check.name)")
    } else {
        failures += 1
        print(
            "FAIL  \(check.name): \(wrong.count) of \(rounds) rounds wrong (got \(wrong.prefix(5)), want \(check.expected))"
        )
    }
}
print("bridge-check: \(checks.count - failures) of \(checks.count) checks passed, \(rounds) rounds each (\(mode))")
exit(failures == 0 ? 0 : 1)
