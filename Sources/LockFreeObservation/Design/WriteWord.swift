import CTrackingSupport

/// The layout of `TrackedObject._writes`; the invariants are documented there.
@usableFromInline
enum WriteWord {
    /// Added by `willMutate`: one more write begun, one more in flight.
    @inlinable static var begin: UInt64 { 1 << 25 | 1 }
    /// Subtracted by `didMutate`: one write fewer in flight.
    @inlinable static var end: UInt64 { 1 }
    /// One begun write, as counted in the `begun` field.
    @inlinable static var begunUnit: UInt64 { 1 << 25 }
    @inlinable static var straddled: UInt64 { 1 << 24 }
    @inlinable static var inFlightMask: UInt64 { TRACKING_IN_FLIGHT_MASK }  // 0xFF_FFFF, shared with C

    @inlinable static func inFlight(_ word: UInt64) -> UInt64 { word & inFlightMask }

    /// `word` without the `straddled` flag: what the install re-check compares.
    @inlinable static func counts(_ word: UInt64) -> UInt64 { word & ~straddled }
}
