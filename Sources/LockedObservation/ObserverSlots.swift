/// One observer of one object: a scope (retained) and the properties of one 64-property word it
/// watches. Slot indices are stable while occupied, so a scope's dependency remembers its slot.
struct _Slot {
    /// The `_ScopeCore`, retained by the slot; nil when the slot is free.
    var core: UnsafeMutableRawPointer?
    var mask: UInt64
    var word: UInt32
    /// The scope read while a write of this object was in flight; that write's end notifies it.
    var straddling: Bool
    /// The next free slot while this one is free, or -1.
    var nextFree: Int32

    @inline(__always) func watches(_ property: Int) -> Bool {
        core != nil && word == UInt32(truncatingIfNeeded: property >> 6) && mask & (1 << UInt64(property & 63)) != 0
    }
}

/// An object's observer slots. Every field is guarded by the object's lock (`_observers`).
///
/// Slots live in one array grown by doubling; a removed slot goes on a free list and is reused by
/// the next insert, so insert and remove are O(1) and a write scans `used` slots.
///
/// `@unchecked Sendable`: it only ever lives inside its object's `Mutex`, so every access is made
/// under the lock (what the mutex's `inout sending` closure would otherwise make us prove per call).
struct _ObserverSlots: @unchecked Sendable {
    var base: UnsafeMutablePointer<_Slot>? = nil
    var capacity = 0
    /// Slots `0..<used` have been handed out at least once (a write scans these).
    var used = 0
    var firstFree: Int32 = -1
    /// Occupied slots.
    var live = 0
    /// Slots marked straddling.
    var straddlers = 0

    static let firstCapacity = 4

    /// Stores a slot for `core` (whose retain the slot takes over); returns its index.
    mutating func insert(core: UnsafeMutableRawPointer, mask: UInt64, word: UInt32) -> Int32 {
        let slot = _Slot(core: core, mask: mask, word: word, straddling: false, nextFree: -1)
        live += 1
        if firstFree >= 0 {
            let index = firstFree
            firstFree = base.unsafelyUnwrapped[Int(index)].nextFree
            base.unsafelyUnwrapped[Int(index)] = slot
            return index
        }
        if used == capacity { grow() }
        base.unsafelyUnwrapped[used] = slot
        used += 1
        return Int32(used - 1)
    }

    /// Frees slot `index`; returns its core, whose retain the caller now owns.
    mutating func remove(at index: Int32) -> UnsafeMutableRawPointer {
        let slot = base.unsafelyUnwrapped + Int(index)
        let core = slot.pointee.core.unsafelyUnwrapped
        if slot.pointee.straddling { straddlers -= 1 }
        slot.pointee = _Slot(core: nil, mask: 0, word: 0, straddling: false, nextFree: firstFree)
        firstFree = index
        live -= 1
        return core
    }

    mutating func markStraddling(_ index: Int32) {
        let slot = base.unsafelyUnwrapped + Int(index)
        if !slot.pointee.straddling {
            slot.pointee.straddling = true
            straddlers += 1
        }
    }

    mutating func clearStraddling() {
        for i in 0..<used { base.unsafelyUnwrapped[i].straddling = false }
        straddlers = 0
    }

    private mutating func grow() {
        let grown = UnsafeMutablePointer<_Slot>.allocate(capacity: max(Self.firstCapacity, capacity * 2))
        if let base {
            grown.moveInitialize(from: base, count: used)
            base.deallocate()
        }
        capacity = max(Self.firstCapacity, capacity * 2)
        base = grown
    }

    func deallocate() {
        precondition(live == 0, "a locked object went away with observers")
        base?.deallocate()
    }
}
