import CTrackingSupport
import Synchronization

/// One-shot scopes that install at the read.
///
/// An outermost one-shot scope (`withTracking`, `withCancellableTracking`) installs each object's
/// slots when the body first reads it, while the getter's caller holds the object, instead of after
/// the body: so it never retains what it reads. Threads tracking the same objects then share no
/// reference count, only the slots they install (`primitives/track-once-threads`).
///
/// The promises are `install`'s, kept by the same protocol at an earlier moment:
///
/// - **No lost change.** The install is `installSlots`: the write word loaded before the read
///   (`entry.version`), then slots written, mask published and the word loaded again, all before
///   the caller reads the value. A write that raced it is reported when the body ends (`changed`);
///   a later one finds the slot (Dekker's pattern, see `TrackedObject._writes`).
/// - **The callback runs after the body.** While the body runs its record is
///   *reading* (`ScopeState.Phase.reading`): a writer that finds it marks it changed instead of
///   claiming it (`claimCallback`), and the body's end arms it and reports the change on the
///   tracking thread, as `install` reports a change that raced a read.
/// - **The body's own writes are not changes.** The record's `runner` is this thread while the
///   body runs, and a writer skips the scope it runs (`TrackedObject._notifyObservers`).
/// - **No object confused with another.** Holding no reference, the scope could see an object go
///   away during the body and another be allocated at its address: finding that one's entry
///   would skip its install. Each dying object counts its live slots off the record's
///   `watchedSlots` (`TrackingScope.objectWentAway`), which the body holds at `bodyHold` while it
///   runs; before trusting an entry of its own, a read checks that the count has not moved
///   (`forgetIfObjectWentAway`), and otherwise forgets every entry installed at a read, so the
///   read installs again.
///
/// Entries of scopes nested in the body are recorded for it too, retained: they are installed when
/// it ends (`closeAtRead`), as `install` does.
extension TrackingScope {
    /// What a body's hold adds to its record's `watchedSlots` while it runs: a count that objects
    /// going away cannot bring to 0 (there are fewer slots than this in any scope).
    static let bodyHold: UInt64 = 1 << 30

    /// Opens an outermost one-shot scope that installs at its reads. It takes its record at its
    /// first install (`takeRecord`): a body that reads nothing costs no record.
    @usableFromInline
    static func openAtRead(_ thread: UnsafeMutablePointer<tracking_thread>) {
        thread.pointee.atRead = tracking_at_read(
            record: TRACKING_RECORD_NOT_TAKEN, generation: 0, watched: 0,
            watchedAddress: tracking_nothing_watched_address(), slots: 0, changed: 0)
    }

    /// The scope's record, reading, with the body's hold on `watchedSlots` and this thread as its
    /// runner. Its callback is set when the body ends, before it is armed: until then no writer
    /// claims it.
    @inline(never)
    static func takeRecord(_ thread: UnsafeMutablePointer<tracking_thread>) {
        let (index, free) = ScopeTable.shared.acquire()
        let record = ScopeTable.record(index)
        record.pointee.kind.store(ScopeKind.oneShot.rawValue, ordering: .relaxed)
        record.pointee.runner.store(UInt(bitPattern: thread), ordering: .relaxed)
        let watched = WatchedSlots(generation: free.generation, count: bodyHold)
        record.pointee.watchedSlots.store(watched.raw, ordering: .relaxed)
        let reading = ScopeState(generation: free.generation, phase: .reading)
        reading._checkInvariants(continuous: false)
        // Release: publishes the record's words to whichever thread finds it from a slot.
        record.pointee.state.store(reading.raw, ordering: .releasing)
        let watchedAddress = withUnsafePointer(to: record.pointee.watchedSlots) {
            UnsafeRawPointer($0).assumingMemoryBound(to: UInt64.self)
        }
        thread.pointee.atRead = tracking_at_read(
            record: index, generation: free.generation, watched: watched.raw, watchedAddress: watchedAddress,
            slots: 0, changed: 0)
    }

    /// Installs `entry` (its first read of an object word, or a further property of one) for the
    /// scope installing at reads; `entry.word` without `TRACKING_WORD_INSTALLED`. Returns the
    /// masked slot it wrote, if any (`_installPropertyAtRead` widens it for a further property).
    @inline(__always) @discardableResult
    static func installAtRead(
        _ entry: tracking_entry, in object: RegistrarObject, _ thread: UnsafeMutablePointer<tracking_thread>
    ) -> UnsafeMutablePointer<Atomic<UInt64>>? {
        if thread.pointee.atRead.record == TRACKING_RECORD_NOT_TAKEN { takeRecord(thread) }
        let (slots, changed, masked) = installSlots(
            of: entry, in: object, record: thread.pointee.atRead.record, generation: thread.pointee.atRead.generation)
        thread.pointee.atRead.slots &+= slots
        if changed { thread.pointee.atRead.changed = 1 }
        return masked
    }

    /// Ends the body of a scope that installed at its reads: installs the entries of scopes nested
    /// in it, arms it, turns the hold into the count of slots installed, and reports a change that
    /// raced a read or was marked during the body. Returns the scope's token (`inert` if it read
    /// nothing), and whether there is a change to report (the caller tells the scope once it has
    /// ended).
    @usableFromInline
    static func closeAtRead(
        _ thread: UnsafeMutablePointer<tracking_thread>, from start: Int, callback: Callback
    ) -> (TrackingToken, changed: Bool) {
        let atRead = thread.pointee.atRead
        thread.pointee.atRead = tracking_at_read()
        // Nothing installed at a read: what scopes nested in it read, if anything, is installed
        // as any other scope's.
        guard atRead.record != TRACKING_RECORD_NOT_TAKEN else {
            return install(thread, from: start, continuous: false, callback: callback)
        }
        let index = atRead.record
        let generation = atRead.generation
        let record = ScopeTable.record(index)
        var slots = atRead.slots
        var changed = atRead.changed != 0
        if let entries = thread.pointee.entries {
            for i in start..<thread.pointee.count where entries[i].word & TRACKING_WORD_INSTALLED == 0 {
                let entry = entries[i]
                Unmanaged<RegistrarObject>.fromOpaque(entry.object)._withUnsafeGuaranteedRef { object in
                    let installed = installSlots(of: entry, in: object, record: index, generation: generation)
                    slots &+= installed.slots
                    if installed.changed { changed = true }
                }
            }
        }
        record.pointee.runner.store(0, ordering: .relaxed)
        // The count becomes the slots installed, less those of objects that went away meanwhile.
        // While the record is reading: no one can close it, so it is still this incarnation's
        // (once armed, a writer may claim it and its record be recycled and taken again).
        _ = record.pointee.watchedSlots.wrappingAdd(UInt64(slots) &- bodyHold, ordering: .acquiringAndReleasing)
        // The callback before the arming (acquire-release): a claimer's acquire sees it.
        record.setCallback(callback)
        // The window in which a writer may mark the record or find it armed, and an object go away.
        _schedulePoint()
        if endReading(record, generation: generation, to: .armed) { changed = true }
        let token = TrackingToken(record: index, generation: generation)
        // Nothing read, or every object read went away: nothing to watch. An object that went
        // away while the record was reading could not cancel it (only an armed scope is
        // cancelled); one going away from now on does. Both may try; one succeeds.
        let watched = WatchedSlots(raw: record.pointee.watchedSlots.load(ordering: .acquiring))
        if watched.generation == generation && watched.count == 0 {
            token.cancel()
            changed = false
        }
        return (slots == 0 ? .inert : token, changed)
    }

    /// The body threw: the scope closes (its slots stay, dead, until reused) and its record is
    /// recycled.
    @usableFromInline
    static func abandonAtRead(_ thread: UnsafeMutablePointer<tracking_thread>) {
        let atRead = thread.pointee.atRead
        thread.pointee.atRead = tracking_at_read()
        guard atRead.record != TRACKING_RECORD_NOT_TAKEN else { return }
        let record = ScopeTable.record(atRead.record)
        record.pointee.runner.store(0, ordering: .relaxed)
        _ = endReading(record, generation: atRead.generation, to: .closing)
        ScopeTable.shared.recycle(atRead.record, from: ScopeState(generation: atRead.generation, phase: .closing))
    }

    /// reading or changed -> `phase`, by the body's owner. Returns whether a writer marked it changed.
    private static func endReading(
        _ record: UnsafeMutablePointer<ScopeRecord>, generation: UInt32, to phase: ScopeState.Phase
    ) -> Bool {
        var state = ScopeState(raw: record.pointee.state.load(ordering: .relaxed))
        while true {
            precondition(state.generation == generation && state.isReading, "a reading scope left reading")
            // Acquire-release: sees what a writer's mark follows; publishes the slots installed.
            let (exchanged, current) = record.pointee.state.compareExchange(
                expected: state.raw, desired: state.withPhase(phase).raw, ordering: .acquiringAndReleasing)
            if exchanged { return state.phase == .readingChanged }
            state = ScopeState(raw: current)
        }
    }

    /// Before a read trusts an entry of the scope installing at reads: if an object it watches has
    /// gone away since the last look, its address may now be another object's, so every entry
    /// installed at a read is forgotten (`forgetEntriesInstalledAtRead`).
    @inline(__always)
    static func forgetIfObjectWentAway(_ thread: UnsafeMutablePointer<tracking_thread>) {
        // Acquire: a dying object counts itself off before its memory can be reused, and this
        // thread reached the object it reads through whatever ordered that reuse.
        let watched = tracking_load_acquire(thread.pointee.atRead.watchedAddress)
        if _slowPath(watched != thread.pointee.atRead.watched) {
            forgetEntriesInstalledAtRead(thread, watched: watched)
        }
    }

    /// Makes every entry installed at a read match no object (its slots stay: the scope watches
    /// them still), and empties the `seen` table: the next read of each object installs again.
    @inline(never)
    static func forgetEntriesInstalledAtRead(_ thread: UnsafeMutablePointer<tracking_thread>, watched: UInt64) {
        thread.pointee.atRead.watched = watched
        if let entries = thread.pointee.entries {
            for i in 0..<thread.pointee.count where entries[i].word & TRACKING_WORD_INSTALLED != 0 {
                entries[i].object = UnsafeMutableRawPointer(bitPattern: TRACKING_NO_OBJECT)
            }
        }
        withUnsafeMutableBytes(of: &thread.pointee.seen) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }
}

extension RegistrarObject {
    /// A further property of an object word already installed at a read, checked against the write
    /// word loaded now (before the caller reads the value). A property below 15 widens the
    /// entry's masked slot (`tracking_entry.version` holds its address): a compare-and-swap that
    /// cannot fail while the body reads (no writer or installer changes a slot its scope holds,
    /// and a reading record's slots are held), then the mask and the write word, as an install.
    /// Anything else (a property of its own, no masked slot, a write in flight) gets a slot of its
    /// own.
    @inline(never)
    final func _installPropertyAtRead(
        _ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>, entry: UnsafeMutablePointer<tracking_entry>
    ) {
        let bit: UInt64 = 1 << UInt64(property & 63)
        guard entry.pointee.mask & bit == 0 else { return }
        entry.pointee.mask |= bit
        let writes = _writes.load(ordering: .sequentiallyConsistent)
        if property < SlotContent.maskedProperties && WriteWord.inFlight(writes) == 0,
            let slot = UnsafeMutablePointer<Atomic<UInt64>>(bitPattern: UInt(entry.pointee.version)),
            _widenObserver(slot, by: bit)
        {
            if _publishAndRecheck(mask: bit, version: writes, ownWrites: 0, straddling: false) {
                thread.pointee.atRead.changed = 1
            }
            return
        }
        let single = tracking_entry(
            object: entry.pointee.object, mask: bit, version: writes,
            word: entry.pointee.word & ~TRACKING_WORD_INSTALLED, ownWrites: 0, previous: -1, position: 0, dependency: -1
        )
        TrackingScope.installAtRead(single, in: self, thread)
        _schedulePoint()
    }
}
