import LockFreeObservation
import LockedObservation
import RegistrarTestSupport
import Synchronization

// The locked registrar's own fixtures. The shared ones (`CountingObserver`, `onNewThread`,
// `Unchecked`, `runsAlone`, ...) are in RegistrarTestSupport; the promises both registrars make
// are tested once, against each, in RegistrarContractTests.

/// A model with two hand-written properties, as the contender's models spell them.
final class CounterModel: LockedObject, @unchecked Sendable {
    // `@unchecked Sendable`: the tests that share one across threads write `value` from one thread
    // and read it under a tracked read; the oracle reads it only when told of a change.
    private let storage = Atomic<Int>(0)
    private var _label = ""

    var value: Int {
        get {
            trackAccess(0)
            return storage.load(ordering: .acquiring)
        }
        set { withMutation(0) { storage.store(newValue, ordering: .releasing) } }
    }

    var label: String {
        get {
            trackAccess(1)
            return _label
        }
        set { withMutation(1) { _label = newValue } }
    }

    /// Stores `value` untold: the store between a `willMutate(0)` and its `didMutate`.
    func storeValue(_ value: Int) { storage.store(value, ordering: .releasing) }
}
