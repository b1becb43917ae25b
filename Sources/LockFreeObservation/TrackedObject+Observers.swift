import CTrackingSupport
import Synchronization

// What a scope does to an object's observer state: install its slots, empty them, publish their
// properties and re-check the write word. The scopes decide what the slots hold
// (`TrackingScope.forEachSlot`); these keep them, lock-free.
extension TrackedObject {
    /// Installs the slots `TrackingScope.forEachSlot` makes of `entry` for the scope `record` in
    /// its incarnation `generation` (`straddling`: marked so), then publishes the properties and
    /// re-checks the write word against `version`, the word the read loaded, and the reader's own
    /// writes since (`_publishAndRecheck`). Returns how many slots it wrote, the first one, and
    /// whether a write may have raced the read.
    @inline(__always)
    final func _installObservers(
        of entry: tracking_entry, record: UInt32, generation: UInt32, version: UInt64, ownWrites: UInt32,
        straddling: Bool
    ) -> (slots: Int, first: UnsafeMutablePointer<Atomic<UInt64>>?, changed: Bool) {
        var slots = 0
        var first: UnsafeMutablePointer<Atomic<UInt64>>?
        TrackingScope.forEachSlot(of: entry, record: record, generation: generation, straddling: straddling) {
            let slot = _insertObserver($0)
            if slots == 0 { first = slot }
            slots += 1
        }
        let changed = _publishAndRecheck(
            mask: entry.mask, version: version, ownWrites: ownWrites, straddling: straddling)
        return (slots, first, changed)
    }

    /// Empties the slots `_installObservers` wrote of `entry` for the scope, which holds them (no
    /// other thread claims, empties or rewrites them meanwhile). `slot`, when the entry had one
    /// slot, is where it was written: emptied only if it still holds the content (another slot of
    /// that content is emptied otherwise; see `ReusableScope.clearSlots`).
    @inline(__always)
    final func _uninstallObservers(
        of entry: tracking_entry, record: UInt32, generation: UInt32, straddling: Bool,
        slot: UnsafeMutablePointer<Atomic<UInt64>>?
    ) {
        if let slot {
            var content: UInt64 = 0
            TrackingScope.forEachSlot(of: entry, record: record, generation: generation, straddling: straddling) {
                content = $0.raw
            }
            // Release: nothing to publish but the emptiness; an installer's claim reads it.
            if slot.pointee.compareExchange(expected: content, desired: 0, ordering: .releasing).exchanged { return }
        }
        TrackingScope.forEachSlot(of: entry, record: record, generation: generation, straddling: straddling) {
            _slot(holding: $0)?.pointee.store(0, ordering: .releasing)
        }
    }

    /// The rest of the installer's Dekker half (see `_writes`), once its slots are written
    /// (seq_cst): the mask published, then the write word loaded, or, when a write was in flight
    /// at the read (`straddling`), `straddled` set by a read-modify-write. Mask bits are never
    /// cleared, so one already set needs no write. Returns whether a write other than this
    /// thread's own `ownWrites` has begun or ended since `version` was loaded: a change the scope
    /// may have missed, to report instead of losing it.
    @inline(__always)
    final func _publishAndRecheck(mask: UInt64, version: UInt64, ownWrites: UInt32, straddling: Bool) -> Bool {
        let observed = SlotsWord.bits(of: mask)
        if _slots.load(ordering: .sequentiallyConsistent) & observed != observed {
            _slots.bitwiseOr(observed, ordering: .sequentiallyConsistent)
        }
        _schedulePoint()
        let writes =
            straddling
            ? _writes.bitwiseOr(WriteWord.straddled, ordering: .sequentiallyConsistent).oldValue
            : _writes.load(ordering: .sequentiallyConsistent)
        let expected = WriteWord.counts(version) &+ UInt64(ownWrites) &* WriteWord.begunUnit
        return WriteWord.counts(writes) != expected
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

    /// A write of the thread that runs the scope `record` passed it by (see `_scanChain`): the
    /// write may outlive the run, so the scope's next run looks for writes in flight
    /// (`DependencyStore.uncheckedArming`). Out of line, so that it adds nothing to the scan's loop.
    @inline(never)
    static func _passedByOwnWrite(_ record: UInt32) {
        ScopeTable.store(record).pointee.uncheckedArming = true
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
                let record = ScopeTable.record(content.record)
                // seq_cst: a reusable scope arms its record (seq_cst) before its reads load the write
                // word (seq_cst): the Dekker pair of `ReusableScope.run`.
                var state = ScopeState(raw: record.pointee.state.load(ordering: .sequentiallyConsistent))
                guard content.isHeld(in: state) else {
                    // A fired or cancelled scope: empty the slot (losing the race is fine).
                    if slot.pointee.compareExchange(expected: raw, desired: 0, ordering: .relaxed).exchanged {
                        firstFreed = min(firstFreed, position + i)
                    }
                    continue
                }
                // Only an armed scope, or a one-shot body reading and not yet marked, takes notice;
                // the scope this thread runs is not notified of its own writes. That write may
                // outlive the run (`willMutate` in it, `didMutate` after): the scope's next run
                // must then look for writes in flight (`DependencyStore.uncheckedArming`).
                guard state.takesNotice, record.pointee.runner.load(ordering: .relaxed) != UInt(bitPattern: thread)
                else {
                    if state.takesNotice { TrackedObject._passedByOwnWrite(content.record) }
                    continue
                }
                // (A one-shot body still reading is marked changed instead: `claimCallback`.)
                if TrackingScope.claimCallback(record, &state, markingReading: true) {
                    let claim = Claim(record: content.record, state).raw
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
                if !content.isHeld(in: state) {
                    // A closed one-shot scope's slot is emptied.
                    if slot.pointee.compareExchange(expected: raw, desired: 0, ordering: .relaxed).exchanged {
                        firstFreed = min(firstFreed, position + i)
                    }
                } else if content.isStraddling && state.isArmed {
                    // A continuous scope just notified of this write needs no second notice at its
                    // end. Relaxed: a lost race only costs that second notice. (Not a reusable
                    // scope's slot: it keeps its straddling state until its next run decides.)
                    _ = slot.pointee.compareExchange(expected: raw, desired: content.settled.raw, ordering: .relaxed)
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
