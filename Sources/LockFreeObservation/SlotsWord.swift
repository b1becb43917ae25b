/// The layout of `TrackedObject._slots`: the observed mask and lane 0's chain of slots, one word.
///
///     bits 48..<64  observed   bit 48 + p % 16 set once property p (or another property with
///                              the same bit) has had an observer; never cleared
///     bits  0..<48  address    lane 0's first `SlotBlock`, 0 for none (user-space addresses fit
///                              in 48 bits: `SlotBlock.allocate` checks)
///
/// One word for both, so that the second lane's chain (`TrackedObject._laneSlots`) costs an object
/// no word of its own: the three words of registrar state it had before lanes. A write loads it
/// once for both (the mask decides its protocol; the scan needs the address).
@usableFromInline
enum SlotsWord {
    @inlinable static var addressMask: UInt { 1 << 48 - 1 }

    @inlinable static func address(_ word: UInt) -> UInt { word & addressMask }

    /// The observed bit of `property`.
    @inlinable static func bit(_ property: Int) -> UInt { 1 &<< UInt(truncatingIfNeeded: 48 &+ (property & 15)) }

    /// The observed bits of the properties of a 64-property word's mask (property `w * 64 + i` has
    /// bit `i % 16`, as 64 is a multiple of 16).
    @inlinable static func bits(of mask: UInt64) -> UInt {
        let folded = mask | mask >> 16 | mask >> 32 | mask >> 48
        return UInt(truncatingIfNeeded: folded & 0xFFFF) << 48
    }
}
