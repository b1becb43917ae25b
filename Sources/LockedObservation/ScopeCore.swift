@preconcurrency import CLockedTracking
import CTrackingSupport
import LockFreeObservation
import Synchronization

/// What a scope calls. `@unchecked Sendable`: the callback is called on whichever thread writes,
/// by design (as the lock-free registrar's records hold theirs); it is only read under the scope's
/// `callback` lock.
struct _Callback: @unchecked Sendable {
    let observer: (any ChangeObserver)?
    let closure: (@Sendable () -> Void)?

    func call() {
        if let observer { observer.observedValueWillChange() } else { closure?() }
    }
}

/// One dependency of a scope: the properties of one 64-property word of one object that a run read,
/// as a value: the two halves a list keeps apart (`_DependencyList`): `head`, the lock-free
/// registrar's `DependencyHead`, which a getter touches, and `rest`, this registrar's own (the
/// slot is an index into the object's locked slot array, not an atomic word's address).
struct _Dependency {
    var head: DependencyHead
    var rest: _DependencyRest

    /// `head`'s lead is settled at the install (`settleLeadUnlessTakenOver`): until then the
    /// dependency is an entry of the running run's list, which no cursor walks.
    init(object: UnsafeMutableRawPointer, mask: UInt64, version: UInt64, word: UInt32, position: Int) {
        precondition(UInt(bitPattern: object) >> 48 == 0, "object address above 48 bits")
        head = DependencyHead(keyWithoutLead: DependencyHead.key(object, word), mask: mask, read: 0)
        rest = _DependencyRest(
            installedMask: 0, version: version, object: object, word: word, ownWrites: 0, slot: -1,
            position: Int32(truncatingIfNeeded: position))
    }

    init(head: DependencyHead, rest: _DependencyRest) {
        self.head = head
        self.rest = rest
    }

    var key: UInt {
        get { head.key }
        set { head.key = newValue }
    }
    var mask: UInt64 {
        get { head.mask }
        set { head.setMaskUnlessTakenOver(newValue) }
    }
    var read: UInt64 {
        get { head.read }
        set { head.read = newValue }
    }
    var installedMask: UInt64 {
        get { rest.installedMask }
        set { rest.installedMask = newValue }
    }
    var version: UInt64 {
        get { rest.version }
        set { rest.version = newValue }
    }
    var object: UnsafeMutableRawPointer? {
        get { rest.object }
        set { rest.object = newValue }
    }
    var word: UInt32 { rest.word }
    var ownWrites: UInt32 {
        get { rest.ownWrites }
        set { rest.ownWrites = newValue }
    }
    var slot: Int32 {
        get { rest.slot }
        set { rest.slot = newValue }
    }
    var position: Int32 {
        get { rest.position }
        set { rest.position = newValue }
    }

    /// A hole, left where a long list lost a dependency (`_ScopeCore.holes`): no object, no key
    /// (as a dependency taken over), no properties and no slot.
    static var hole: _Dependency {
        var hole = _Dependency(
            object: UnsafeMutableRawPointer(bitPattern: 1).unsafelyUnwrapped, mask: 0, version: 0, word: 0, position: 0)
        hole.object = nil
        hole.key = 0
        return hole
    }

    /// Whether this is a hole (`hole`): a dependency taken over keeps its properties.
    var isHole: Bool { object == nil && mask == 0 }
}

extension DependencyHead {
    /// In this registrar's lists a key is 0 once the run's entry took the dependency over
    /// (`_ScopeCore.takeOver`): where the lock-free registrar marks a hole with a sentinel key and
    /// a taken-over dependency in its rest (`Dependency.fate`), this one zeroes the key, so that
    /// no getter matches it. Its lead, settled when the dependency is installed or its mask set,
    /// is then never added back: these two leave a key of 0 as it is.
    ///
    /// In the last run's list (the one a cursor walks), `mask` is the properties its slot watches
    /// (`installedMask`, once the run that made it ended); in the running run's list, the
    /// properties it read. `read`, in an outermost `LockedScope` run, is what it read of a kept
    /// dependency once the cursor passed it; 0 if the cursor skipped it.
    mutating func setMaskUnlessTakenOver(_ newMask: UInt64) {
        setMaskLeavingLead(newMask)
        settleLeadUnlessTakenOver()
    }

    /// `settleLead()`, for a dependency not taken over.
    mutating func settleLeadUnlessTakenOver() {
        guard key != 0 else { return }
        settleLead()
    }
}

/// The rest of a dependency, which only the slow paths touch: in an array of its own beside the
/// heads (`_DependencyList`).
struct _DependencyRest {
    /// The mask of the installed slot (0: none yet).
    var installedMask: UInt64
    /// The object's version loaded at this run's first read of it (entries; a kept dependency loads
    /// none: its slot stayed installed while the scope was armed).
    var version: UInt64
    /// The object, retained by the scope from the run that first read it until a run no longer
    /// reads it (or the scope ends); nil in the previous run's list once the current run took it over.
    var object: UnsafeMutableRawPointer?
    var word: UInt32
    /// Writes of the object made by the body on this thread since `version` was loaded.
    var ownWrites: UInt32
    /// The scope's slot in the object, or -1.
    var slot: Int32
    /// In an outermost `LockedScope` run's list: how many kept dependencies were read before it.
    var position: Int32
}

/// A list of dependencies a cursor may walk: the heads, with two sentinels before them and room
/// for one after their last (`_ScopeCore.deps`), so that a getter reads around the cursor with no
/// bounds check; then the rests, in the same allocation.
struct _DependencyList: Equatable {
    let heads: UnsafeMutablePointer<DependencyHead>
    let rests: UnsafeMutablePointer<_DependencyRest>

    static let leadingSentinels = 2

    /// Room for `capacity` dependencies and the trailing sentinel after them (at `capacity` at most).
    static func allocate(_ capacity: Int) -> _DependencyList {
        let headBytes = (leadingSentinels + capacity + 1) * MemoryLayout<DependencyHead>.stride
        let region = UnsafeMutableRawPointer.allocate(
            byteCount: headBytes + capacity * MemoryLayout<_DependencyRest>.stride,
            alignment: max(MemoryLayout<DependencyHead>.alignment, MemoryLayout<_DependencyRest>.alignment))
        let heads = region.bindMemory(to: DependencyHead.self, capacity: leadingSentinels + capacity + 1)
        let rests = (region + headBytes).bindMemory(to: _DependencyRest.self, capacity: capacity)
        for i in 0..<leadingSentinels {
            UnsafeMutableRawPointer(heads + i).storeBytes(of: UInt(TRACKING_NO_OBJECT), as: UInt.self)
        }
        return _DependencyList(heads: heads + leadingSentinels, rests: rests)
    }

    static func deallocate(_ list: _DependencyList) {
        UnsafeMutableRawPointer(list.heads - leadingSentinels).deallocate()
    }

    /// Writes the sentinel after the first `count` dependencies.
    static func endWithSentinel(_ list: _DependencyList, at count: Int) {
        UnsafeMutableRawPointer(list.heads + count).storeBytes(of: UInt(TRACKING_NO_OBJECT), as: UInt.self)
    }

    /// Dependency `i`, both halves. (Both are trivial types: setting one not yet initialised is
    /// initialising it.)
    subscript(i: Int) -> _Dependency {
        get { _Dependency(head: heads[i], rest: rests[i]) }
        nonmutating set {
            heads[i] = newValue.head
            rests[i] = newValue.rest
        }
    }

    /// Copies `count` dependencies from `source` at `from` to `to` here (the ranges may overlap).
    func copy(from source: _DependencyList, at from: Int, to: Int, count: Int) {
        (heads + to).update(from: source.heads + from, count: count)
        (rests + to).update(from: source.rests + from, count: count)
    }

    /// Writes `count` holes from `at` (`_Dependency.hole`).
    func leaveHoles(at: Int, count: Int) {
        let hole = _Dependency.hole
        (heads + at).update(repeating: hole.head, count: count)
        (rests + at).update(repeating: hole.rest, count: count)
    }
}

/// What `_ScopeCore.begin()` hands to `end(_:)`: the run it nests in, and the thread's cursor it
/// set aside.
@usableFromInline
struct _RunFrame {
    let saved: UnsafeMutableRawPointer?
    var tracking = false
    /// An outermost `LockedScope` run: its reads are kept by the cursor.
    var keeping = false
    let cursor: UnsafeMutableRawPointer?
    let dependencies: UnsafeMutableRawPointer?
    let dependencyCount: Int
    let bitsRead: Int
    let heldCursor: UnsafeMutableRawPointer?
}

/// A scope's shared state: its phase (atomic, claimed by writers), its callback, and its
/// dependencies (touched only by the thread running it, or by the one closing it).
///
/// Retained by its handle (`LockedScope`), by every slot it holds, and by a writer between claiming
/// it and running its callback. It retains its dependencies' objects, so they outlive its slots.
@usableFromInline
final class _ScopeCore: @unchecked Sendable {
    // `@unchecked Sendable`: `phase` is atomic, `callback` behind a lock; the dependency lists are
    // used by one thread at a time (a scope's runs and its cancel must not overlap, see `LockedScope`).

    /// The scope's phase. Legal transitions:
    ///
    ///     idle  -> armed   the end of a run (after removing dropped slots, before the re-checks)
    ///     armed -> fired   a one-shot claim (compare-and-swap: strictly one winner per arming)
    ///     armed, fired -> idle   the start of a run (its body's writes notify nobody)
    ///     any   -> closed  cancel; fired -> closed also the close after a non-reusable scope's callback
    ///
    /// A continuous scope stays armed when claimed.
    enum Phase: UInt8 {
        case idle = 0
        case armed, fired, closed
    }
    /// Bits 0..<8 the `Phase`; bits 8..<32 the runs begun (wrapping), as the lock-free registrar's
    /// `ScopeState.run`: a reusable scope's callback claimed before a run began does not start (that
    /// run read after the claim).
    let phase = Atomic<UInt32>(UInt32(Phase.idle.rawValue))
    static let oneRun: UInt32 = 0x100

    @inline(__always) static func phase(_ word: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: word) }

    /// `word` with its phase set to `phase`.
    @inline(__always) static func word(_ word: UInt32, _ phase: Phase) -> UInt32 {
        word & ~0xFF | UInt32(phase.rawValue)
    }
    let continuous: Bool
    /// A `withTracking` scope: nobody re-runs it, so it closes (drops its slots and objects) once
    /// its callback has run.
    let closesWhenFired: Bool
    /// Taken only through `withCallback`, which shows it to ThreadSanitizer in its builds.
    let callback: Mutex<_Callback?>
    /// A `withTracking` scope's lists are its tracking thread's until `track` has ended the run
    /// (`ListsOwner.tracker`); a writer that fires and closes the scope before then leaves them to
    /// that thread (`closedMeanwhile`), which drops them in `handOverLists()`; after it
    /// (`whoeverCloses`), whoever closes the scope drops them.
    let listsOwner = Atomic<UInt8>(ListsOwner.tracker.rawValue)
    enum ListsOwner: UInt8 {
        case tracker = 0
        case whoeverCloses, closedMeanwhile
    }

    /// The `locked_tracking_thread` address of the thread running an outermost `LockedScope` run,
    /// or 0: a write by that thread (the body's own, or a callback's inside it) does not claim the
    /// scope, which stays armed while it runs. Relaxed: only the running thread stores it, and a
    /// thread compares it with its own address (as the lock-free registrar's `runner`).
    let runner = Atomic<UInt>(0)

    // The dependency lists are touched by one thread at a time, the one running or closing the
    // scope, never by two overlapping accesses: `@exclusivity(unchecked)` spares every tracked read
    // the dynamic exclusivity checks a class's stored properties otherwise pay (the lock-free
    // registrar keeps the same state in a C thread-local struct, which has none).

    /// The last run's dependencies, in read order (`_DependencyList`: an outermost run's cursor
    /// walks it).
    @exclusivity(unchecked) var deps: _DependencyList
    @exclusivity(unchecked) var depCount = 0
    @exclusivity(unchecked) var depCapacity: Int
    /// The running run's new entries (in an outermost `LockedScope` run, only what its cursor did
    /// not keep), in read order.
    @exclusivity(unchecked) var next: _DependencyList
    @exclusivity(unchecked) var nextCount = 0
    @exclusivity(unchecked) var nextCapacity: Int
    /// Where the running run expects its next new object in `deps` (in an outermost `LockedScope`
    /// run, the thread's `cursor` holds it while the body runs).
    @exclusivity(unchecked) var cursor = 0
    /// The list an outermost `LockedScope` run that changed its dependencies builds the next
    /// `deps` in (`finishKept`), kept so that such runs allocate nothing once warm.
    /// (Allocated at the first such run: a scope whose reads never change needs none.)
    @exclusivity(unchecked) var spare: _DependencyList?
    @exclusivity(unchecked) var spareCapacity = 0
    /// An outermost `LockedScope` run read a kept dependency outside its watched properties.
    @exclusivity(unchecked) var reshaped = false
    /// The dependencies before the cursor that such a run did not keep (skipped, or taken over by
    /// an entry), in order: the first `notKeptLimit`, and how many there were (as the lock-free
    /// registrar's `tracking_thread.skips`, of the same length).
    @exclusivity(unchecked) var notKept: UnsafeMutablePointer<Int>?
    @exclusivity(unchecked) var notKeptCount = 0
    static var notKeptLimit: Int { Int(TRACKING_SKIPS_KEPT) }
    /// The most steps (spans and entries) a list update records to do it in place: on the stack.
    static let walkLimit = 40
    /// The properties the installed slots watch, over all of `deps`.
    @exclusivity(unchecked) var watchedBits = 0
    /// Set when a run found an observed write in flight (it held), when an install marked a slot
    /// straddling, or when a write of the thread running the scope passed it by (`claim`): the
    /// next run looks for writes in flight, and clears it if it finds none. An outermost run that
    /// finds the scope still armed and this clear looks at no count, as the lock-free
    /// registrar's (`DependencyStore.uncheckedArming`, `ReusableScope.looksForWritesInFlight`).
    @exclusivity(unchecked) var uncheckedArming = false
    /// Slots the last run added, removed or changed (each took an object's lock for that).
    @exclusivity(unchecked) var lastRunSlotUpdates = 0
    /// Holes in `deps` (`_Dependency.hole`), as the lock-free registrar's `DependencyStore.holes`:
    /// a dependency dropped from a long list leaves one instead of every later one moving down
    /// (`finishKeptBySpans`); an entry read there later takes it; a run passes it as not kept.
    @exclusivity(unchecked) var holes = 0
    /// Runs in a row that ended with holes left; after `DependencyHoles.runLimit`, the next closes
    /// them up (a list update leaves holes instead of moving more than `DependencyHoles.moveLimit`
    /// kept dependencies down).
    @exclusivity(unchecked) var runsWithHoles = 0
    /// In an outermost `LockedScope` run, whether a new read took the last dependency's place
    /// (`displaceLast`, as the lock-free registrar's `TrackedObject._displaceLastDependency`), and
    /// the dependency it displaced, dropped when the run ends (`settleDisplacement`).
    @exclusivity(unchecked) var displacing = false
    @exclusivity(unchecked) var displaced = _Dependency.hole
    /// While the scope runs nested in another run, that run (the thread's running scope at its
    /// start); otherwise nil. The running scopes of a thread are its running scope and those
    /// this chain reaches (`runs(within:)`).
    @exclusivity(unchecked) var enclosing: UnsafeMutableRawPointer?
    /// Set by a `cancel()` made on the thread running the scope (inside its own run, or inside a
    /// run nested in it): the run's end keeps nothing of what it read (`closeCancelledRun`).
    @exclusivity(unchecked) var cancelledInRun = false

    init(_ callback: _Callback, continuous: Bool, closesWhenFired: Bool) {
        self.callback = Mutex(callback)
        self.continuous = continuous
        self.closesWhenFired = closesWhenFired
        depCapacity = 4
        nextCapacity = 4
        deps = _DependencyList.allocate(depCapacity)
        next = _DependencyList.allocate(nextCapacity)
    }

    deinit {
        // Only reached when no slot holds the scope; objects still listed (a scope that never
        // installed, e.g. one whose body trapped) are released.
        for i in 0..<depCount {
            if let object = deps[i].object { Unmanaged<LockedObject>.fromOpaque(object).release() }
        }
        _DependencyList.deallocate(deps)
        _DependencyList.deallocate(next)
        if let spare { _DependencyList.deallocate(spare) }
        notKept?.deallocate()
    }

    var isArmed: Bool { Self.phase(phase.load(ordering: .acquiring)) == Phase.armed.rawValue }

    /// Runs `body` under `callback`'s lock, shown to ThreadSanitizer as `LockedObject._withObservers`
    /// shows an object's (on the scope's address).
    @inline(__always)
    private func withCallback<Result>(_ body: (inout _Callback?) -> sending Result) -> sending Result {
        let lock = Unmanaged.passUnretained(self).toOpaque()
        return callback.withLock { callback in
            _lockAcquired(lock)
            defer { _lockReleasing(lock) }
            return body(&callback)
        }
    }

    // MARK: Runs

    /// Starts a run on this thread and makes it the thread's running scope. Returns what `end(_:)`
    /// needs; the run is not tracked when the scope is closed (its body then runs as it would
    /// untracked).
    ///
    /// An outermost `LockedScope` run *keeps* its dependencies as the lock-free `ReusableScope`
    /// does: the scope is armed (it stays so if it was), its slots stay installed, and a read of
    /// the dependency the cursor expects, with no write in flight, is kept by the getter
    /// (`LockedObject._keepReadInline`) with no lock and no shared write; a write by another thread
    /// either notifies the armed scope or is seen by the read. Any other run (nested in another,
    /// or a `withTracking` / `observeChanges` scope) disarms the scope (its body's writes, and
    /// another thread's during it, notify nobody; the re-check at the end catches the latter) and
    /// records every read.
    ///
    /// The thread state a run changes (the running scope, the cursor, its list, the reads counted,
    /// a held cursor) is saved in the frame and put back at the end, so that a run nested in
    /// another leaves the enclosing run's as it found it. A scope cannot run inside its own run.
    @usableFromInline
    func begin() -> _RunFrame {
        let thread = locked_tracking_state().unsafelyUnwrapped
        let saved = thread.pointee.run
        // (With no run on the thread, none to look for: an outermost run pays nothing.)
        if saved != nil { precondition(!runs(within: saved), "LockedScope.run called inside its own run") }
        var frame = _RunFrame(
            saved: saved, cursor: thread.pointee.cursor, dependencies: thread.pointee.dependencies,
            dependencyCount: thread.pointee.dependencyCount, bitsRead: thread.pointee.bitsRead,
            heldCursor: thread.pointee.heldCursor)
        let keeping = saved == nil && !closesWhenFired
        var current = phase.load(ordering: .relaxed)
        while Self.phase(current) != Phase.closed.rawValue {
            // seq_cst: arming is the reader's half of the Dekker pair with a writer's version
            // increment then claim (see `_version`); disarming orders as every phase change the
            // re-check relies on. The run is counted (`phase`).
            if !keeping || Self.phase(current) != Phase.armed.rawValue {
                let desired = Self.word(current &+ Self.oneRun, keeping ? .armed : .idle)
                let (exchanged, seen) = phase.compareExchange(
                    expected: current, desired: desired, ordering: .sequentiallyConsistent)
                if !exchanged {
                    current = seen
                    continue
                }
            }
            // A seq_cst fence orders the reads after the arming, and the load of the writes in
            // flight after it, in the total order the writer's count and claim are in (as
            // `ReusableScope.arm` ends).
            if keeping { atomicMemoryFence(ordering: .sequentiallyConsistent) }
            frame.tracking = true
            frame.keeping = keeping
            nextCount = 0
            cursor = 0
            reshaped = false
            displacing = false
            notKeptCount = 0
            thread.pointee.run = Unmanaged.passUnretained(self).toOpaque()
            if keeping {
                runner.store(UInt(bitPattern: thread), ordering: .relaxed)
                _DependencyList.endWithSentinel(deps, at: depCount)
                thread.pointee.cursor = UnsafeMutableRawPointer(deps.heads)
                thread.pointee.dependencies = UnsafeMutableRawPointer(deps.heads)
                thread.pointee.dependencyCount = depCount
                thread.pointee.bitsRead = 0
                thread.pointee.heldCursor = nil
                // A write in flight now may have claimed before the arming and store after a kept
                // read, which the getters do not test for: hold the cursor away from them, so
                // that every read is recorded (`_lockedRecordAccess`), as the lock-free registrar
                // does; unless the scope is armed since a run that found none (`uncheckedArming`).
                // (`current` is the phase the run found: armed, or the one it armed from.)
                if _slowPath(looksForWritesInFlight(wasArmed: Self.phase(current) == Phase.armed.rawValue)) {
                    thread.pointee.heldCursor = thread.pointee.cursor
                    thread.pointee.cursor = tracking_no_dependencies_address()
                }
            } else {
                enclosing = saved
                // A nested run's cursor is not the enclosing one's: the getters keep nothing.
                thread.pointee.cursor = tracking_no_dependencies_address()
                thread.pointee.dependencyCount = 0
                thread.pointee.heldCursor = nil
            }
            return frame
        }
        return frame
    }

    /// A write of the thread running this scope passed it by (`_ObserverSlots.claim`): it may
    /// outlive the run, so the next run looks for writes in flight. Returns nil (not claimed).
    /// Out of line, so that it adds nothing to the claim's loop.
    @inline(never)
    func passedByOwnWrite() -> UInt32? {
        uncheckedArming = true
        return nil
    }

    /// Whether a keeping run must hold its cursor: as `ReusableScope.looksForWritesInFlight`.
    @inline(__always)
    private func looksForWritesInFlight(wasArmed: Bool) -> Bool {
        if wasArmed && !uncheckedArming { return false }
        if _slowPath(locked_observed_writes_are_in_flight()) {
            uncheckedArming = true
            return true
        }
        if wasArmed { uncheckedArming = false }
        return false
    }

    /// Ends a run begun by `begin()`: brings the slots in line with what it read, re-arms and
    /// re-checks (`finish`, `finishKept`); an enclosing scope on this thread also depends on what
    /// this run read. A scope cancelled during the run keeps nothing (`closeCancelledRun`).
    ///
    /// Everything that can run user code comes after the thread's state is the enclosing run's
    /// again and the scope is no longer the running one: the objects the run let go of are
    /// released once the thread's outermost scope has ended (`releaseLater`), and a change a
    /// re-check saw is told last, after the merge into the enclosing run.
    @usableFromInline
    func end(_ frame: _RunFrame) {
        guard frame.tracking else { return }
        let thread = locked_tracking_state().unsafelyUnwrapped
        if frame.keeping {
            cursor =
                (Self.runCursor(thread) - UnsafeMutableRawPointer(deps.heads)) / MemoryLayout<DependencyHead>.stride
            let bitsRead = thread.pointee.bitsRead
            runner.store(0, ordering: .relaxed)
            restore(frame, thread)
            // The commonest run, one that read what the last one read: nothing to drop, install or
            // tell (as `finishKept`'s first test; a cancel inside the run marks it reshaped). Only
            // what scopes nested in it let go of is left to release (no scope runs now).
            if _fastPath(
                nextCount == 0 && cursor == depCount && cursor &+ bitsRead == watchedBits && !reshaped && !displacing)
            {
                lastRunSlotUpdates = 0
                if _slowPath(thread.pointee.releasedCount != 0) { Self.releaseDeferred(thread) }
                return
            }
            endChangedRun(bitsRead: bitsRead, thread)
            return
        }
        enclosing = nil
        restore(frame, thread)
        // Nested runs merge into the enclosing one, as Observation's scopes do, with the versions
        // this run recorded (its reads came before the merge), cancelled or not.
        var changed = false
        if _slowPath(cancelledInRun) {
            merge(next, count: nextCount, into: frame.saved)
            closeCancelledRun()
        } else {
            changed = finish()
            merge(deps, count: depCount, into: frame.saved)
        }
        releaseAndTell(changed, thread)
    }

    /// The end of an outermost `LockedScope` run that did not read what the last one read, or
    /// whose scope was cancelled in it.
    @inline(never)
    private func endChangedRun(bitsRead: Int, _ thread: UnsafeMutablePointer<locked_tracking_thread>) {
        var changed = false
        if _slowPath(cancelledInRun) {
            closeCancelledRun()
        } else {
            changed = finishKept(bitsRead: bitsRead)
        }
        releaseAndTell(changed, thread)
    }

    /// The last steps of a run's end, once the scope is no longer the running one: what was let go
    /// of is released if no scope runs on the thread now, then a change a re-check saw is told.
    @inline(__always)
    private func releaseAndTell(_ changed: Bool, _ thread: UnsafeMutablePointer<locked_tracking_thread>) {
        if thread.pointee.run == nil && thread.pointee.releasedCount != 0 { Self.releaseDeferred(thread) }
        if changed, let claimed = claim() { runCallback(claimed) }
    }

    /// Merges the first `count` dependencies of `list` (entries: no holes) into the enclosing run
    /// `outer`, if any.
    private func merge(_ list: _DependencyList, count: Int, into outer: UnsafeMutableRawPointer?) {
        guard let outer else { return }
        let scope = Unmanaged<_ScopeCore>.fromOpaque(outer).takeUnretainedValue()
        for i in 0..<count { scope.merge(list[i]) }
    }

    private func restore(_ frame: _RunFrame, _ thread: UnsafeMutablePointer<locked_tracking_thread>) {
        thread.pointee.run = frame.saved
        thread.pointee.cursor = frame.cursor
        thread.pointee.dependencies = frame.dependencies
        thread.pointee.dependencyCount = frame.dependencyCount
        thread.pointee.bitsRead = frame.bitsRead
        thread.pointee.heldCursor = frame.heldCursor
    }

    /// The running outermost run's cursor: the thread's, or the one held away from the getters
    /// (`locked_tracking_thread.heldCursor`).
    private static func runCursor(_ thread: UnsafeMutablePointer<locked_tracking_thread>) -> UnsafeMutableRawPointer {
        thread.pointee.heldCursor ?? thread.pointee.cursor.unsafelyUnwrapped
    }

    private static func setRunCursor(
        _ thread: UnsafeMutablePointer<locked_tracking_thread>, _ cursor: UnsafeMutableRawPointer
    ) {
        if thread.pointee.heldCursor != nil {
            thread.pointee.heldCursor = cursor
        } else {
            thread.pointee.cursor = cursor
        }
    }

    /// Whether the running run is an outermost `LockedScope` run (its cursor is the thread's).
    private var isKeeping: Bool { runner.load(ordering: .relaxed) != 0 }

    /// Whether this scope is `run` or one of the runs it is nested in (`enclosing`): whether it
    /// runs on the thread whose running scope is `run`.
    private func runs(within run: UnsafeMutableRawPointer?) -> Bool {
        let me = Unmanaged.passUnretained(self).toOpaque()
        var current = run
        while let scope = current {
            if scope == me { return true }
            current = Unmanaged<_ScopeCore>.fromOpaque(scope)._withUnsafeGuaranteedRef { $0.enclosing }
        }
        return false
    }

    /// Adds a nested run's dependency to this (running) run, one property at a time, each a read
    /// made with the version the nested run's first read loaded (and its own writes since): it
    /// adds to this run's entry of the object, or is kept (a further property of a dependency the
    /// cursor kept: `readKeptAgain`), or makes an entry. The nested run's own writes were counted
    /// here too (`countOwnWrite` counts in every run on the thread), so an entry read here first
    /// keeps its own count.
    private func merge(_ dependency: _Dependency) {
        let raw = dependency.object.unsafelyUnwrapped
        let object = Unmanaged<LockedObject>.fromOpaque(raw).takeUnretainedValue()
        let version = dependency.version &+ UInt64(dependency.ownWrites) &* VersionWord.begunUnit
        var bits = dependency.mask
        properties: while bits != 0 {
            let bit = bits & (0 &- bits)
            bits &= bits &- 1
            for i in 0..<nextCount where next[i].object == raw && next[i].word == dependency.word {
                next.heads[i].addToMask(bit)
                continue properties
            }
            append(
                object, raw, word: dependency.word, bit: bit,
                property: Int(dependency.word) << 6 | bit.trailingZeroBitCount, version: version)
        }
    }

    /// Records a read of `property` of `object` in the running run that its getter did not keep. A
    /// repeated read of an object finds its entry (the last one, or the object's hint); a first
    /// read in this run is matched against the previous run's list at the cursor.
    @inline(__always)
    func record(_ object: LockedObject, _ property: Int) {
        let raw = Unmanaged.passUnretained(object).toOpaque()
        let word = UInt32(truncatingIfNeeded: property >> 6)
        let bit: UInt64 = 1 << UInt64(property & 63)
        if nextCount > 0 {
            let last = nextCount &- 1
            if next.rests[last].object == raw && next.rests[last].word == word {
                next.heads[last].addToMask(bit)
                return
            }
        }
        // Relaxed: the hint is only a guess, checked against this run's own list.
        let hint = object._entryHint.load(ordering: .relaxed) &- 1
        if UInt(bitPattern: hint) < UInt(bitPattern: nextCount) {
            if next.rests[hint].object == raw && next.rests[hint].word == word {
                next.heads[hint].addToMask(bit)
                return
            }
        }
        append(object, raw, word: word, bit: bit, property: property)
    }

    @inline(never)
    func append(
        _ object: LockedObject, _ raw: UnsafeMutableRawPointer, word: UInt32, bit: UInt64, property: Int,
        version recorded: UInt64? = nil
    ) {
        precondition(UInt(bitPattern: property) < UInt(LockedObject.propertyLimit), "property index out of range")
        // A short look back, for reads that alternate between a few objects whose hints another
        // scope moved.
        var i = nextCount &- 2
        let stop = max(0, nextCount &- 9)
        while i >= stop {
            if next.rests[i].object == raw && next.rests[i].word == word {
                next.heads[i].addToMask(bit)
                return
            }
            i &-= 1
        }
        let thread = locked_tracking_state().unsafelyUnwrapped
        let keeping = thread.pointee.run == Unmanaged.passUnretained(self).toOpaque() && isKeeping
        if keeping {
            cursor =
                (Self.runCursor(thread) - UnsafeMutableRawPointer(deps.heads)) / MemoryLayout<DependencyHead>.stride
            if cursor < depCount && deps[cursor].isHole {
                // Holes are passed as dependencies not kept, and the read matched after them.
                repeat {
                    noteNotKept(cursor)
                    cursor &+= 1
                } while cursor < depCount && deps[cursor].isHole
                Self.setRunCursor(thread, UnsafeMutableRawPointer(deps.heads + cursor))
                if object._keepReadInline(property) { return }
            }
            if readKeptAgain(UInt(bitPattern: raw) | UInt(word) << 48, bit, object, thread, version: recorded) {
                return
            }
        }
        // (A list has room for a sentinel after its capacity: it becomes `deps`, which a cursor walks.)
        if nextCount == nextCapacity { grow(&next, &nextCapacity, nextCount) }
        // Acquire: every write that ended before this load has its store visible to the caller's
        // read, which comes after (see `LockedObject._version`).
        let version = recorded ?? object._version.load(ordering: .acquiring)
        var entry = _Dependency(object: raw, mask: bit, version: version, word: word, position: cursor)
        let key = entry.key
        if cursor < depCount && deps.heads[cursor].baseKey == key {
            takeOver(cursor, into: &entry)
            noteNotKept(cursor)
            cursor &+= 1
        } else if let after = dependencyAfterSkipping(cursor), deps.heads[after].baseKey == key {
            // One dependency of the last run was not read here (and any holes after it): it is
            // dropped at the end.
            deps.heads[cursor].read = 0
            takeOver(after, into: &entry)
            for i in cursor...after { noteNotKept(i) }
            cursor = after &+ 1
        } else {
            // A read of an object whose deinit is running (it reads its own properties while a
            // scope runs on its thread) is not recorded: nothing can read it after, and a retain
            // would outlive its deallocation. (Only here: a dependency listed is retained, so the
            // paths above never see such an object.)
            if _slowPath(swift_isDeallocating(raw)) { return }
            // A new dependency: the scope holds the object until a run no longer reads it.
            _ = Unmanaged.passUnretained(object).retain()
            // Not during a write in flight (as the lock-free registrar's `_displaceLastDependency`):
            // such a read is an entry, its slot marked straddling at its install.
            if keeping && !displacing && cursor &+ 1 == depCount && deps[cursor].object != nil
                && VersionWord.inFlight(version) == 0
            {
                displaceLast(with: entry, bit, thread)
                return
            }
        }
        next[nextCount] = entry
        nextCount &+= 1
        if keeping {
            Self.setRunCursor(thread, UnsafeMutableRawPointer(deps.heads + cursor))
        }
        // Written only when it moves: a run whose dependencies stay in place writes nothing shared.
        if object._entryHint.load(ordering: .relaxed) != nextCount {
            object._entryHint.store(nextCount, ordering: .relaxed)
        }
    }

    /// A new read at the last dependency, in an outermost `LockedScope` run, takes its place (a
    /// body whose last dependency changes from run to run), as the lock-free registrar's
    /// `TrackedObject._displaceLastDependency` does: the displaced dependency kept aside, with its
    /// slot, until the run ends; the new one a kept dependency from its first read, marked for
    /// installing (`position` -2) with the version that read loaded, so that its further reads
    /// add properties (`addKeptRead`) without loading another, and the body's own writes of it are
    /// counted (`countOwnWrite`). Once a run, and never during a write in flight.
    private func displaceLast(
        with entry: _Dependency, _ bit: UInt64, _ thread: UnsafeMutablePointer<locked_tracking_thread>
    ) {
        displaced = deps[cursor]
        var dependency = entry
        dependency.read = bit
        dependency.position = -2
        dependency.head.settleLeadUnlessTakenOver()
        deps[cursor] = dependency
        displacing = true
        cursor &+= 1
        Self.setRunCursor(thread, UnsafeMutableRawPointer(deps.heads + cursor))
    }

    /// After a run whose new read took the last dependency's place (`displaceLast`): the displaced
    /// dependency dropped (its slot removed under its object's lock, its object released), the new
    /// one installed with the properties the run read and re-checked under its lock. Returns
    /// whether the re-check saw a change.
    private func settleDisplacement(_ updates: inout Int) -> Bool {
        watchedBits -= displaced.mask.nonzeroBitCount
        drop(displaced)
        displaced = _Dependency.hole
        updates &+= 1
        let last = depCount &- 1
        var dependency = deps[last]
        dependency.mask = dependency.read
        let changed = install(&dependency, &updates)
        deps[last] = dependency
        watchedBits += dependency.mask.nonzeroBitCount
        return changed
    }

    /// A further read of a dependency the cursor kept in this run (among the last few it passed),
    /// that the getter did not keep: the property is added to what the run read. One its slot does
    /// not watch marks the dependency to be re-installed (`position` -2) with its version loaded
    /// now (the scope was armed with its slot installed since the first read, so a write in between
    /// notified it), or the one a nested run's read loaded (`recorded`, from `merge`), and the run
    /// as reshaped. Returns whether it was such a read.
    private func readKeptAgain(
        _ key: UInt, _ bit: UInt64, _ object: LockedObject, _ thread: UnsafeMutablePointer<locked_tracking_thread>,
        version recorded: UInt64?
    ) -> Bool {
        // (The heads' address in a local, and the rest touched only out of line: the loop steps one
        // offset and reloads nothing from the scope.)
        let heads = deps.heads
        var i = cursor &- 1
        while i >= max(0, cursor &- 8) {
            let dependency = heads + i
            if dependency.pointee.baseKey == key && dependency.pointee.read != 0 {
                if dependency.pointee.read & bit != 0 { return true }
                addKeptRead(at: i, bit, object, thread, version: recorded)
                return true
            }
            i &-= 1
        }
        return false
    }

    /// A property kept dependency `i` did not have in this run: added to what the run read; one
    /// its slot does not watch marks the dependency for re-installing (`readKeptAgain`).
    @inline(never)
    private func addKeptRead(
        at i: Int, _ bit: UInt64, _ object: LockedObject, _ thread: UnsafeMutablePointer<locked_tracking_thread>,
        version recorded: UInt64?
    ) {
        let (dependency, rest) = (deps.heads + i, deps.rests + i)
        if bit & ~dependency.pointee.mask != 0 && rest.pointee.position != -2 {
            rest.pointee.version = recorded ?? object._version.load(ordering: .acquiring)
            rest.pointee.ownWrites = 0
            rest.pointee.position = -2
            reshaped = true
        }
        dependency.pointee.read |= bit
        thread.pointee.bitsRead &+= 1
    }

    /// The first dependency after `index` that is not a hole, if any.
    @inline(__always)
    private func dependencyAfterSkipping(_ index: Int) -> Int? {
        var i = index &+ 1
        while i < depCount && deps[i].isHole { i &+= 1 }
        return i < depCount ? i : nil
    }

    @inline(__always)
    private func noteNotKept(_ index: Int) {
        if notKeptCount < Self.notKeptLimit {
            if notKept == nil { notKept = .allocate(capacity: Self.notKeptLimit) }
            notKept.unsafelyUnwrapped[notKeptCount] = index
        }
        notKeptCount &+= 1
    }

    /// A kept dependency: the new entry takes over the old one's retain and slot (no retain, no
    /// release, no lock).
    @inline(__always)
    private func takeOver(_ index: Int, into entry: inout _Dependency) {
        entry.installedMask = deps.rests[index].installedMask
        entry.slot = deps.rests[index].slot
        deps.rests[index].object = nil
        deps.heads[index].key = 0
    }

    private func grow(_ list: inout _DependencyList, _ capacity: inout Int, _ count: Int) {
        let grown = _DependencyList.allocate(capacity * 2)
        grown.copy(from: list, at: 0, to: 0, count: count)
        _DependencyList.deallocate(list)
        list = grown
        capacity *= 2
    }

    /// A write by the body of the run running on this thread: counted in this run's dependencies
    /// of `object` whose version it loaded, and in those of every run it is nested in, whose body
    /// it is also part of (`enclosing`; `merge` then adds none).
    func countOwnWrite(of object: LockedObject) {
        var scope = self
        while true {
            scope.countOwnWriteHere(of: object)
            guard let outer = scope.enclosing else { return }
            scope = Unmanaged<_ScopeCore>.fromOpaque(outer).takeUnretainedValue()
        }
    }

    private func countOwnWriteHere(of object: LockedObject) {
        let raw = Unmanaged.passUnretained(object).toOpaque()
        for i in 0..<nextCount where next.rests[i].object == raw { next.rests[i].ownWrites &+= 1 }
        // The kept dependencies whose version this run loaded (`readKeptAgain`, `displaceLast`).
        if reshaped || displacing {
            for i in 0..<depCount where deps.rests[i].object == raw && deps.rests[i].position == -2 {
                deps.rests[i].ownWrites &+= 1
            }
        }
    }

    /// The end of a run that recorded every read: drops the slots of the last run's dependencies
    /// this run did not read (before arming, so that they never notify for this run), arms, then,
    /// per object under its lock, installs or updates the slot and re-checks the version. A change
    /// missed by the run is returned: `end(_:)` tells the scope once the run has ended.
    private func finish() -> Bool {
        var updates = 0
        for i in 0..<depCount where deps[i].object != nil {
            drop(deps[i])
            updates &+= 1
        }
        swap(&deps, &next)
        swap(&depCapacity, &nextCapacity)
        adopt(count: nextCount)

        // seq_cst: before the installs' seq_cst accesses (see `LockedObject._version`). A scope
        // cancelled meanwhile (which needs another thread breaking the contract) stays closed.
        let runs = phase.load(ordering: .relaxed)
        _ = phase.compareExchange(
            expected: Self.word(runs, .idle), desired: Self.word(runs, .armed), ordering: .sequentiallyConsistent)
        var changed = false
        for i in 0..<depCount where install(&deps[i], &updates) { changed = true }
        settle(watchedBits: countWatchedBits(), updates: updates)
        return changed
    }

    /// The end of an outermost `LockedScope` run (the scope stayed armed). When it read what the
    /// last run read, in the same order, nothing happens: every slot stays. Otherwise the new list
    /// is the kept dependencies and the run's entries in read order; a kept dependency read with
    /// fewer properties has its slot narrowed, one not read is dropped, and each entry is installed
    /// (or takes its dependency's slot over) and re-checked under its object's lock, as `finish`
    /// does. Returns whether a re-check saw a change.
    private func finishKept(bitsRead: Int) -> Bool {
        if displacing { return finishKeptDisplacing(bitsRead: bitsRead) }
        let kept = cursor
        if nextCount == 0 && kept == depCount && kept &+ bitsRead == watchedBits && !reshaped {
            lastRunSlotUpdates = 0
            return false
        }
        var changed = false
        if !reshaped && notKeptCount <= Self.notKeptLimit && finishKeptBySpans(bitsRead: bitsRead, changed: &changed) {
            return changed
        }
        var updates = 0
        // The new list, in read order (each entry before the kept dependency at its position),
        // built in the spare list. Entries are marked `position` -2 until installed.
        let spare = reserveSpare(kept + nextCount)
        var count = 0
        var e = 0
        func takeEntry() {
            spare[count] = next[e]
            spare.rests[count].position = -2
            count += 1
            e += 1
        }
        for j in 0..<depCount {
            while e < nextCount && Int(next[e].position) <= j { takeEntry() }
            guard deps[j].object != nil else { continue }  // taken over by an entry
            if j < kept && deps[j].read != 0 {
                var dependency = deps[j]
                if dependency.position == -2 {
                    // Read outside its watched properties: re-installed below, as an entry.
                    dependency.mask = dependency.read
                } else if dependency.read != dependency.mask {
                    // Read with fewer properties: the slot narrowed (nothing it still watches
                    // changed unseen: it stayed installed while the scope was armed).
                    dependency.mask = dependency.read
                    let object = Unmanaged<LockedObject>.fromOpaque(dependency.object.unsafelyUnwrapped)
                    object._withUnsafeGuaranteedRef { $0._narrow(&dependency) }
                    updates &+= 1
                }
                spare[count] = dependency
                count += 1
            } else {
                drop(deps[j])
                updates &+= 1
            }
        }
        while e < nextCount { takeEntry() }
        adoptSpare(count: count)
        // Each entry (a new dependency, or one that took a kept one's slot over): installed and
        // re-checked under its lock, as `finish` does. A kept dependency's slot stays as it was.
        for i in 0..<depCount where deps.rests[i].position == -2 && install(&deps[i], &updates) { changed = true }
        settle(watchedBits: countWatchedBits(), updates: updates)
        return changed
    }

    /// `finishKept` after a run whose new read took the last dependency's place: settled first
    /// (`settleDisplacement`), then finished as any other run, the new dependency a kept one read
    /// with exactly its properties. Returns whether the new dependency's re-check, or the
    /// reconciliation's, saw a change.
    @inline(never)
    private func finishKeptDisplacing(bitsRead: Int) -> Bool {
        var updates = 0
        let changed = settleDisplacement(&updates)
        displacing = false
        let reconciled = finishKept(bitsRead: bitsRead)
        lastRunSlotUpdates &+= updates
        return changed || reconciled
    }

    /// `finishKept` for a run that kept every dependency it read with exactly its watched
    /// properties (nothing to narrow or widen) and passed over few: only the dependencies not kept
    /// and the entries are looked at, as the lock-free registrar's in-place reconciliation does.
    /// The list is updated where it stands when no kept dependency moves (each entry lands where a
    /// dependency not kept was, or after the last: two rows swapped, one replaced); otherwise it is
    /// copied in spans of kept dependencies, with the entries between them. Returns `false`, having
    /// changed nothing, when the run read its kept dependencies otherwise; `found` is set when an
    /// install's re-check saw a change.
    private func finishKeptBySpans(bitsRead: Int, changed found: inout Bool) -> Bool {
        let kept = cursor
        // Each kept dependency read a subset of its watched properties: the totals are equal only
        // if every one read all of them.
        var notKeptBits = 0
        for i in 0..<notKeptCount { notKeptBits += deps[notKept.unsafelyUnwrapped[i]].mask.nonzeroBitCount }
        for j in kept..<depCount { notKeptBits += deps[j].mask.nonzeroBitCount }
        guard kept - notKeptCount + bitsRead == watchedBits - notKeptBits else { return false }
        var updates = 0
        // The holes left: those the run passed or ended before go, those the update leaves come.
        var holes = self.holes
        for i in 0..<notKeptCount {
            let dependency = deps[notKept.unsafelyUnwrapped[i]]
            if dependency.object != nil {
                drop(dependency)
                updates &+= 1
            } else if dependency.isHole {
                holes -= 1
            }
        }
        for j in kept..<depCount {
            if deps[j].object != nil {
                drop(deps[j])
                updates &+= 1
            } else if deps[j].isHole {
                holes -= 1
            }
        }
        var changed = false
        var bits = watchedBits - notKeptBits
        // (A nested function, not a closure value: the variables it updates stay on the stack.)
        func place(_ list: _DependencyList, _ e: Int, _ at: Int) {
            var dependency = next[e]
            if install(&dependency, &updates) { changed = true }
            list[at] = dependency
            bits += dependency.mask.nonzeroBitCount
        }
        if depCount == 0 {
            // A first run (a view just mounted): its entries are the list.
            let list = nextCount <= depCapacity ? deps : reserveSpare(nextCount)
            for e in 0..<nextCount { place(list, e, e) }
            if list == deps { adopt(count: nextCount) } else { adoptSpare(count: nextCount) }
            settle(watchedBits: bits, updates: updates)
            found = changed
            return true
        }
        // A dry run: the list can be updated where it stands if every kept span moves the same way
        // and no entry lands on a kept dependency still to be moved. Forward (spans towards the
        // front, each entry before the next span still to move): in the walk's own order.
        // Backward (the reverse, an insertion): in reverse, recorded (a few steps, on the stack).
        var forward = true
        var backward = true
        var sourceEnd = 0  // where the last span so far ends in `deps`
        var steps = 0
        let count = mergeKept(
            span: { from, to, length in
                steps += 1
                sourceEnd = from + length
                if to > from { forward = false }
                if to < from { backward = false }
            },
            entry: { _, at, nextSpan in
                steps += 1
                if at >= nextSpan { forward = false }
                if at < sourceEnd { backward = false }
            },
            holes: { _, _ in steps += 1 })
        let fits = count <= depCapacity  // (the sentinel goes after the capacity)
        let leaveHoles = { (list: _DependencyList, at: Int, count: Int) in
            list.leaveHoles(at: at, count: count)
            holes += count
        }
        // (`update(from:count:)` copies overlapping ranges.)
        if fits && forward {
            _ = mergeKept(
                span: { from, to, length in if from != to { deps.copy(from: deps, at: from, to: to, count: length) } },
                entry: { e, at, _ in place(deps, e, at) },
                holes: { at, count in leaveHoles(deps, at, count) })
            adopt(count: count, holes: holes)
        } else if fits && backward && steps <= Self.walkLimit {
            withUnsafeTemporaryAllocation(of: (Int, Int, Int).self, capacity: steps) { walk in
                var n = 0
                _ = mergeKept(
                    span: { from, to, length in
                        walk[n] = (from, to, length)
                        n += 1
                    },
                    entry: { e, at, _ in
                        walk[n] = (-1 - e, at, 0)
                        n += 1
                    },
                    holes: { at, count in
                        walk[n] = (Int.min, at, count)
                        n += 1
                    })
                for i in (0..<n).reversed() {
                    let (from, to, length) = walk[i]
                    if from == Int.min {
                        leaveHoles(deps, to, length)
                    } else if from < 0 {
                        place(deps, -1 - from, to)
                    } else if from != to {
                        deps.copy(from: deps, at: from, to: to, count: length)
                    }
                }
            }
            adopt(count: count, holes: holes)
        } else {
            let list = reserveSpare(count)
            _ = mergeKept(
                span: { from, to, length in list.copy(from: deps, at: from, to: to, count: length) },
                entry: { e, at, _ in place(list, e, at) },
                holes: { at, count in leaveHoles(list, at, count) })
            adoptSpare(count: count, holes: holes)
        }
        settle(watchedBits: bits, updates: updates)
        found = changed
        return true
    }

    /// Walks the new list of a run that kept what it read (`finishKeptBySpans`), in read order:
    /// each span of kept dependencies (`span(from, to, length)`: indices in `deps` and in the new
    /// list) and each entry (`entry(index in next, index in the new list, where the next span
    /// starts in deps or Int.max)`), an entry before the kept dependency at its position. Returns
    /// the new list's length.
    private func mergeKept(
        span: (_ from: Int, _ to: Int, _ length: Int) -> Void,
        entry: (_ e: Int, _ at: Int, _ nextSpan: Int) -> Void,
        holes: (_ at: Int, _ count: Int) -> Void
    ) -> Int {
        let kept = cursor
        let holesAllowed = runsWithHoles < DependencyHoles.runLimit
        var count = 0
        var e = 0
        var skip = 0
        var j = 0
        while true {
            if e < nextCount && Int(next[e].position) <= j {
                // Where the next span of kept dependencies starts in `deps` (`kept`: none left).
                var nextSpan = j
                var k = skip
                while nextSpan < kept && k < notKeptCount && notKept.unsafelyUnwrapped[k] == nextSpan {
                    nextSpan += 1
                    k += 1
                }
                entry(e, count, nextSpan < kept ? nextSpan : Int.max)
                count += 1
                e += 1
            } else if j >= kept {
                return count
            } else if skip < notKeptCount && notKept.unsafelyUnwrapped[skip] == j {
                // Skipped (dropped) or taken over by an entry (its slot moved there).
                skip += 1
                j += 1
            } else {
                let stop = min(
                    e < nextCount ? Int(next[e].position) : kept,
                    skip < notKeptCount ? notKept.unsafelyUnwrapped[skip] : kept, kept)
                // A long span that would move down once every entry is placed stays, behind holes.
                if holesAllowed && e >= nextCount && count < j && stop - j > DependencyHoles.moveLimit {
                    holes(count, j - count)
                    count = j
                }
                span(j, count, stop - j)
                count += stop - j
                j = stop
            }
        }
    }

    /// Installs `dependency` (an entry: a new dependency, or one that took a kept one's slot over)
    /// and re-checks it under its object's lock; counts a slot added or changed. Returns whether
    /// the object changed since the run read it.
    private func install(_ dependency: inout _Dependency, _ updates: inout Int) -> Bool {
        dependency.position = -1
        dependency.head.settleLeadUnlessTakenOver()
        if dependency.slot < 0 || dependency.installedMask != dependency.mask { updates &+= 1 }
        let object = Unmanaged<LockedObject>.fromOpaque(dependency.object.unsafelyUnwrapped)
        return object._withUnsafeGuaranteedRef { $0._install(&dependency, for: self) }
    }

    /// The end of every finish: the totals kept.
    private func settle(watchedBits: Int, updates: Int) {
        self.watchedBits = watchedBits
        lastRunSlotUpdates = updates
    }

    /// The spare list, with room for `capacity` dependencies.
    private func reserveSpare(_ capacity: Int) -> _DependencyList {
        if let spare, spareCapacity >= capacity { return spare }
        if let spare { _DependencyList.deallocate(spare) }
        let grown = _DependencyList.allocate(max(capacity, 4))
        spare = grown
        spareCapacity = max(capacity, 4)
        return grown
    }

    /// The spare list, holding `count` dependencies, becomes the list; the old one, the spare.
    private func adoptSpare(count: Int, holes: Int = 0) {
        let list = deps
        deps = spare.unsafelyUnwrapped
        spare = list
        swap(&depCapacity, &spareCapacity)
        adopt(count: count, holes: holes)
    }

    /// Removes `dependency`'s slot, under its object's lock, and lets go of the object
    /// (`releaseLater`).
    private func drop(_ dependency: _Dependency) {
        let raw = dependency.object.unsafelyUnwrapped
        if dependency.slot >= 0 {
            let object = Unmanaged<LockedObject>.fromOpaque(raw)
            let core = object._withUnsafeGuaranteedRef { o in o._withObservers { $0.remove(at: dependency.slot) } }
            // The slot's retain; the handle still holds the scope.
            Unmanaged<_ScopeCore>.fromOpaque(core).release()
        }
        Self.releaseLater(raw)
    }

    /// Lets go of one retain of `object` once no scope runs on this thread: when the thread's
    /// outermost scope has ended (`end(_:)`), or at once where none runs (`cancel()`). A run's
    /// reconciliation, a displacement and a cancellation let go of their objects this way, so
    /// that a deinit never runs while a scope is between two states, nor while a run is the
    /// running scope (its writes would be taken for the body's own, its reads recorded).
    static func releaseLater(_ object: UnsafeMutableRawPointer) {
        let thread = locked_tracking_state().unsafelyUnwrapped
        if thread.pointee.releasedCount == thread.pointee.releasedCapacity { locked_tracking_grow_released(thread) }
        thread.pointee.released[thread.pointee.releasedCount] = object
        thread.pointee.releasedCount &+= 1
    }

    /// Releases the objects let go of (`releaseLater`), once no scope runs on this thread. Each is
    /// taken off the list before it is released: its deinit may track, write, run or cancel
    /// scopes, and end an outermost scope of its own, which releases what is left (each exactly
    /// once).
    @inline(never)
    static func releaseDeferred(_ thread: UnsafeMutablePointer<locked_tracking_thread>) {
        while thread.pointee.releasedCount > 0 {
            let last = thread.pointee.releasedCount &- 1
            let object = thread.pointee.released[last].unsafelyUnwrapped
            thread.pointee.releasedCount = last
            Unmanaged<LockedObject>.fromOpaque(object).release()
        }
    }

    /// `releaseDeferred` when no scope runs on this thread; otherwise the outermost one's end does it.
    private static func releaseDeferredIfNoRun() {
        let thread = locked_tracking_state().unsafelyUnwrapped
        if thread.pointee.run == nil && thread.pointee.releasedCount != 0 { releaseDeferred(thread) }
    }

    /// The list just put in place holds `count` dependencies; the running run's list starts
    /// empty, sized for the next run: a run reading what the last one read allocates nothing.
    private func adopt(count: Int, holes: Int = 0) {
        depCount = count
        self.holes = holes
        runsWithHoles = holes == 0 ? 0 : runsWithHoles + 1
        nextCount = 0
        cursor = 0
        if nextCapacity < depCapacity {
            _DependencyList.deallocate(next)
            next = _DependencyList.allocate(depCapacity)
            nextCapacity = depCapacity
        }
    }

    private func countWatchedBits() -> Int {
        var bits = 0
        for i in 0..<depCount { bits += deps.heads[i].mask.nonzeroBitCount }
        return bits
    }

    // MARK: Notification

    /// Takes the right to call back for the current arming: strictly once for a one-shot scope; a
    /// continuous one is called back at every claim while armed. Returns the phase word claimed
    /// (its run, for `runCallback`), or nil.
    @inline(__always)
    func claim() -> UInt32? {
        if continuous {
            let word = phase.load(ordering: .acquiring)
            return Self.phase(word) == Phase.armed.rawValue ? word : nil
        }
        // One winner per arming. seq_cst: a writer's half of the Dekker pair with an outermost
        // `LockedScope` run's arming (its version increment, then this), see `begin()`.
        var word = phase.load(ordering: .sequentiallyConsistent)
        while Self.phase(word) == Phase.armed.rawValue {
            let (exchanged, seen) = phase.compareExchange(
                expected: word, desired: Self.word(word, .fired), ordering: .sequentiallyConsistent)
            if exchanged { return word }
            word = seen
        }
        return nil
    }

    /// Calls back after a claim of the phase word `claimed`. A continuous scope cancelled since,
    /// or a `LockedScope` run since, does not start its callback.
    func runCallback(_ claimed: UInt32) {
        if continuous && !isArmed { return }
        if !continuous && !closesWhenFired && phase.load(ordering: .acquiring) >> 8 != claimed >> 8 { return }
        let callback = withCallback { $0 }
        callback?.call()
        if closesWhenFired && !continuous { close(from: .fired) }
    }

    /// Runs the callbacks of the scopes claimed on this thread since `start` (each retained),
    /// outside every object lock. A callback may write again, which appends above.
    @inline(__always)
    static func runPending(_ thread: UnsafeMutablePointer<locked_tracking_thread>, from start: Int) {
        var i = start
        while i < thread.pointee.pendingCount {
            let claim = thread.pointee.pending[i]
            let core = Unmanaged<_ScopeCore>.fromOpaque(claim.core.unsafelyUnwrapped)
            core._withUnsafeGuaranteedRef { $0.runCallback(claim.phase) }
            core.release()
            i += 1
        }
        thread.pointee.pendingCount = start
    }

    // MARK: Ending

    /// Cancels the scope. Returns whether it was armed (a call back was still to come); once it
    /// returned `true`, no callback starts.
    ///
    /// On the thread running the scope (inside its own run, or inside a run nested in it), the
    /// scope is closed at once (no write claims it) and its run's end keeps nothing of what it
    /// read (`closeCancelledRun`). A run that is not armed while it runs (nested in another, or a
    /// one-shot scope's) counts as armed: its end would have armed it.
    @discardableResult
    func cancel() -> Bool {
        var word = phase.load(ordering: .acquiring)
        while true {
            let current = Self.phase(word)
            if current == Phase.closed.rawValue { return false }
            // A fired `withTracking` scope is closed by the writer that runs its callback.
            if current == Phase.fired.rawValue && closesWhenFired { return false }
            let (exchanged, seen) = phase.compareExchange(
                expected: word, desired: Self.word(word, .closed), ordering: .acquiringAndReleasing)
            if exchanged {
                let runningHere = runs(within: locked_tracking_state().unsafelyUnwrapped.pointee.run)
                if runningHere {
                    cancelledInRun = true
                    // The run's end then takes its slow path (`end(_:)`).
                    reshaped = true
                } else {
                    dropAll()
                    Self.releaseDeferredIfNoRun()
                }
                return current == Phase.armed.rawValue || runningHere && current == Phase.idle.rawValue
            }
            word = seen
        }
    }

    /// A fired `withTracking` scope's close, by the thread that ran its callback: drops its lists,
    /// unless the thread that tracked it is still ending its run (a write on another thread fired
    /// it meanwhile), which then drops them itself (`handOverLists()`).
    private func close(from phase: Phase) {
        let word = self.phase.load(ordering: .relaxed)
        if Self.phase(word) == phase.rawValue,
            self.phase.compareExchange(
                expected: word, desired: Self.word(word, .closed), ordering: .acquiringAndReleasing
            ).exchanged
        {
            // Release: nothing; acquire: the tracking thread's last writes to the lists.
            let (leftToTracker, _) = listsOwner.compareExchange(
                expected: ListsOwner.tracker.rawValue, desired: ListsOwner.closedMeanwhile.rawValue,
                ordering: .acquiringAndReleasing)
            if leftToTracker { return }
            dropAll()
            Self.releaseDeferredIfNoRun()
        }
    }

    /// The end of `track`: the scope's lists are no longer its tracking thread's. Drops them if a
    /// writer closed the scope meanwhile (`close(from:)`).
    func handOverLists() {
        // Release: this thread's writes to the lists, for the writer that closes the scope later.
        let (handedOver, _) = listsOwner.compareExchange(
            expected: ListsOwner.tracker.rawValue, desired: ListsOwner.whoeverCloses.rawValue,
            ordering: .acquiringAndReleasing)
        if handedOver { return }
        dropAll()
        Self.releaseDeferredIfNoRun()
    }

    /// The end of a run whose scope was cancelled on its own thread during the run: nothing it
    /// read is kept. Its entries, its last run's dependencies and a displaced one are let go of
    /// (slots removed, objects released once the thread's outermost scope has ended), and its
    /// callback dropped.
    @inline(never)
    private func closeCancelledRun() {
        cancelledInRun = false
        // An entry holds its own retain, or one it took over (with the slot) from a dependency
        // whose object is now nil.
        for i in 0..<nextCount { drop(next[i]) }
        nextCount = 0
        if displacing {
            // The new dependency took the displaced one's place in the list; both hold a retain.
            drop(displaced)
            displaced = _Dependency.hole
            displacing = false
        }
        reshaped = false
        dropAll()
    }

    /// Drops every slot and the callback, and lets go of every object (`releaseLater`). Called
    /// once, by whoever closed the scope (or by the end of a run cancelled inside it).
    private func dropAll() {
        // The caller holds the scope (its handle, or a writer's claim), so the slots' releases
        // below never free it here.
        for i in 0..<depCount {
            guard let raw = deps[i].object else { continue }
            let object = Unmanaged<LockedObject>.fromOpaque(raw)
            let slot = deps[i].slot
            if slot >= 0 {
                let core = object._withUnsafeGuaranteedRef { o in o._withObservers { $0.remove(at: slot) } }
                Unmanaged<_ScopeCore>.fromOpaque(core).release()
            }
            deps.rests[i].object = nil
            deps.heads[i].key = 0
            Self.releaseLater(raw)
        }
        depCount = 0
        holes = 0
        watchedBits = 0
        withCallback { $0 = nil }
    }
}

extension LockedObject {
    /// Narrows `dependency`'s slot to its `mask` (fewer properties), under the lock.
    final func _narrow(_ dependency: inout _Dependency) {
        let slot = Int(dependency.slot)
        let mask = dependency.mask
        _withObservers { slots in slots.base.unsafelyUnwrapped[slot].mask = mask }
        dependency.installedMask = mask
    }

    /// Installs or updates `dependency`'s slot for `core`, publishes its mask bits, and re-checks
    /// the version, all under the lock. Returns whether the object changed since the dependency
    /// was read (other than by the body's own writes).
    final func _install(_ dependency: inout _Dependency, for core: _ScopeCore) -> Bool {
        let mask = dependency.mask
        return _withObservers { slots in
            if dependency.slot < 0 {
                dependency.slot = slots.insert(
                    core: Unmanaged.passRetained(core).toOpaque(), mask: mask, word: dependency.word)
            } else if dependency.installedMask != mask {
                slots.base.unsafelyUnwrapped[Int(dependency.slot)].mask = mask
            }
            dependency.installedMask = mask
            // seq_cst: the installer's half of the Dekker pair (see `_version`): the mask published
            // (or seen published), then the version loaded. Bits are never cleared.
            if _observed.load(ordering: .sequentiallyConsistent) & mask != mask {
                _observed.bitwiseOr(mask, ordering: .sequentiallyConsistent)
            }
            let current = _version.load(ordering: .sequentiallyConsistent)
            let expected = dependency.version &+ UInt64(dependency.ownWrites) &* VersionWord.begunUnit
            if current != expected { return true }
            // A write in flight at the read, and still in flight: its end tells this scope.
            if VersionWord.inFlight(current) != 0 {
                slots.markStraddling(dependency.slot)
                core.uncheckedArming = true
            }
            return false
        }
    }
}
