import LockFreeObservation
import Observation
import Synchronization

/// How many times a one-shot scope that ran `read` is told when `write` runs: Observation's rule
/// is once for a change (at willSet), never for an equal value or the same object, and once for
/// every write of a value that is neither `Equatable` nor a class reference.
func told(reading read: () -> Void, writing write: () -> Void) -> Int {
    let count = Atomic(0)
    withTracking(read) { count.add(1, ordering: .relaxed) }
    write()
    write()
    return count.load(ordering: .relaxed)
}

/// The same, for a scope of Observation's own (`withObservationTracking`): the reference.
func observationTold(reading read: () -> Void, writing write: () -> Void) -> Int {
    let count = Atomic(0)
    withObservationTracking(read) { count.add(1, ordering: .relaxed) }
    write()
    write()
    return count.load(ordering: .relaxed)
}
