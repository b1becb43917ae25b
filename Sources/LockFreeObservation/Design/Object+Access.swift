@preconcurrency import CTrackingSupport
import Synchronization

extension RegistrarObject {
    /// Records a read of `property` in the calling thread's innermost tracking scope, if one is
    /// open.
    ///
    /// Call it from a hand-written getter *before* reading the stored value: the read loads the
    /// object's write count first, so that a write racing the read is reported, not lost.
    /// ``TrackedModel()``'s getters call it for you.
    ///
    /// - Parameter property: The property's index: below ``propertyLimit``, and no other property
    ///   of the class hierarchy's (a subclass of a model numbers its properties from its
    ///   superclass's `_trackedPropertyEnd` on).
    ///
    /// Cost: with no scope open on the thread, one thread-local load and a branch, inlined. In a
    /// ``ReusableScope`` run, a read of the object its last run read at the same point is a
    /// compare and two stores, inlined, with no write to the object. Any other first read of an
    /// object in a scope records an entry in the thread's buffer (amortised O(1)), which retains
    /// the object until the thread's outermost scope ends; an outermost one-shot scope installs
    /// its observer slot at the read instead, and holds no reference.
    ///
    /// Thread safety: call it on any thread; it touches the calling thread's scopes only.
    @inlinable @inline(__always)
    public final func trackAccess(_ property: Int) {
        _recordRead(property)
    }

    /// `trackAccess`, once.
    ///
    /// The depth test carries no `_slowPath` hint, and the kept read's match a `_fastPath` one: the
    /// compiler then lays the kept read out straight after the test, so a loop of kept reads takes
    /// two branches per read instead of four (taken branches, not instructions, bound such a
    /// loop), and an untracked read costs no more than a plain one.
    @inlinable @inline(__always)
    final func _recordRead(_ property: Int) {
        if _trackingDepth != 0 {
            if _keepReadInline(property) { return }
            _trackingRecordAccess(self, property)
        }
    }

    /// The commonest tracked reads of a view that re-evaluates, inlined into the getter: the read
    /// the running reusable scope expects next (its last run read this object there) of an
    /// installed property; and a further installed property of the dependency just kept (a row
    /// reading a book's title, then its author). Six instructions on the first path: the cursor
    /// loaded, the dependency's key (object, word and lead) compared, the property read stored and
    /// the cursor stepped: stores only to the dependency and the thread's cursor, a C thread-local
    /// (which the optimiser knows no object or array shares). Nothing of the object is loaded but
    /// the value, after this: no write word, no version (the installed slots cover these reads:
    /// `Dependency.version`). A write that begins after the run's arming finds the scope armed
    /// and notifies it; one in flight at the arming is the run's to look for, and it does, by
    /// holding its cursor away from the getters (`ReusableScope.run`,
    /// `tracking_thread.heldCursor`): every read then takes `_recordKeptAccess`, which tests the
    /// write word. The same as `_recordKeptAccess`, less the `seen` slot (a repeated read further
    /// on finds the dependency by a search, once), the write word and the cases that change the
    /// slots. Returns `false`, having changed nothing, for any other read.
    ///
    /// Both registrars' kept read (`DependencyHead.keepRead(_:of:in:)`), on this registrar's cursor
    /// (`TrackingRunCursor`).
    ///
    /// Outside the outermost reusable scope's run, and inside a scope nested in it, the dependency at
    /// the cursor is a sentinel and `dependencyCount` is 0 (see `tracking_run`; `TrackingScope.track`
    /// and a nested `ReusableScope.run` set them so): no depth or bounds check here.
    @inlinable @inline(__always)
    final func _keepReadInline(_ property: Int) -> Bool {
        DependencyHead.keepRead(property, of: Unmanaged.passUnretained(self).toOpaque(), in: TrackingRunCursor.self)
    }

    /// The kept reads the getter declined (a write in flight, a property outside the installed
    /// slots): the read the running reusable scope expects next (its last run read this object
    /// there), and a repeated read of the dependency just kept. They cost a compare or two, a load
    /// of the write word and stores to the scope's and the thread's own memory: no write to the
    /// object. Only in the cursor's scope (`cursorDepth == depth`). Returns `false` for any other
    /// read.
    @inline(__always)
    final func _recordKeptAccess(_ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>) -> Bool {
        let next = DependencyHead.index(thread.pointee.run.cursor, in: thread.pointee.run.dependencies)
        let me = Unmanaged.passUnretained(self).toOpaque()
        let word = UInt32(truncatingIfNeeded: property >> 6)
        let bit: UInt64 = 1 << UInt64(property & 63)
        if next < thread.pointee.run.dependencyCount {
            let dependency = DependencyHead.at(thread.pointee.run.cursor)
            if dependency.pointee.baseKey == DependencyHead.key(me, word) {
                dependency.keep(bit, of: self, thread)
                thread.pointee.run.cursor = UnsafeMutableRawPointer(dependency + 1)
                tracking_seen_slot(thread, me).unsafelyUnwrapped.pointee = tracking_seen(
                    object: UInt(bitPattern: me), index: -1 &- next)
                return true
            }
        }
        guard next > 0 else { return false }
        return (DependencyHead.at(thread.pointee.run.cursor) - 1).readAgain(me, word, bit, thread)
    }

    /// A repeated read that `seen` finds and that adds nothing new: a property already recorded
    /// in this scope's entry for the object, or read before in this run of a dependency kept
    /// earlier than the last two (a body reading its objects in turn). Few registers and no call,
    /// so the caller needs no stack frame for it. Returns `false`, having changed nothing, for
    /// any other read.
    @inline(__always)
    final func _recordRepeatedAccess(_ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>) -> Bool {
        // Addresses compared as integers: an optional compare costs a null test more.
        let me = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        let seen = tracking_seen_slot(thread, UnsafeRawPointer(bitPattern: me)).unsafelyUnwrapped
        guard seen.pointee.object == me else { return false }
        let index = seen.pointee.index
        let word = UInt32(truncatingIfNeeded: property >> 6)
        let bit: UInt64 = 1 << UInt64(property & 63)
        // One unsigned compare checks scopeStart <= index < count.
        let start = thread.pointee.scopeStart
        if UInt(bitPattern: index &- start) < UInt(bitPattern: thread.pointee.count &- start) {
            let entry = thread.pointee.entries.unsafelyUnwrapped + index
            // (Never null in the scope's range.)
            guard UInt(bitPattern: entry.pointee.object.unsafelyUnwrapped) == me else { return false }
            if entry.pointee.word == word {
                entry.pointee.mask |= bit
                return true
            }
            // Installed at its read (`TrackingScope.installAtRead`): a property already installed,
            // while no object the scope watches has gone away (an address is then this object's).
            return entry.pointee.word == word | TRACKING_WORD_INSTALLED && entry.pointee.mask & bit != 0
                && tracking_load_acquire(thread.pointee.atRead.watchedAddress) == thread.pointee.atRead.watched
        }
        // (Not while the cursor is held away: `run.cursor` is then the sentinel.)
        guard index < 0 && thread.pointee.run.cursorDepth == thread.pointee.depth && thread.pointee.heldCursor == nil
        else { return false }
        let dependency = DependencyHead.at(thread.pointee.run.dependencies, -1 &- index)
        return UInt(bitPattern: dependency) < UInt(bitPattern: thread.pointee.run.cursor.unsafelyUnwrapped)
            && dependency.pointee.baseKey == me | UInt(truncatingIfNeeded: word) &<< 48
            && dependency.pointee.read & bit != 0
    }

    /// A read that neither the getter nor `_recordRepeatedAccess` answered. Through the thread's
    /// `seen` table: another 64-property word of an object this scope has an entry for, or a
    /// further property of a dependency kept earlier than the last two. Then, in a reusable
    /// scope's run, the kept reads the getter declined; anything else goes to `_appendAccess` (out
    /// of line, so these need no stack frame). Nothing here writes to the object.
    @inline(__always)
    final func _recordAccess(_ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>) {
        // In a scope installing at reads, its entries are trusted only while no object it watches
        // has gone away (see `TrackingScope.installAtRead`): every path below that finds one is
        // reached through here.
        if thread.pointee.atRead.record != 0 { TrackingScope.forgetIfObjectWentAway(thread) }
        let word = UInt32(truncatingIfNeeded: property >> 6)
        let bit: UInt64 = 1 << UInt64(property & 63)
        let me = Unmanaged.passUnretained(self).toOpaque()
        let seen = tracking_seen_slot(thread, me).unsafelyUnwrapped
        let cursorActive = thread.pointee.run.cursorDepth == thread.pointee.depth
        let address = UInt(bitPattern: me)
        if seen.pointee.object == address {
            let index = seen.pointee.index
            if index >= 0 {
                let start = thread.pointee.scopeStart
                if UInt(bitPattern: index &- start) < UInt(bitPattern: thread.pointee.count &- start)
                    && UInt(
                        bitPattern: (thread.pointee.entries.unsafelyUnwrapped + index).pointee.object.unsafelyUnwrapped)
                        == address
                {
                    // Another word (the same one was `_recordRepeatedAccess`'s), or an entry
                    // installed at its read, which that declines (`TRACKING_WORD_INSTALLED`).
                    _recordAccessOfAnotherWord(property, thread, hinted: index)
                    return
                }
            } else if cursorActive {
                let dependency = DependencyHead.at(thread.pointee.run.dependencies, -1 &- index)
                if UInt(bitPattern: dependency) < UInt(bitPattern: thread.pointee.run.cursor.unsafelyUnwrapped)
                    && dependency.readAgain(me, word, bit, thread)
                {
                    return
                }
            }
        }
        if cursorActive && _recordKeptAccess(property, thread) { return }
        _appendAccess(property, thread, previous: -1)
    }

    /// A first read of this object in this scope, or one `seen` did not find: in a reusable
    /// scope's run, the dependency after the expected one may match (the one expected was dropped);
    /// otherwise a new entry records the object's write count, loaded before the caller reads the
    /// value. `previous` links it to this scope's entry of the same object for another word, if any.
    ///
    /// A read of an object whose deinit has begun is not recorded (nothing can read it after, and
    /// a scope's retain would outlive its deallocation): a deinit may read its own properties
    /// while a scope is open on its thread.
    @inline(never)
    final func _appendAccess(_ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>, previous: Int) {
        precondition(UInt(bitPattern: property) < UInt(RegistrarObject.propertyLimit), "property index out of range")
        let me = Unmanaged.passUnretained(self).toOpaque()
        if _slowPath(swift_isDeallocating(me)) { return }
        let word = UInt32(truncatingIfNeeded: property >> 6)
        let cursorActive = thread.pointee.run.cursorDepth == thread.pointee.depth
        if cursorActive {
            var skipped = DependencyHead.index(thread.pointee.run.cursor, in: thread.pointee.run.dependencies)
            // Holes at the cursor (`DependencyStore.holes`) are passed as dependencies skipped, and
            // the read is matched with the dependency after them.
            if skipped < thread.pointee.run.dependencyCount
                && DependencyHead.at(thread.pointee.run.cursor).pointee.isHole
            {
                repeat {
                    Self._recordSkip(skipped, thread)
                    skipped &+= 1
                } while skipped < thread.pointee.run.dependencyCount
                    && DependencyHead.at(thread.pointee.run.dependencies, skipped).pointee.isHole
                thread.pointee.run.cursor = UnsafeMutableRawPointer(
                    DependencyHead.at(thread.pointee.run.dependencies, skipped))
                if _recordKeptAccess(property, thread) { return }
            }
            if skipped &+ 1 < thread.pointee.run.dependencyCount {
                let dependency = DependencyHead.at(thread.pointee.run.cursor) + 1
                if dependency.pointee.baseKey == DependencyHead.key(me, word) {
                    (dependency - 1).pointee.read = 0
                    dependency.keep(1 << UInt64(property & 63), of: self, thread)
                    thread.pointee.run.cursor = UnsafeMutableRawPointer(dependency + 1)
                    Self._recordSkip(skipped, thread)
                    tracking_seen_slot(thread, me).pointee = tracking_seen(
                        object: UInt(bitPattern: me), index: -2 &- skipped)
                    return
                }
            }
        }
        // Before the search below: a read at the last dependency (the commonest new read in a
        // reusable run) needs none; the rare object that search would find (a kept dependency or
        // an entry whose `seen` slot another object took) is then watched twice, which is correct.
        if cursorActive && previous < 0 && _displaceLastDependency(property, thread) { return }
        if previous < 0 && _recordAccessSeenLately(property, thread, cursorActive: cursorActive) { return }
        if thread.pointee.count == thread.pointee.capacity { tracking_grow_entries(thread) }
        let index = thread.pointee.count
        // Acquire: every write that ended before this load has its store visible to the caller's
        // read, which comes after (see `_writes`). seq_cst for a reusable scope's run, whose kept
        // slots rely on it (`ReusableScope.run`); a plain load on x86 either way.
        let writes = _writes.load(ordering: .sequentiallyConsistent)
        // The outermost one-shot scope installs now, and holds no reference (`installAtRead`);
        // any other holds the object until it has installed its observers.
        let atRead = thread.pointee.atRead.record != 0 && thread.pointee.depth == 1
        var entry = tracking_entry(
            object: atRead ? me : Unmanaged.passRetained(self).toOpaque(), mask: 1 << UInt64(property & 63),
            version: writes, word: word, ownWrites: 0, previous: Int32(truncatingIfNeeded: previous),
            position: Int32(
                truncatingIfNeeded: cursorActive
                    ? DependencyHead.index(thread.pointee.run.cursor, in: thread.pointee.run.dependencies) : 0),
            dependency: -1)
        if atRead {
            let masked = TrackingScope.installAtRead(entry, in: self, thread)
            entry.word |= TRACKING_WORD_INSTALLED
            entry.version = UInt64(UInt(bitPattern: masked))
        }
        (thread.pointee.entries.unsafelyUnwrapped + index).initialize(to: entry)
        thread.pointee.count = index &+ 1
        tracking_seen_slot(thread, me).pointee = tracking_seen(object: UInt(bitPattern: me), index: index)
        _schedulePoint()
    }

    /// A first read, in a reusable scope's run, of an object none of its dependencies matched, with
    /// the cursor at the last dependency: the new object takes that dependency's place (a body whose
    /// last dependency changes from run to run, as `kairo-unstable`'s reads `double` or `inverse`).
    /// The one displaced is kept aside (`tracking_thread.displaced`, and `RunReads.displacement`
    /// added to `tracking_run.bitsRead`) with its slots installed, and
    /// dropped when the run ends (`ReusableScope.settleDisplacement`); a later read of it in the run
    /// makes an entry, as for any new object. The new dependency is the run's from its first read:
    /// its write word is loaded now (seq_cst, as an entry's), the version its install re-checks at
    /// the run's end, so it needs no slots until then; its further reads, of this property or
    /// others, are the getter's and `readAgain`'s (which adds a property to its mask, the version
    /// kept). Once a run, and never inside an enclosing scope's entries (`previous`), nor during a
    /// write in flight (see below). Returns `false`, having changed nothing, otherwise.
    @inline(never)
    final func _displaceLastDependency(_ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>) -> Bool {
        let index = DependencyHead.index(thread.pointee.run.cursor, in: thread.pointee.run.dependencies)
        guard thread.pointee.run.bitsRead < RunReads.displacement && index &+ 1 == thread.pointee.run.dependencyCount
        else { return false }
        let head = DependencyHead.at(thread.pointee.run.cursor)
        guard !head.pointee.isHole else { return false }
        // Acquire and seq_cst as in `_appendAccess`: before the caller reads the value.
        let writes = _writes.load(ordering: .sequentiallyConsistent)
        // A write in flight: the read may see the value it replaces, and only the write's end,
        // through a straddling slot, would tell the scope. The reconciliation rewrites a kept
        // dependency's straddling slots with its write word loaded again, which is sound only for
        // reads the getter kept with no write in flight; this one was not, so it makes an entry,
        // installed straddling once (`dependencyOf`). (Displaced here, the rewrite could empty the
        // straddling slot between the write's end and its scan for straddlers: a lost change,
        // which `concurrentViewsNeverMissAChange` looks for with schedule points.)
        guard WriteWord.inFlight(writes) == 0 else { return false }
        let rest = head.rest(thread)
        let displaced = Dependency(head: head.pointee, rest: rest.pointee)
        withUnsafeMutableBytes(of: &thread.pointee.displaced) { $0.storeBytes(of: displaced, as: Dependency.self) }
        let bit: UInt64 = 1 << UInt64(property & 63)
        // The scope's reference, as a dependency's (`ReusableScope.settleDisplacement` installs it).
        let me = Unmanaged.passRetained(self).toOpaque()
        let dependency = Dependency(
            object: me, mask: bit, read: bit, version: writes, word: UInt32(truncatingIfNeeded: property >> 6),
            ownWrites: 0, slot: nil, straddling: false)
        head.pointee = dependency.head
        rest.pointee = dependency.rest
        thread.pointee.run.bitsRead &+= RunReads.displacement
        thread.pointee.run.cursor = UnsafeMutableRawPointer(head + 1)
        tracking_seen_slot(thread, me).pointee = tracking_seen(object: UInt(bitPattern: me), index: -1 &- index)
        _schedulePoint()
        return true
    }

    /// Counts dependency `index` of the running reusable scope as skipped by its cursor (not read
    /// where the last run read it), and keeps its index among the first `TRACKING_SKIPS_KEPT`.
    static func _recordSkip(_ index: Int, _ thread: UnsafeMutablePointer<tracking_thread>) {
        let skips = thread.pointee.run.skipCount
        if skips < Int(TRACKING_SKIPS_KEPT) {
            withUnsafeMutableBytes(of: &thread.pointee.skips) {
                $0.storeBytes(of: index, toByteOffset: skips * 8, as: Int.self)
            }
        }
        thread.pointee.run.skipCount = skips &+ 1
    }

    /// A read whose `seen` slot another object took (their addresses share its bits): the last
    /// few kept dependencies and entries of this scope are searched before a duplicate entry is
    /// made, so that reads alternating between a few objects keep one entry each whatever their
    /// addresses. A duplicate made past them is correct, only larger.
    @inline(never)
    final func _recordAccessSeenLately(
        _ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>, cursorActive: Bool
    ) -> Bool {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let word = UInt32(truncatingIfNeeded: property >> 6)
        let bit: UInt64 = 1 << UInt64(property & 63)
        let lately = 8
        if cursorActive {
            let cursor = DependencyHead.index(thread.pointee.run.cursor, in: thread.pointee.run.dependencies)
            var i = cursor &- 1
            while i >= max(0, cursor &- lately) {
                if DependencyHead.at(thread.pointee.run.dependencies, i).readAgain(me, word, bit, thread) {
                    tracking_seen_slot(thread, me).pointee = tracking_seen(object: UInt(bitPattern: me), index: -1 &- i)
                    return true
                }
                i &-= 1
            }
        }
        let start = thread.pointee.scopeStart
        var i = thread.pointee.count &- 1
        while i >= max(start, thread.pointee.count &- lately) {
            let entry = thread.pointee.entries.unsafelyUnwrapped + i
            if entry.pointee.object == me {
                tracking_seen_slot(thread, me).pointee = tracking_seen(object: UInt(bitPattern: me), index: i)
                if entry.pointee.word == word {
                    entry.pointee.mask |= bit
                } else {
                    // Another word, or an entry installed at its read.
                    _recordAccessOfAnotherWord(property, thread, hinted: i)
                }
                return true
            }
            i &-= 1
        }
        return false
    }

    /// The entry `seen` found (in this scope) is this object's, for another 64-property word, or
    /// installed at its read (`TRACKING_WORD_INSTALLED`, which the inlined paths decline): the
    /// object's entries in this scope are found through their `previous` links, so a scope holds
    /// one entry per object and word however its reads alternate. A further property of an entry
    /// installed at its read is installed now (`_installPropertyAtRead`).
    @inline(never)
    final func _recordAccessOfAnotherWord(
        _ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>, hinted: Int
    ) {
        let word = UInt32(truncatingIfNeeded: property >> 6)
        let entries = thread.pointee.entries.unsafelyUnwrapped
        let start = thread.pointee.scopeStart
        var i = hinted
        while i >= start {
            if entries[i].word & ~TRACKING_WORD_INSTALLED == word {
                if entries[i].word & TRACKING_WORD_INSTALLED != 0 {
                    _installPropertyAtRead(property, thread, entry: entries + i)
                } else {
                    entries[i].mask |= 1 << UInt64(property & 63)
                }
                return
            }
            i = Int(entries[i].previous)
        }
        _appendAccess(property, thread, previous: hinted)
    }
}

/// The slow half of `trackAccess`: a free function, so the inlined caller passes no metadata. It
/// is `releasenone` (it only retains): so the optimiser keeps the caller's object at +0
/// (guaranteed), and an inlined getter does not retain and release the object it reads. The
/// commonest repeated reads are answered here, with no stack frame (`_recordRepeatedAccess`);
/// the rest goes to `_trackingRecordAccessSlow`.
@usableFromInline @_effects(releasenone)
func _trackingRecordAccess(_ object: RegistrarObject, _ property: Int) {
    let thread = registrarThread()
    if object._recordRepeatedAccess(property, thread) { return }
    _trackingRecordAccessSlow(object, property)
}

extension RegistrarObject {
    /// A read in a run whose cursor is held away from the getters (`tracking_thread.heldCursor`).
    /// If no observed write is in flight any more (seq_cst, as the run's own load after arming),
    /// the run lets go of the cursor: a write counted after this load scans after the arming and
    /// finds the scope armed, so the reads from here on need no test, as in a run that began with
    /// none. (Only in the run's own scope: a scope nested in it saved the cursor it shows, and
    /// would put the sentinel back over the real one; nor the getter's keep: the read is the nested
    /// scope's.) Otherwise the getter's keep with the test.
    /// Returns whether the read was kept; `false` sends it down the usual path.
    @inline(__always)
    final func _readWhileHeld(_ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>) -> Bool {
        // A scope nested in the run records its reads itself: the run's cursor is not its own.
        guard thread.pointee.run.cursorDepth == thread.pointee.depth else { return false }
        if !Registrar.observedWritesAreInFlight {
            thread.pointee.run.cursor = thread.pointee.heldCursor
            thread.pointee.heldCursor = nil
            return _keepReadInline(property)
        }
        return _keepHeldRead(property, thread)
    }

    /// In a run whose cursor is held away from the getters (`tracking_thread.heldCursor`): the
    /// getter's keep, with the test of the write word it does not make (acquire: the write's end
    /// releases its store), against the cursor put back for it. It adds to the getter's own keep
    /// only the declined getter, the call, the test, and the cursor put back and held again: a
    /// fraction of the general path (`_trackingRecordHeldAccess`). Returns
    /// `false`, having changed nothing, when a write is in flight or the getter would decline.
    @inline(__always)
    final func _keepHeldRead(_ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>) -> Bool {
        guard WriteWord.inFlight(_writes.load(ordering: .acquiring)) == 0 else { return false }
        return _withHeldCursorPutBack(thread) { _keepReadInline(property) }
    }
}

/// Runs `body` with a held run's cursor put back where the getters and the record paths look
/// (`tracking_run.cursor`, `tracking_thread.heldCursor` cleared meanwhile), and holds it again,
/// where `body` left it, after.
@inline(__always)
func _withHeldCursorPutBack<T>(_ thread: UnsafeMutablePointer<tracking_thread>, _ body: () -> T) -> T {
    let shown = thread.pointee.run.cursor
    thread.pointee.run.cursor = thread.pointee.heldCursor
    thread.pointee.heldCursor = nil
    let result = body()
    thread.pointee.heldCursor = thread.pointee.run.cursor
    thread.pointee.run.cursor = shown
    return result
}

/// A read in a run whose cursor is held away from the getters (`tracking_thread.heldCursor`): the
/// cursor is put back for the read, which takes the paths that look at the write word, and held
/// again after it. (Between reads, `_recordRepeatedAccess` declines a kept dependency's repeated
/// read: it compares with `run.cursor`.)
@inline(never) @_effects(releasenone)
func _trackingRecordHeldAccess(
    _ object: RegistrarObject, _ property: Int, _ thread: UnsafeMutablePointer<tracking_thread>
) {
    _withHeldCursorPutBack(thread) {
        if !object._recordRepeatedAccess(property, thread) { object._recordAccess(property, thread) }
    }
}

@inline(never) @_effects(releasenone)
func _trackingRecordAccessSlow(_ object: RegistrarObject, _ property: Int) {
    let thread = registrarThread()
    // In a held run (`_recordRepeatedAccess` declined: it answers no kept dependency's read then).
    if _slowPath(thread.pointee.heldCursor != nil) {
        if object._readWhileHeld(property, thread) { return }
        if thread.pointee.heldCursor != nil {
            _trackingRecordHeldAccess(object, property, thread)
            return
        }
    }
    object._recordAccess(property, thread)
}

extension RegistrarObject {
    /// A mutation inside a tracked closure moves `begun` without being a change the scope missed:
    /// count it in this thread's entries for the object, so that the install-time check expects it.
    final func _countOwnWrite() {
        let thread = registrarThread()
        let me = Unmanaged.passUnretained(self).toOpaque()
        if let entries = thread.pointee.entries {
            for i in 0..<thread.pointee.count where entries[i].object == me {
                entries[i].ownWrites &+= 1
            }
        }
        // The running reusable scope's kept dependencies read so far.
        if thread.pointee.run.cursorDepth != 0 {
            let cursor = thread.pointee.heldCursor ?? thread.pointee.run.cursor
            for i in 0..<DependencyHead.index(cursor, in: thread.pointee.run.dependencies) {
                let dependency = DependencyHead.at(thread.pointee.run.dependencies, i)
                // (Compared as keys: a hole has no object.)
                if dependency.pointee.baseKey & DependencyHead.objectBits == UInt(bitPattern: me)
                    && dependency.pointee.read != 0
                {
                    dependency.rest(thread).pointee.ownWrites &+= 1
                }
            }
        }
    }
}

extension RegistrarObject {
    /// The end of an install's Dekker half (see `TrackedObject._writes`), once its slots and mask
    /// are published (seq_cst): the write word loaded, or, when a write was in flight at the read
    /// (`straddling`), `straddled` set by a read-modify-write. Returns whether a write other than
    /// the reader's own `ownWrites` has begun or ended since `version` was loaded: a change the
    /// scope may have missed, to report instead of losing it.
    @inline(__always)
    final func _recheckWrites(version: UInt64, ownWrites: UInt32, straddling: Bool) -> Bool {
        _schedulePoint()
        let writes =
            straddling
            ? _writes.bitwiseOr(WriteWord.straddled, ordering: .sequentiallyConsistent).oldValue
            : _writes.load(ordering: .sequentiallyConsistent)
        let expected = WriteWord.counts(version) &+ UInt64(ownWrites) &* WriteWord.begunUnit
        return WriteWord.counts(writes) != expected
    }
}
