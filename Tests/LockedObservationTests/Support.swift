import LockFreeObservation
import LockedObservation
import Synchronization

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
}

/// Counts the calls it gets.
final class Probe: ChangeObserver, Sendable {
    let calls = Atomic<Int>(0)
    func observedValueWillChange() { calls.add(1, ordering: .relaxed) }
    var count: Int { calls.load(ordering: .relaxed) }
}
