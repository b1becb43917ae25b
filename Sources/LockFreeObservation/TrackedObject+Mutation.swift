@preconcurrency import CTrackingSupport
import Synchronization

extension TrackedObject {
    /// Announces that `property` is about to change: the "willSet" of Observation. Observers of the
    /// property are called synchronously, before the caller stores the new value. Call
    /// `didMutate(_:)` right after the store; `withMutation(_:_:)` and `@Tracked` do both for you.
    ///
    /// When nobody observes the property this is one atomic increment and one load.
    @inlinable @inline(__always)
    public final func willMutate(_ property: Int) {
        precondition(UInt(bitPattern: property) < UInt(TrackedObject.propertyLimit), "property index out of range")
        // seq_cst: the writer's half of the Dekker pair with `TrackingScope.install` (see `_writes`).
        // On x86 the increment is the full barrier and the seq_cst loads are plain loads.
        _ = _writes.wrappingAdd(WriteWord.begin, ordering: .sequentiallyConsistent)
        // Before the observers run: entries their callbacks add are not this write's readers.
        if _slowPath(_trackingDepth != 0) {
            TrackedObject._countOwnWrite(Unmanaged.passUnretained(self).toOpaque())
        }
        if _slowPath(_observed.load(ordering: .sequentiallyConsistent) & (1 << UInt64(property & 63)) != 0) {
            TrackedObject._notifyObservers(Unmanaged.passUnretained(self).toOpaque(), of: property)
        }
        _schedulePoint()
    }

    /// Announces that the write of `property` announced by `willMutate(_:)` is stored: scopes that
    /// read the object while the write was in flight, and so may hold the old value, are notified.
    /// One atomic subtraction.
    @inlinable @inline(__always)
    public final func didMutate(_ property: Int) {
        _schedulePoint()
        // Release: the store is visible to a scope whose read loads this word later (see `_writes`).
        // Acquire: when `straddled` is set, the straddling slots published before it are visible.
        let old = _writes.wrappingSubtract(WriteWord.end, ordering: .acquiringAndReleasing).oldValue
        if _slowPath(old & WriteWord.straddled != 0) {
            TrackedObject._notifyStraddlers(Unmanaged.passUnretained(self).toOpaque(), of: property)
        }
    }

    /// Runs `mutation` (the store) between `willMutate(property)` and `didMutate(property)`.
    @inlinable @inline(__always)
    public final func withMutation<T>(_ property: Int, _ mutation: () throws -> T) rethrows -> T {
        willMutate(property)
        defer { didMutate(property) }
        return try mutation()
    }

    // The slow paths take the object unretained, so that the inlined fast path does not retain it.
    // The caller keeps the object alive: a mutation stores into it around these calls.
    @usableFromInline
    static func _notifyObservers(_ object: UnsafeMutableRawPointer, of property: Int) {
        Unmanaged<TrackedObject>.fromOpaque(object)._withUnsafeGuaranteedRef {
            $0._notifyObservers(of: property, straddlersOnly: false)
        }
    }

    @usableFromInline
    static func _notifyStraddlers(_ object: UnsafeMutableRawPointer, of property: Int) {
        Unmanaged<TrackedObject>.fromOpaque(object)._withUnsafeGuaranteedRef { $0._endStraddle(of: property) }
    }

    @usableFromInline @_effects(releasenone)
    static func _countOwnWrite(_ object: UnsafeMutableRawPointer) {
        Unmanaged<TrackedObject>.fromOpaque(object)._withUnsafeGuaranteedRef { $0._countOwnWrite() }
    }

    /// A mutation inside a tracked closure moves `begun` without being a change the scope missed:
    /// count it in this thread's entries for the object, so that the install-time check expects it.
    final func _countOwnWrite() {
        let thread = tracking_thread_state()!
        let me = Unmanaged.passUnretained(self).toOpaque()
        let entries = thread.pointee.entries!
        for i in 0..<thread.pointee.count where entries[i].object == me {
            entries[i].ownWrites &+= 1
        }
    }

    /// The slow path of `didMutate`: `straddled` was set. Notifies the straddling scopes that watch
    /// `property`, then clears `straddled` if no write is in flight any more.
    @inline(never)
    final func _endStraddle(of property: Int) {
        _notifyObservers(of: property, straddlersOnly: true)
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
