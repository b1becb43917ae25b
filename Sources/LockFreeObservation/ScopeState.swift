/// The state word of a scope record, `ScopeRecord.state`:
///
///     bits 32..<64  generation   bumped each time the record is recycled
///     bits  8..<32  in flight    callbacks running now (one-shot: 0 or 1)
///     bits  0..< 8  phase        0 free, 1 armed, 2 closing
///
/// Legal transitions (each by one compare-and-swap, except where noted):
/// - free(g)              -> armed(g, 0)        by the arming thread (a store: the record is its own)
/// - armed(g, n)          -> armed(g, n + 1)    a mutation runs a continuous observer's callback
/// - armed(g, 0)          -> closing(g, 1)      a mutation wins a one-shot scope: the single `onChange`
/// - armed(g, n)          -> closing(g, n)      cancellation
/// - closing(g, n)        -> closing(g, n - 1)  a callback finished (an atomic subtraction)
/// - closing(g, 0)        -> free(g + 1)        whoever brought in-flight to 0 recycles the record
@usableFromInline
struct ScopeState: Equatable {
    @usableFromInline var raw: UInt64

    @usableFromInline static let free: UInt64 = 0
    @usableFromInline static let armed: UInt64 = 1
    @usableFromInline static let closing: UInt64 = 2
    @usableFromInline static let oneInFlight: UInt64 = 1 << 8

    @inlinable init(raw: UInt64) { self.raw = raw }

    @inlinable init(generation: UInt32, inFlight: UInt64 = 0, phase: UInt64) {
        raw = UInt64(generation) << 32 | inFlight << 8 | phase
    }

    @inlinable var generation: UInt32 { UInt32(truncatingIfNeeded: raw >> 32) }
    @inlinable var inFlight: UInt64 { (raw >> 8) & 0xFF_FFFF }
    @inlinable var phase: UInt64 { raw & 0xFF }
    @inlinable var isArmed: Bool { phase == Self.armed }
}

/// An observer slot's content: which scope (record index and generation) watches which properties.
/// A slot holds 0 when empty; record indices start at 1 so a used slot is never 0.
///
///     bits 40..<64  record index      (up to 16M records)
///     bits 16..<40  generation, low 24 bits
///     bits  0..<16  what it watches:  bit 15 set: bits 0..<15 are a mask of properties 0..<15
///                                     bit 15 clear: one property index (0..<32768)
///
/// The mask form lets a scope that reads several of an object's first 15 properties (a row reading a
/// book's title, author, availability and selection) publish one slot instead of one per property:
/// one compare-and-swap to install, one slot to scan and to clear. Properties from 15 on take a
/// slot each.
///
/// The 24-bit generation makes a stale slot harmless unless one record is recycled 16M times while a
/// mutation is paused between reading the slot and deciding on it; the record's full 32-bit
/// generation is compared at that point.
@usableFromInline
struct SlotContent {
    @usableFromInline var raw: UInt64

    /// Properties below this index share one slot per scope and object (the mask form).
    @inlinable static var maskedProperties: Int { 15 }
    @inlinable static var maskForm: UInt64 { 0x8000 }
    /// Property indices a slot can hold: 0..<32768.
    @inlinable static var propertyLimit: Int { 0x8000 }

    @inlinable init(raw: UInt64) { self.raw = raw }

    /// A slot for one property (any index below `propertyLimit`).
    @inlinable init(record: UInt32, generation: UInt32, property: Int) {
        precondition(property >= 0 && property < Self.propertyLimit, "property index out of range")
        raw = UInt64(record) << 40 | UInt64(generation & 0xFF_FFFF) << 16 | UInt64(property)
    }

    /// A slot for the properties whose bits are set in `mask` (bits 0..<15, at least one set).
    @inlinable init(record: UInt32, generation: UInt32, mask: UInt64) {
        raw = UInt64(record) << 40 | UInt64(generation & 0xFF_FFFF) << 16 | Self.maskForm | (mask & 0x7FFF)
    }

    @inlinable var record: UInt32 { UInt32(truncatingIfNeeded: raw >> 40) }
    @inlinable var generation24: UInt32 { UInt32(truncatingIfNeeded: raw >> 16) & 0xFF_FFFF }

    /// Whether this slot watches `property`.
    @inlinable func watches(_ property: Int) -> Bool {
        let low = raw & 0xFFFF
        if low & Self.maskForm != 0 {
            return property < Self.maskedProperties && (low >> UInt64(property)) & 1 != 0
        }
        return Int(low) == property
    }

    /// Whether `state` is the armed incarnation this slot was written for.
    @inlinable func isLive(in state: ScopeState) -> Bool {
        state.isArmed && state.generation & 0xFF_FFFF == generation24
    }
}
