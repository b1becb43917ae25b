/// The state word of a scope record, `ScopeRecord.state`:
///
///     bits 32..<64  generation   bumped each time the record is recycled; below `generationLimit`
///     bits 24..<32  run          a reusable scope's runs begun, modulo 256 (`Claim`); 0 otherwise
///     bits  8..<24  in flight    callbacks claimed and not yet finished (one-shot: 0 or 1)
///     bits  0..< 8  phase        0 free, 1 armed, 2 closing, 3 idle (a reusable scope between runs),
///                                5 reading (a one-shot body installing at its reads), 7 reading,
///                                changed (a write of another thread found it so); the phases
///                                that hold their slots are the odd ones
///
/// Legal transitions (each by one compare-and-swap, except where noted):
/// - free(g)              -> armed(g, 0)        by the arming thread (a store: the record is its own)
/// - free(g)              -> idle(g, 0)         a reusable scope is created (a store, likewise)
/// - free(g)              -> reading(g, 0)      a one-shot body that installs at its reads begins
///                                              (a store, likewise; `TrackingScope.takeRecord`)
/// - reading(g, 0)        -> changed(g, 0)      a mutation of another thread finds it (no callback yet)
/// - reading/changed(g, 0) -> armed(g, 0)       the body ends (its owner), then reports the change
/// - reading/changed(g, 0) -> closing(g, 0)     the body threw (its owner)
/// - armed(g, n)          -> armed(g, n + 1)    a mutation claims a continuous observer's callback
/// - armed(g, 0)          -> closing(g, 1)      a mutation wins a one-shot scope: the single `onChange`
/// - armed(g, n)          -> idle(g, n + 1)     a mutation wins a reusable scope's run
/// - armed(g, n)          -> idle(g, n)         a reusable scope's run ends untold (its owner)
/// - idle(g, n, r)        -> armed(g, n, r + 1) a reusable scope's run begins (its owner)
/// - armed(g, n)          -> closing(g, n)      cancellation
/// - idle(g, n)           -> closing(g, n)      a reusable scope is cancelled (its owner)
/// - x(g, n)              -> x(g, n - 1)        a claimed callback finished or was dropped (a subtraction)
/// - closing(g, 0)        -> free(g + 1)        whoever brought in-flight to 0 recycles the record
///                                              (or retires it for good when g + 1 reaches the limit)
///
/// A continuous callback claimed while armed runs only if its scope is still armed when it is about
/// to start (an acquire load, linearised before any later `cancel()`); otherwise it is dropped. So
/// a `cancel()` that returned `true` is never followed by a callback start.
///
/// A reusable scope's callback runs only if no run of the scope has begun since its claim (the
/// `run` field still holds the claim's: `Claim`). A run that begins first reads the values the
/// write announced (or straddles it, and its end tells the run: `TrackedObject._writes`), so the
/// callback would tell that run of a change it has seen, and the run's own first change would
/// tell it again. The field counts modulo 256: a callback whose claim waited through a multiple
/// of 256 runs of its scope before it could start (inside other callbacks of the write that
/// claimed it) runs.
///
/// While a record is armed, idle or reading for generation g, the slots written for g are *held*:
/// no other scope may reuse them and no scan empties them (`SlotContent.isHeld(in:)`).
///
/// A reading record is neither claimed nor cancelled: a mutation that finds it marks it changed,
/// and its body's end, on the tracking thread, arms it and reports the change, as `install` does
/// for a change that raced a read. So `withTracking`'s callback never runs before its body ends.
@usableFromInline
struct ScopeState: Equatable {
    @usableFromInline var raw: UInt64

    /// The phase field, bits 0..<8.
    @usableFromInline
    enum Phase: UInt64 {
        case free = 0
        case armed = 1
        case closing = 2
        case idle = 3
        case reading = 5
        case readingChanged = 7
    }

    @usableFromInline static let oneInFlight: UInt64 = 1 << 8
    /// Callbacks a record can have in flight at once: 16 bits of them.
    @usableFromInline static let inFlightLimit: UInt64 = 0xFFFF
    /// The `run` field, bits 24..<32: the top byte of the word's low half (`Claim` copies it).
    static let runBits: UInt64 = 0xFF00_0000
    @usableFromInline static let phaseBits: UInt64 = 0xFF

    /// Generations a record lives through before it is retired: an observer slot stores a
    /// generation in `SlotContent.generationBits` bits, and a record is never armed with a
    /// generation a slot could not tell apart from an older one (see `ScopeTable.recycle`).
    @usableFromInline static let generationLimit: UInt32 = 1 << SlotContent.generationBits

    @inlinable init(raw: UInt64) { self.raw = raw }

    @inlinable init(generation: UInt32, inFlight: UInt64 = 0, phase: Phase) {
        raw = UInt64(generation) << 32 | inFlight << 8 | phase.rawValue
    }

    @inlinable var generation: UInt32 { UInt32(truncatingIfNeeded: raw >> 32) }
    @inlinable var inFlight: UInt64 { (raw >> 8) & Self.inFlightLimit }
    /// `nil` only for a corrupt word (`_checkInvariants` reports it).
    @inlinable var phase: Phase? { Phase(rawValue: raw & Self.phaseBits) }
    @inlinable var isArmed: Bool { raw & Self.phaseBits == Phase.armed.rawValue }
    @inlinable var isFree: Bool { raw & Self.phaseBits == Phase.free.rawValue }
    @inlinable var isIdle: Bool { raw & Self.phaseBits == Phase.idle.rawValue }
    /// A one-shot body installing at its reads, changed or not (`TrackingScope.takeRecord`).
    @inlinable var isReading: Bool { raw & Self.phaseBits | 2 == Phase.readingChanged.rawValue }
    /// Armed, or reading and not yet marked changed: the phases a write it finds concerns (1 and 5,
    /// the two whose low bits are 01: one test on a writer's scan).
    @inlinable var takesNotice: Bool { raw & 3 == Phase.armed.rawValue }
    /// Whether the slots of this incarnation are held (see the type's notes): armed, idle or
    /// reading, the odd phases (one bit test on a writer's scan).
    @inlinable var holdsSlots: Bool { raw & 1 != 0 }
    /// A closed scope whose last callback has finished: its record goes back to the pool.
    /// Closing with no callback in flight: the low 32 bits are exactly the closing phase (one
    /// compare).
    @inlinable var isDone: Bool { raw & 0xFF_FFFF == Phase.closing.rawValue }

    // The transitions listed above, the only code that builds state words.

    /// free(g) -> armed(g, 0).
    @inlinable var armed: ScopeState { ScopeState(generation: generation, phase: .armed) }

    /// free(g) -> idle(g, 0).
    @inlinable var idle: ScopeState { ScopeState(generation: generation, phase: .idle) }

    /// armed(g, n) or idle(g, n) -> closing(g, n): cancellation.
    @inlinable var cancelled: ScopeState { withPhase(.closing) }

    /// armed(g, n) -> idle(g, n): a reusable scope ends.
    @inlinable var disarmed: ScopeState { withPhase(.idle) }

    /// idle(g, n, r) -> armed(g, n, r + 1): a reusable scope's run begins, and no callback claimed
    /// before it starts (`Claim`).
    var rearmed: ScopeState {
        // The field wraps without a carry into the generation.
        let nextRun = (raw &+ (1 << 24)) & Self.runBits
        return ScopeState(raw: (raw & ~(Self.runBits | Self.phaseBits)) | nextRun | Phase.armed.rawValue)
    }

    @inlinable func withPhase(_ phase: Phase) -> ScopeState {
        ScopeState(raw: (raw & ~Self.phaseBits) | phase.rawValue)
    }

    /// armed(g, n) -> armed(g, n + 1) (continuous), armed(g, 0) -> closing(g, 1) (one-shot), or
    /// armed(g, n) -> idle(g, n + 1) (reusable).
    @inlinable func claimed(_ kind: ScopeKind) -> ScopeState {
        switch kind {
        case .continuous: ScopeState(raw: raw &+ Self.oneInFlight)
        case .oneShot: ScopeState(raw: withPhase(.closing).raw &+ Self.oneInFlight)
        case .reusable: ScopeState(raw: withPhase(.idle).raw &+ Self.oneInFlight)
        }
    }

    /// closing(g, 0) -> free(g + 1): recycled (retired instead at the generation limit).
    @inlinable var recycled: ScopeState { ScopeState(generation: generation &+ 1, phase: .free) }

    /// Traps if the word breaks an invariant: a known phase, a generation below the limit while
    /// the record can be armed, at most one callback in flight for a one-shot scope. Debug builds
    /// only (the tests, the stress suite among them); nothing in release builds.
    @inline(__always)
    func _checkInvariants(continuous: Bool? = nil) {
        #if DEBUG
            precondition(phase != nil, "scope state \(String(raw, radix: 16)): unknown phase")
            precondition(
                generation < Self.generationLimit || (phase == .free && generation == Self.generationLimit),
                "scope state \(String(raw, radix: 16)): generation beyond the limit")
            precondition(
                phase != .free || inFlight == 0, "scope state \(String(raw, radix: 16)): free with callbacks in flight")
            precondition(
                inFlight < Self.inFlightLimit,
                "scope state \(String(raw, radix: 16)): callbacks in flight at the limit")
            if continuous == false {
                precondition(
                    inFlight <= 1,
                    "scope state \(String(raw, radix: 16)): one-shot with \(inFlight) callbacks in flight")
            }
        #endif
    }
}

/// A callback claimed and waiting to run, in one word (the thread's `pending` list holds them):
///
///     bits 24..<32  run     for a reusable scope, the state's `run` field when the claim won it
///     bits  0..<24  record  the scope's record index (16M records at most: `ScopeTable`)
///
/// `TrackingScope.runCallback` starts a reusable scope's callback only if its record still shows
/// that run: a run that began since has seen the change (see `ScopeState`).
struct Claim {
    var raw: UInt32

    init(raw: UInt32) { self.raw = raw }

    /// The claim that took `state` (the word it wrote) of record `record`.
    init(record: UInt32, _ state: ScopeState) {
        raw = record | UInt32(truncatingIfNeeded: state.raw & ScopeState.runBits)
    }

    var record: UInt32 { raw & 0xFF_FFFF }

    /// Whether `state` shows the run this claim ended.
    func isOfTheRun(in state: ScopeState) -> Bool {
        (UInt32(truncatingIfNeeded: state.raw) ^ raw) & UInt32(ScopeState.runBits) == 0
    }
}

/// `ScopeRecord.watchedSlots`: bits 32..<64 the generation it was set for, bits 0..<32 the count of
/// slots that incarnation still holds in living objects.
struct WatchedSlots {
    var raw: UInt64
    init(raw: UInt64) { self.raw = raw }
    init(generation: UInt32, count: UInt64) { raw = UInt64(generation) << 32 | count }
    var generation: UInt32 { UInt32(truncatingIfNeeded: raw >> 32) }
    var count: UInt64 { raw & 0xFFFF_FFFF }
    /// One slot fewer, for the same generation.
    var lessOne: WatchedSlots { WatchedSlots(raw: raw - 1) }
}

/// An observer slot's content: which scope (record index and generation) watches which properties.
/// A slot holds 0 when empty; record indices start at 1 so a used slot is never 0.
///
///     bits 40..<64  record index      (up to 16M records)
///     bit  39       straddling        the scope read the object while a write of it was in flight
///     bits 16..<39  generation        exact: records retire before reaching 2^23 (`generationLimit`)
///     bits  0..<16  what it watches:  bit 15 set: bits 0..<15 are a mask of properties 0..<15
///                                     bit 15 clear: one property index (0..<32768)
///
/// The mask form lets a scope that reads several of an object's first 15 properties (a row reading a
/// book's title, author, availability and selection) publish one slot instead of one per property:
/// one compare-and-swap to install, one slot to scan and to clear. Properties from 15 on take a
/// slot each.
///
/// Slots of fired or cancelled scopes stay in their objects until a scan or an install reuses
/// them, possibly for ever. Their generation is exact (a record retires before its generation
/// could wrap), so a stale slot never matches a later incarnation of its record.
///
/// A straddling slot is one whose scope may have read a value that a write in flight at the time
/// was about to replace: the end of each write of a property it watches notifies it (see
/// `TrackedObject._writes`).
@usableFromInline
struct SlotContent {
    @usableFromInline var raw: UInt64

    /// Properties below this index share one slot per scope and object (the mask form).
    @inlinable static var maskedProperties: Int { 15 }
    @inlinable static var maskForm: UInt64 { 0x8000 }
    /// Property indices a slot can hold: 0..<32768 (`TrackedObject.propertyLimit`).
    @inlinable static var propertyLimit: Int { 0x8000 }
    @usableFromInline static let generationBits = 23
    @inlinable static var generationMask: UInt64 { (1 << UInt64(generationBits)) - 1 }
    @inlinable static var straddlingBit: UInt64 { 1 << 39 }

    @inlinable init(raw: UInt64) { self.raw = raw }

    /// A slot for one property (any index below `propertyLimit`).
    @inlinable init(record: UInt32, generation: UInt32, property: Int, straddling: Bool = false) {
        precondition(property >= 0 && property < Self.propertyLimit, "property index out of range")
        raw = Self.header(record: record, generation: generation, straddling: straddling) | UInt64(property)
    }

    /// A slot for the properties whose bits are set in `mask` (bits 0..<15, at least one set).
    @inlinable init(record: UInt32, generation: UInt32, mask: UInt64, straddling: Bool = false) {
        raw =
            Self.header(record: record, generation: generation, straddling: straddling) | Self.maskForm
            | (mask & 0x7FFF)
    }

    @inlinable static func header(record: UInt32, generation: UInt32, straddling: Bool) -> UInt64 {
        UInt64(record) << 40 | (straddling ? straddlingBit : 0) | (UInt64(generation) & generationMask) << 16
    }

    @inlinable var record: UInt32 { UInt32(truncatingIfNeeded: raw >> 40) }
    @inlinable var generation: UInt32 { UInt32(truncatingIfNeeded: (raw >> 16) & Self.generationMask) }
    @inlinable var isStraddling: Bool { raw & Self.straddlingBit != 0 }
    /// Whether it watches a mask of the properties below `maskedProperties` (not one property).
    @inlinable var isMasked: Bool { raw & Self.maskForm != 0 }
    /// The same slot, no longer straddling.
    @inlinable var settled: SlotContent { SlotContent(raw: raw & ~Self.straddlingBit) }

    /// Whether this slot watches `property`.
    @inlinable func watches(_ property: Int) -> Bool {
        let low = raw & 0xFFFF
        if low & Self.maskForm != 0 {
            // Masking shift, no conversion check: property indices are never negative (checked
            // where they are given), and this one is below 15 here.
            return property < Self.maskedProperties && (low &>> UInt64(truncatingIfNeeded: property)) & 1 != 0
        }
        return Int(low) == property
    }

    /// Whether `state` is the armed (or reading) incarnation this slot was written for. Exact: a record's
    /// generation never reaches `ScopeState.generationLimit` while it can be armed.
    @inlinable func isLive(in state: ScopeState) -> Bool {
        (state.isArmed || state.isReading) && state.generation == generation
    }

    /// Whether the incarnation this slot was written for still holds it: armed, a reusable scope
    /// idle between runs, which keeps its slots for its next run, or a one-shot body reading.
    @inlinable func isHeld(in state: ScopeState) -> Bool {
        state.holdsSlots && state.generation == generation
    }
}
