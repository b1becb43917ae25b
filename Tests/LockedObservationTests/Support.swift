import Foundation
import LockFreeObservation
import LockedObservation
import Synchronization

/// Whether this process runs the tests that need no observed write in flight anywhere in the
/// process (`TRACKING_TESTS_ALONE=1`). Those tests look at the process-wide count of writes in
/// flight, which every other test of the package writes when it runs beside them, so they run
/// only in a process of their own, one at a time: `scripts/test.sh` runs them with
/// `TRACKING_TESTS_ALONE=1 swift test --filter 'CheckedArmingTests|aHeldRunLetsGoOfItsCursor'`.
/// Elsewhere they are skipped.
let runsAlone = ProcessInfo.processInfo.environment["TRACKING_TESTS_ALONE"] == "1"

/// A model with two hand-written properties, as the contender's models spell them.
final class Counter: LockedObject, @unchecked Sendable {
    // `@unchecked Sendable`: the tests that share one across threads write `value` from one thread
    // and read it under a tracked read; the oracle reads it only when told of a change.
    private let storage = Atomic<Int>(0)
    private var _label = ""

    var value: Int {
        get { trackAccess(0); return storage.load(ordering: .acquiring) }
        set { withMutation(0) { storage.store(newValue, ordering: .releasing) } }
    }

    var label: String {
        get { trackAccess(1); return _label }
        set { withMutation(1) { _label = newValue } }
    }

    /// Stores `value` untold: the store between a `willMutate(0)` and its `didMutate`.
    func storeValue(_ value: Int) { storage.store(value, ordering: .releasing) }
}

/// Counts the calls it gets.
final class Probe: ChangeObserver, Sendable {
    let calls = Atomic<Int>(0)
    func observedValueWillChange() { calls.add(1, ordering: .relaxed) }
    var count: Int { calls.load(ordering: .relaxed) }
}

/// Runs `body` on a new thread and waits for it.
func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    Thread { body(); done.signal() }.start()
    done.wait()
}

/// An observed write of an object of its own (watched by a scope of its own), begun on another
/// thread and left in flight until `end()`: every run that begins meanwhile holds its cursor.
final class AnotherObjectsWriteInFlight: @unchecked Sendable {
    // `@unchecked Sendable`: `mutation` is set and read on threads joined in between.
    let busy = Counter()
    let watcher = LockedScope(Probe())
    private var mutation: LockedMutation?

    init() {
        _ = watcher.run { busy.value }
        onAnotherThread { [self] in mutation = busy.willMutate(0) }
    }

    func end() {
        onAnotherThread { [self] in busy.didMutate(mutation!) }
        watcher.cancel()
    }
}
