@preconcurrency import CTrackingSupport
import Synchronization

/// A write announced by ``TrackedObject/willMutate(_:)``, to be ended by
/// ``TrackedObject/didMutate(_:)`` right after the store.
///
/// Two words, on the stack: the property, and whether it was observed when the write was
/// announced, which decides how the write ends. Not `Sendable`: a write ends on the thread that
/// announced it.
@frozen
public struct PendingMutation {
    @usableFromInline let property: Int
    /// Whether the property was observed when the write was announced: the write is then counted
    /// in flight in the object's write word until it ends.
    @usableFromInline let counted: Bool

    @inlinable init(property: Int, counted: Bool) {
        self.property = property
        self.counted = counted
    }
}

extension RegistrarObject {
    /// Announces that `property` is about to change: Observation's willSet.
    ///
    /// The scopes watching the property are told synchronously, on the calling thread, before this
    /// returns: before the caller stores the new value. Store, then pass the result to
    /// ``didMutate(_:)``; ``withMutation(_:_:)`` and ``TrackedModel()``'s setters do both.
    ///
    /// - Parameter property: The index of the property about to change, below ``propertyLimit`` (a
    ///   precondition).
    /// - Returns: The announced write, to pass to ``didMutate(_:)`` right after the store.
    ///
    /// Cost: while no scope has ever watched the property's bit in this object, this and
    /// ``didMutate(_:)`` together cost one atomic increment and two loads, inlined. Otherwise the
    /// object's observer slots are scanned (linear in the slots the object holds) and each scope
    /// found is told.
    ///
    /// Callbacks run on the calling thread before this returns, and may do anything a tracked
    /// body may: read and write (this property too), track, re-arm, run reusable scopes, cancel
    /// any scope and drop objects. A write made inside a scope's own body (a tracked closure, a
    /// ``ReusableScope`` run) does not tell that scope.
    @inlinable @inline(__always)
    public final func willMutate(_ property: Int) -> PendingMutation {
        precondition(UInt(bitPattern: property) < UInt(RegistrarObject.propertyLimit), "property index out of range")
        // Before any observer runs: entries their callbacks add are not this write's readers.
        if _slowPath(_trackingDepth != 0) {
            RegistrarObject._countOwnWrite(Unmanaged.passUnretained(self).toOpaque())
        }
        // Relaxed: this only chooses the protocol; each one orders its own loads (see `_writes`).
        if _slowPath(_mayBeObserved(property)) {
            _beginObservedWrite(of: property)
            return PendingMutation(property: property, counted: true)
        }
        _schedulePoint()
        return PendingMutation(property: property, counted: false)
    }

    /// Ends the write announced by ``willMutate(_:)``; call it right after the store.
    ///
    /// Tells the scopes that may hold the value the write replaced and were not told before the
    /// store: a scope that read the property while the write was under way, or that was installing
    /// while a write of a property nobody watched yet was storing. Their callbacks run
    /// synchronously on the calling thread, before this returns.
    ///
    /// - Parameter mutation: What ``willMutate(_:)`` returned for this write; end each write once.
    @inlinable @inline(__always)
    public final func didMutate(_ mutation: PendingMutation) {
        _schedulePoint()
        if _slowPath(mutation.counted) {
            // Release: the store is visible to a scope whose read loads this word later. Acquire:
            // when `straddled` is set, the straddling slots published before it are visible.
            let old = _writes.wrappingSubtract(WriteWord.end, ordering: .acquiringAndReleasing).oldValue
            if _slowPath(old & WriteWord.straddled != 0) {
                RegistrarObject._notifyStraddlers(Unmanaged.passUnretained(self).toOpaque(), of: mutation.property)
            }
            tracking_observed_write_ends(registrarWords())
            return
        }
        // seq_cst: the writer's half of the Dekker pair with `TrackingScope.install`: the count
        // (a release of the store), then the mask. On x86 the increment is the full barrier and
        // the seq_cst load a plain load.
        _ = _writes.wrappingAdd(WriteWord.begunUnit, ordering: .sequentiallyConsistent)
        if _slowPath(_isObservedNow(mutation.property)) {
            RegistrarObject._notifyObservers(Unmanaged.passUnretained(self).toOpaque(), of: mutation.property)
        }
    }

    /// Runs `mutation`, the store, between ``willMutate(_:)`` and ``didMutate(_:)``.
    ///
    /// - Parameters:
    ///   - property: The index of the property `mutation` changes, below ``propertyLimit``.
    ///   - mutation: The store. It runs after the scopes watching the property have been told.
    /// - Returns: What `mutation` returns.
    /// - Throws: What `mutation` throws; the write is ended either way.
    @inlinable @inline(__always)
    public final func withMutation<T>(_ property: Int, _ mutation: () throws -> T) rethrows -> T {
        let pending = willMutate(property)
        defer { didMutate(pending) }
        return try mutation()
    }

    // The slow paths take the object unretained, so that the inlined fast path does not retain it.
    // The caller keeps the object alive: a mutation stores into it around these calls.
    @usableFromInline
    static func _notifyObservers(_ object: UnsafeMutableRawPointer, of property: Int) {
        Unmanaged<RegistrarObject>.fromOpaque(object)._withUnsafeGuaranteedRef { $0._notifyObservers(of: property) }
    }

    @usableFromInline
    static func _notifyStraddlers(_ object: UnsafeMutableRawPointer, of property: Int) {
        Unmanaged<RegistrarObject>.fromOpaque(object)._withUnsafeGuaranteedRef { $0._endStraddle(of: property) }
    }

    @usableFromInline @_effects(releasenone)
    static func _countOwnWrite(_ object: UnsafeMutableRawPointer) {
        Unmanaged<RegistrarObject>.fromOpaque(object)._withUnsafeGuaranteedRef { $0._countOwnWrite() }
    }
}
