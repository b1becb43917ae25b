/// The layout of `TrackedObject._slots`: the observed mask and lane 0's chain of slots, one word.
///
///     bits 16..<64  address    lane 0's first `SlotBlock`, shifted left by 16 (user-space
///                              addresses fit in 48 bits: `SlotBlock.allocate` checks); 0 for none
///     bits  0..<16  observed   bit p % 16 set once property p (or another property with the same
///                              bit) has had an observer; never cleared
///
/// One word for both, so that the registrar's state stays three words with the second lane's chain
/// (`TrackedObject._laneSlots`): a fourth would put a small model in a larger size class. The mask
/// is the low half, so that a write tests its bit with an immediate operand (in the high bits it
/// would take a register).
@usableFromInline
enum SlotsWord {
    @inlinable static func address(_ word: UInt) -> UInt { word &>> 16 }

    /// The word's address part for a block at `address`.
    @inlinable static func word(address: UInt) -> UInt { address &<< 16 }

    /// Whether `address` can be stored (below 2^48).
    @inlinable static func fits(_ address: UInt) -> Bool { address &>> 48 == 0 }

    /// The observed bit of `property`.
    @inlinable static func bit(_ property: Int) -> UInt { 1 &<< UInt(truncatingIfNeeded: property & 15) }

    /// The observed bits of the properties of a 64-property word's mask (property `w * 64 + i` has
    /// bit `i % 16`, as 64 is a multiple of 16). A mask of the first 16 properties is its own, with
    /// no folding.
    @inlinable static func bits(of mask: UInt64) -> UInt {
        if mask <= 0xFFFF { return UInt(truncatingIfNeeded: mask) }
        return UInt(truncatingIfNeeded: (mask | mask &>> 16 | mask &>> 32 | mask &>> 48) & 0xFFFF)
    }
}
