@preconcurrency import CTrackingSupport
import Synchronization

// The lock-free registrar's side of a write (`Design/Object+Mutation.swift`): whether a property
// is observed, and the slow paths, which scan the object's slots with no lock.
extension TrackedObject {
    /// Whether `property` may be observed: chooses the write's protocol (relaxed: each protocol
    /// orders its own loads, see `_writes`).
    @inlinable @inline(__always)
    final func _mayBeObserved(_ property: Int) -> Bool {
        _slots.load(ordering: .relaxed) & SlotsWord.bit(property) != 0
    }

    /// Whether `property` is observed, after an unobserved write's count (seq_cst: the writer's half
    /// of the Dekker pair with an install).
    @inlinable @inline(__always)
    final func _isObservedNow(_ property: Int) -> Bool {
        _slots.load(ordering: .sequentiallyConsistent) & SlotsWord.bit(property) != 0
    }

    /// An observed property's write begins: counted in flight, then its observers are told. An
    /// instance method with the scan inlined: a static one taking the object unretained, around a
    /// call to `_notifyObservers`, would cost every observed write a frame.
    @usableFromInline @inline(never)
    final func _beginObservedWrite(of property: Int) {
        // seq_cst: the writer's half of the Dekker pair with `TrackingScope.install` (see
        // `_writes`); the scan's slot loads are seq_cst too.
        Registrar.observedWriteBegins()
        _ = _writes.wrappingAdd(WriteWord.begin, ordering: .sequentiallyConsistent)
        _schedulePoint()
        _scanObservers(of: property, straddlersOnly: false)
    }

    /// The slow path of `didMutate`: `straddled` was set. Notifies the straddling scopes that watch
    /// `property`, then clears `straddled` if no write is in flight any more.
    @inline(never)
    final func _endStraddle(of property: Int) {
        _notifyStraddlingObservers(of: property)
        var word = _writes.load(ordering: .relaxed)
        while WriteWord.inFlight(word) == 0 && word & WriteWord.straddled != 0 {
            // Relaxed: clearing publishes nothing; a straddler that sets it again is served by the
            // next write's end, or by itself (see `_writes`).
            let (exchanged, current) = _writes.compareExchange(
                expected: word, desired: word & ~WriteWord.straddled, ordering: .relaxed)
            if exchanged { return }
            word = current
        }
    }
}
