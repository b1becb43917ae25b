import CTrackingSupport
import Synchronization

/// The lock-free registrar's observer slots as a scope's install and removal see them
/// (`Design/Object+Observers.swift`): each slot claimed or emptied by compare-and-swap, no lock.
@usableFromInline
struct SlotChains {
    let object: TrackedObject

    /// Publishes `content` in a free slot (`TrackedObject._insertObserver`); returns it.
    @inline(__always)
    func insert(_ content: SlotContent) -> UnsafeMutablePointer<Atomic<UInt64>>? { object._insertObserver(content) }

    /// Empties a slot holding `content`: `slot`, where the scope wrote it, if it still holds it;
    /// otherwise another of that content (see `ReusableScope.clearSlots`).
    @inline(__always)
    func remove(_ content: SlotContent, at slot: UnsafeMutablePointer<Atomic<UInt64>>?) {
        // Release: nothing to publish but the emptiness; an installer's claim reads it.
        if let slot, slot.pointee.compareExchange(expected: content.raw, desired: 0, ordering: .releasing).exchanged {
            return
        }
        object._slot(holding: content)?.pointee.store(0, ordering: .releasing)
    }
}

extension TrackedObject {
    /// Runs `body` on the object's slots: lock-free, so at once.
    @inline(__always)
    final func _withObserverSlots<Result>(_ body: (inout SlotChains) -> Result) -> Result {
        var chains = SlotChains(object: self)
        return body(&chains)
    }

    /// The rest of the installer's Dekker half (see `_writes`), once its slots are written
    /// (seq_cst): the mask published, then the write word re-checked (`_recheckWrites`). Mask bits
    /// are never cleared, so one already set needs no write. Returns whether a write may have been
    /// missed.
    @inline(__always)
    final func _publishAndRecheck(mask: UInt64, version: UInt64, ownWrites: UInt32, straddling: Bool) -> Bool {
        let observed = SlotsWord.bits(of: mask)
        if _slots.load(ordering: .sequentiallyConsistent) & observed != observed {
            _slots.bitwiseOr(observed, ordering: .sequentiallyConsistent)
        }
        return _recheckWrites(version: version, ownWrites: ownWrites, straddling: straddling)
    }

    /// Adds the property `bit` (below 15) to the masked slot `slot`, which the caller's scope holds
    /// (no writer or installer changes it meanwhile), for a read of a further property at an
    /// install at reads (`_installPropertyAtRead`). Returns whether it did.
    @inline(__always)
    final func _widenObserver(_ slot: UnsafeMutablePointer<Atomic<UInt64>>, by bit: UInt64) -> Bool {
        let current = slot.pointee.load(ordering: .relaxed)
        // seq_cst: the slot write of the installer's Dekker half (see `_writes`).
        return slot.pointee.compareExchange(
            expected: current, desired: current | bit, ordering: .sequentiallyConsistent
        ).exchanged
    }

    /// Publishes `content` in a free slot of this object, in the chain of the calling thread's lane
    /// (`_laneSlots`). Lock-free: a slot is claimed by compare-and-swap from empty, or from a dead
    /// scope's content; a full chain grows by one block.
    @usableFromInline @discardableResult
    final func _insertObserver(_ content: SlotContent) -> UnsafeMutablePointer<Atomic<UInt64>> {
        let first = _firstBlock(lane: tracking_lane(tracking_thread_state()))
        let start = first.hint.pointee.load(ordering: .relaxed)
        // Look from the hint to the end, then from the start to the hint; append only when the
        // whole chain is full.
        for pass in 0..<2 {
            var block: SlotBlock? = first
            var position = 0
            while let current = block {
                let capacity = current.capacity
                let low = pass == 0 ? max(0, start - position) : 0
                let high = pass == 0 ? capacity : min(capacity, start - position)
                if low < high {
                    for i in low..<high where Self._claim(current.slot(i), for: content) {
                        first.hint.pointee.store(position + i + 1, ordering: .relaxed)
                        return current.slot(i)
                    }
                }
                position += capacity
                if pass == 1 && position >= start { break }
                block = current.following
            }
        }
        // Every slot is taken: append a block (or use the one another thread appended) and retry.
        var last = first
        var position = 0
        while let next = last.following {
            position += last.capacity
            last = next
        }
        let appended = Self._append(after: last)
        for i in 0..<appended.capacity where Self._claim(appended.slot(i), for: content) {
            first.hint.pointee.store(position + last.capacity + i + 1, ordering: .relaxed)
            return appended.slot(i)
        }
        return _insertObserver(content)
    }

    /// The observer slots allocated for this object, in both chains (diagnostics and tests).
    final var _observerSlotCapacity: Int {
        var total = 0
        _forEachSlotBlock { total += $0.capacity }
        return total
    }

    /// Calls `body` with each block of both chains, lane 0's first (acquire loads: not for writers).
    final func _forEachSlotBlock(_ body: (SlotBlock) -> Void) {
        for lane: UInt32 in 0..<2 {
            var block = SlotBlock(address: _chainHead(lane))
            while let current = block {
                body(current)
                block = current.following
            }
        }
    }

    /// The first slot, in either chain, that holds `content` (relaxed loads: for a scope looking
    /// for a slot it holds, which no other thread changes meanwhile).
    final func _slot(holding content: SlotContent) -> UnsafeMutablePointer<Atomic<UInt64>>? {
        for lane: UInt32 in 0..<2 {
            var block = SlotBlock(address: _chainHead(lane))
            while let current = block {
                for i in 0..<current.capacity where current.slot(i).pointee.load(ordering: .relaxed) == content.raw {
                    return current.slot(i)
                }
                block = current.following
            }
        }
        return nil
    }

    @inline(__always)
    private final func _chainHead(_ lane: UInt32) -> UInt {
        lane == 0 ? SlotsWord.address(_slots.load(ordering: .acquiring)) : _laneSlots.load(ordering: .acquiring)
    }

    /// The lane's first block; the allocation, once per object and lane, out of line (inlined, it
    /// would turn the lookup into a call).
    @inline(__always)
    private final func _firstBlock(lane: UInt32) -> SlotBlock {
        if let block = SlotBlock(address: _chainHead(lane)) { return block }
        return _publishFirstBlock(lane: lane)
    }

    @inline(never)
    private final func _publishFirstBlock(lane: UInt32) -> SlotBlock {
        let block = SlotBlock.allocate(capacity: SlotBlock.firstCapacity)
        // seq_cst: publishes the initialised block, and is part of the install's Dekker half (a
        // writer's seq_cst load of the chain's head after it sees the block). On failure another
        // thread's block wins.
        let address = UInt(bitPattern: block.base)
        if lane == 1 {
            let (exchanged, current) = _laneSlots.compareExchange(
                expected: 0, desired: address, ordering: .sequentiallyConsistent)
            if exchanged { return block }
            block.deallocate()
            return SlotBlock(address: current)!
        }
        // Lane 0's address shares its word with the observed mask, which another lane's installs
        // may have set meanwhile: keep the bits.
        // (Acquire: a block another thread published is read below.)
        var word = _slots.load(ordering: .acquiring)
        while SlotsWord.address(word) == 0 {
            let (exchanged, current) = _slots.compareExchange(
                expected: word, desired: word | SlotsWord.word(address: address), ordering: .sequentiallyConsistent)
            if exchanged { return block }
            word = current
        }
        block.deallocate()
        return SlotBlock(address: SlotsWord.address(word))!
    }

    private static func _append(after block: SlotBlock) -> SlotBlock {
        let appended = SlotBlock.allocate(capacity: min(block.capacity * 2, SlotBlock.largestCapacity))
        // seq_cst, as the first block's publication.
        let (exchanged, current) = block.next.pointee.compareExchange(
            expected: 0, desired: UInt(bitPattern: appended.base), ordering: .sequentiallyConsistent)
        if exchanged { return appended }
        appended.deallocate()
        return SlotBlock(address: current)!
    }

    /// Claims `slot` for `content` if it is empty or its scope no longer holds it.
    private static func _claim(_ slot: UnsafeMutablePointer<Atomic<UInt64>>, for content: SlotContent) -> Bool {
        let old = slot.pointee.load(ordering: .acquiring)
        if old != 0 && _isHeld(SlotContent(raw: old)) { return false }
        // seq_cst: the slot write is the first store of the installer's Dekker half (see `_writes`).
        return slot.pointee.compareExchange(
            expected: old, desired: content.raw, ordering: .sequentiallyConsistent
        ).exchanged
    }

    @inline(__always)
    static func _isHeld(_ content: SlotContent) -> Bool {
        let state = ScopeState(
            raw: ScopeTable.record(content.record).pointee.state.load(ordering: .acquiring))
        return content.isHeld(in: state)
    }

    /// Claims every live scope that watches `property` (strictly once for one-shot scopes), then
    /// runs their callbacks after the scan, so a callback that re-arms a scope on this object is not
    /// fired by the same scan. The slow path of a write of an observed property: before its store
    /// (willSet), or after it for scopes that raced an unobserved write, or, at the end of an
    /// observed write, when straddling slots may be present (`straddlersOnly`: only those; see
    /// `_writes`).
    @inline(never)
    final func _notifyObservers(of property: Int) { _scanObservers(of: property, straddlersOnly: false) }

    /// `_notifyObservers` for the straddling slots only (at the end of an observed write).
    @inline(never)
    final func _notifyStraddlingObservers(of property: Int) { _scanObservers(of: property, straddlersOnly: true) }

    /// The scan of both, inlined into each, so that each loop is compiled for its own kind of
    /// slot (a shared loop would test `straddlersOnly` at every slot). Lane 0's chain is scanned
    /// inline; lane 1's, which only objects tracked on two threads have, by a call (a loop over
    /// both chains would cost every notification more than the call).
    @inline(__always)
    final func _scanObservers(of property: Int, straddlersOnly: Bool) {
        // seq_cst loads of the chains' heads, block links and slots: the writer's half of the
        // Dekker pair must see a slot written before the install's seq_cst load of `_writes`, even
        // when the mask bit it loaded was already set (see `_writes`).
        // (No early return when both are 0: a write comes here only once an install set its bit.)
        let head = SlotsWord.address(_slots.load(ordering: .sequentiallyConsistent))
        let laneHead = _laneSlots.load(ordering: .sequentiallyConsistent)
        let thread = tracking_thread_state()!
        let pendingStart = thread.pointee.pendingCount
        // The first scope claimed waits here, the others in the thread's pending list.
        var firstClaimed: UInt32? = nil
        if let first = SlotBlock(address: head) {
            firstClaimed = _scanChain(first, of: property, straddlersOnly: straddlersOnly, thread, firstClaimed)
        }
        if let first = SlotBlock(address: laneHead) {
            firstClaimed = _scanLaneChain(first, of: property, straddlersOnly: straddlersOnly, thread, firstClaimed)
        }

        // Run the callbacks claimed above, in the order claimed. A callback may mutate again, which
        // appends above our range.
        guard let firstClaimed else { return }
        TrackingScope.runCallback(of: Claim(raw: firstClaimed))
        var i = pendingStart
        while i < thread.pointee.pendingCount {
            TrackingScope.runCallback(of: Claim(raw: thread.pointee.pending[i]))
            i += 1
        }
        thread.pointee.pendingCount = pendingStart
    }

    /// `_scanChain` for lane 1's chain, out of line.
    @inline(never)
    private final func _scanLaneChain(
        _ first: SlotBlock, of property: Int, straddlersOnly: Bool,
        _ thread: UnsafeMutablePointer<tracking_thread>, _ firstClaimed: UInt32?
    ) -> UInt32? {
        _scanChain(first, of: property, straddlersOnly: straddlersOnly, thread, firstClaimed)
    }

    /// Claims the scopes of one chain's slots that `_scanObservers` concerns, and returns the
    /// first scope claimed (`firstClaimed`, if given, else this chain's); the others go to the
    /// thread's pending list. Empties dead slots on the way. (The first claimed passes by value: an
    /// `inout` would keep it in memory.)
    @inline(__always)
    private final func _scanChain(
        _ first: SlotBlock, of property: Int, straddlersOnly: Bool,
        _ thread: UnsafeMutablePointer<tracking_thread>, _ firstClaimed: UInt32?
    ) -> UInt32? {
        var firstClaimed = firstClaimed
        var firstFreed = Int.max
        var position = 0
        var block: SlotBlock? = first
        while let current = block {
            for i in 0..<current.capacity {
                let slot = current.slot(i)
                let raw = slot.pointee.load(ordering: .sequentiallyConsistent)
                if raw == 0 { continue }
                let content = SlotContent(raw: raw)
                // Only slots watching `property` concern this write: others are not even looked up
                // (an object observed property by property by many views is scanned at a load and
                // a compare per slot). Their dead ones wait for an install to reuse them.
                if (straddlersOnly && !content.isStraddling) || !content.watches(property) { continue }
                let replacement = TrackingScope.notice(content, by: thread) { claim in
                    if firstClaimed == nil {
                        firstClaimed = claim
                    } else {
                        if thread.pointee.pendingCount == thread.pointee.pendingCapacity {
                            tracking_grow_pending(thread)
                        }
                        thread.pointee.pending[thread.pointee.pendingCount] = claim
                        thread.pointee.pendingCount += 1
                    }
                }
                // Relaxed: an emptied slot is reclaimed by compare-and-swap; losing the race to a
                // settled slot only costs a second notice.
                if let replacement,
                    slot.pointee.compareExchange(expected: raw, desired: replacement, ordering: .relaxed).exchanged,
                    replacement == 0
                {
                    firstFreed = min(firstFreed, position + i)
                }
            }
            position &+= current.capacity
            block = current.following
        }
        if firstFreed < first.hint.pointee.load(ordering: .relaxed) {
            first.hint.pointee.store(firstFreed, ordering: .relaxed)
        }
        return firstClaimed
    }
}
