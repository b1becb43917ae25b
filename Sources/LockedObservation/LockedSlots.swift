import CTrackingSupport
import LockFreeObservation
import Synchronization

/// An object's observer slots, each a `SlotContent` (0 when empty), in one array grown by
/// doubling. Every field is guarded by the object's lock (`LockedObject._observers`).
///
/// As the lock-free registrar's slots, a slot whose scope no longer holds it (fired, cancelled,
/// recycled) stays until a scan or an insert reclaims it.
///
/// `@unchecked Sendable`: it only ever lives inside its object's `Mutex`, so every access is made
/// under the lock.
struct LockedSlots: @unchecked Sendable {
    var base: UnsafeMutablePointer<UInt64>? = nil
    var capacity = 0
    /// Slots `0..<used` have been handed out at least once (a write scans these).
    var used = 0
    /// Where an insert starts looking, as in the lock-free registrar's slot blocks: after the slot
    /// last handed out, or lower where a scan emptied one.
    var hint = 0

    static let firstCapacity = 4

    /// Stores `content` in an empty slot, or in one whose scope no longer holds it. No slot's
    /// address leaves the lock: returns nil.
    @discardableResult
    mutating func insert(_ content: SlotContent) -> UnsafeMutablePointer<Atomic<UInt64>>? {
        insert(content.raw)
        return nil
    }

    /// Empties one slot holding `content`, if any (`slot`: no address is handed out).
    mutating func remove(_ content: SlotContent, at slot: UnsafeMutablePointer<Atomic<UInt64>>?) {
        remove(content.raw)
    }

    mutating func insert(_ content: UInt64) {
        // From the hint to the end, then from the start to the hint; append only when every slot
        // handed out is held.
        var i = hint < used ? hint : 0
        for _ in 0..<used {
            let raw = base.unsafelyUnwrapped[i]
            if raw == 0 || !Self.isHeld(raw) {
                base.unsafelyUnwrapped[i] = content
                hint = i + 1
                return
            }
            i = i + 1 == used ? 0 : i + 1
        }
        if used == capacity { grow() }
        base.unsafelyUnwrapped[used] = content
        used += 1
        hint = used
    }

    /// Empties one slot holding `content`, if any.
    mutating func remove(_ content: UInt64) {
        for i in 0..<used where base.unsafelyUnwrapped[i] == content {
            base.unsafelyUnwrapped[i] = 0
            return
        }
    }

    /// Whether the scope `content` names still holds it (`SlotContent.isHeld(in:)`).
    static func isHeld(_ content: UInt64) -> Bool {
        let slot = SlotContent(raw: content)
        return slot.isHeld(in: ScopeState(raw: ScopeTable.record(slot.record).pointee.state.load(ordering: .acquiring)))
    }

    /// How many held slots satisfy `predicate`.
    func count(where predicate: (SlotContent) -> Bool) -> Int {
        (0..<used).count {
            let content = base.unsafelyUnwrapped[$0]
            return content != 0 && Self.isHeld(content) && predicate(SlotContent(raw: content))
        }
    }

    /// Held slots.
    var held: Int { count { _ in true } }

    /// Calls `body` with each slot's content, then frees the array (the object is going away).
    mutating func free(_ body: (UInt64) -> Void) {
        for i in 0..<used where base.unsafelyUnwrapped[i] != 0 { body(base.unsafelyUnwrapped[i]) }
        base?.deallocate()
        self = LockedSlots()
    }

    private mutating func grow() {
        let next = max(Self.firstCapacity, capacity * 2)
        let grown = UnsafeMutablePointer<UInt64>.allocate(capacity: next)
        if let base {
            grown.moveInitialize(from: base, count: used)
            base.deallocate()
        }
        capacity = next
        base = grown
    }
}

// What a scope does to an object's observer state (`Design/Object+Observers.swift`), under the
// object's lock.
extension LockedObject {
    /// Runs `body` on the object's slots, under its lock.
    @inline(__always)
    final func _withObserverSlots<Result>(_ body: (inout LockedSlots) -> Result) -> Result {
        _withObservers { body(&$0) }
    }

    /// The mask published (seq_cst), then the write word loaded or marked `straddled` (seq_cst), as
    /// `TrackedObject._publishAndRecheck`; called under the lock.
    @inline(__always)
    final func _publishAndRecheck(mask: UInt64, version: UInt64, ownWrites: UInt32, straddling: Bool) -> Bool {
        if _observed.load(ordering: .sequentiallyConsistent) & mask != mask {
            _observed.bitwiseOr(mask, ordering: .sequentiallyConsistent)
        }
        return _recheckWrites(version: version, ownWrites: ownWrites, straddling: straddling)
    }

    /// A slot is never widened in place (no slot address leaves the lock): a further property read
    /// at an install at reads gets a slot of its own.
    @inline(__always)
    final func _widenObserver(_ slot: UnsafeMutablePointer<Atomic<UInt64>>, by bit: UInt64) -> Bool { false }
}
