@preconcurrency import CLockedTracking
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

/// One dependency of a scope: the properties of one 64-property word of one object that a run read.
struct _Dependency {
    /// The object, retained by the scope from the run that first read it until a run no longer
    /// reads it (or the scope ends); nil in the previous run's list once the current run took it over.
    var object: UnsafeMutableRawPointer?
    var mask: UInt64
    /// The mask of the installed slot (0: none yet).
    var installedMask: UInt64
    /// The object's version loaded at this run's first read of it.
    var version: UInt64
    var word: UInt32
    /// Writes of the object made by the body on this thread since `version` was loaded.
    var ownWrites: UInt32
    /// The scope's slot in the object, or -1.
    var slot: Int32
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
    enum Phase: UInt8 { case idle = 0, armed, fired, closed }
    let phase = Atomic<UInt8>(Phase.idle.rawValue)
    let continuous: Bool
    /// A `withTracking` scope: nobody re-runs it, so it closes (drops its slots and objects) once
    /// its callback has run.
    let closesWhenFired: Bool
    let callback: Mutex<_Callback?>

    // The dependency lists are touched by one thread at a time, the one running or closing the
    // scope, never by two overlapping accesses: `@exclusivity(unchecked)` spares every tracked read
    // the dynamic exclusivity checks a class's stored properties otherwise pay (the lock-free
    // registrar keeps the same state in a C thread-local struct, which has none).

    /// The last run's dependencies, in read order.
    @exclusivity(unchecked) var deps: UnsafeMutablePointer<_Dependency>
    @exclusivity(unchecked) var depCount = 0
    @exclusivity(unchecked) var depCapacity: Int
    /// The running run's dependencies.
    @exclusivity(unchecked) var next: UnsafeMutablePointer<_Dependency>
    @exclusivity(unchecked) var nextCount = 0
    @exclusivity(unchecked) var nextCapacity: Int
    /// Where the running run expects its next new object in `deps`.
    @exclusivity(unchecked) var cursor = 0
    /// Slots the last run added, removed or changed (each took an object's lock for that).
    @exclusivity(unchecked) var lastRunSlotUpdates = 0

    init(_ callback: _Callback, continuous: Bool, closesWhenFired: Bool) {
        self.callback = Mutex(callback)
        self.continuous = continuous
        self.closesWhenFired = closesWhenFired
        depCapacity = 4
        nextCapacity = 4
        deps = .allocate(capacity: depCapacity)
        next = .allocate(capacity: nextCapacity)
    }

    deinit {
        // Only reached when no slot holds the scope; objects still listed (a scope that never
        // installed, e.g. one whose body trapped) are released.
        for i in 0..<depCount { if let object = deps[i].object { Unmanaged<LockedObject>.fromOpaque(object).release() } }
        deps.deallocate()
        next.deallocate()
    }

    var isArmed: Bool { phase.load(ordering: .acquiring) == Phase.armed.rawValue }

    // MARK: Runs

    /// Starts a run on this thread: disarms the scope (a write in the body, or by another thread
    /// during it, notifies nobody; the re-check at the end catches the latter) and makes it the
    /// thread's running scope. Returns the running scope it replaces (nil for none), and whether
    /// the run is tracked (not when the scope is closed: its body then runs as it would untracked).
    @usableFromInline
    func begin() -> (saved: UnsafeMutableRawPointer?, tracking: Bool) {
        let thread = locked_tracking_state().unsafelyUnwrapped
        let saved = thread.pointee.run
        // A writer that claimed the previous arming before this exchange still calls back, for a
        // change of the last run's reads. seq_cst, as every phase change the re-check relies on.
        var current = phase.load(ordering: .relaxed)
        while current != Phase.closed.rawValue {
            let (exchanged, seen) = phase.compareExchange(
                expected: current, desired: Phase.idle.rawValue, ordering: .sequentiallyConsistent)
            if exchanged {
                nextCount = 0
                cursor = 0
                thread.pointee.run = Unmanaged.passUnretained(self).toOpaque()
                return (saved, true)
            }
            current = seen
        }
        return (saved, false)
    }

    /// Ends a run begun by `begin()`: installs its dependencies, re-arms, re-checks; an enclosing
    /// scope on this thread also depends on what this run read.
    @usableFromInline
    func end(_ frame: (saved: UnsafeMutableRawPointer?, tracking: Bool)) {
        guard frame.tracking else { return }
        let thread = locked_tracking_state().unsafelyUnwrapped
        thread.pointee.run = frame.saved
        finish()
        if let outer = frame.saved {
            // Nested runs merge into the enclosing one, as Observation's scopes do, with the
            // versions this run recorded (its reads came before the merge).
            let scope = Unmanaged<_ScopeCore>.fromOpaque(outer).takeUnretainedValue()
            for i in 0..<depCount { scope.merge(deps[i]) }
        }
    }

    /// Adds a nested run's dependency to this (running) run.
    private func merge(_ dependency: _Dependency) {
        let raw = dependency.object.unsafelyUnwrapped
        for i in 0..<nextCount where next[i].object == raw && next[i].word == dependency.word {
            // Read here first: the nested run's own writes came after that read.
            next[i].mask |= dependency.mask
            next[i].ownWrites &+= dependency.ownWrites
            return
        }
        let object = Unmanaged<LockedObject>.fromOpaque(raw).takeUnretainedValue()
        append(
            object, raw, word: dependency.word, bit: dependency.mask, property: Int(dependency.word) << 6,
            version: dependency.version &+ UInt64(dependency.ownWrites) &* VersionWord.begunUnit)
    }

    /// Records a read of `property` of `object` in the running run. A repeated read of an object
    /// finds its entry (the last one, or the object's hint); a first read in this run is matched
    /// against the previous run's list at the cursor.
    @inline(__always)
    func record(_ object: LockedObject, _ property: Int) {
        let raw = Unmanaged.passUnretained(object).toOpaque()
        let word = UInt32(truncatingIfNeeded: property >> 6)
        let bit: UInt64 = 1 << UInt64(property & 63)
        if nextCount > 0 {
            let last = next + (nextCount &- 1)
            if last.pointee.object == raw && last.pointee.word == word {
                last.pointee.mask |= bit
                return
            }
        }
        // Relaxed: the hint is only a guess, checked against this run's own list.
        let hint = object._entryHint.load(ordering: .relaxed) &- 1
        if UInt(bitPattern: hint) < UInt(bitPattern: nextCount) {
            let entry = next + hint
            if entry.pointee.object == raw && entry.pointee.word == word {
                entry.pointee.mask |= bit
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
            if next[i].object == raw && next[i].word == word {
                next[i].mask |= bit
                return
            }
            i &-= 1
        }
        if nextCount == nextCapacity { grow(&next, &nextCapacity, nextCount) }
        // Acquire: every write that ended before this load has its store visible to the caller's
        // read, which comes after (see `LockedObject._version`).
        let version = recorded ?? object._version.load(ordering: .acquiring)
        var entry = _Dependency(
            object: raw, mask: bit, installedMask: 0, version: version, word: word, ownWrites: 0, slot: -1)
        if cursor < depCount && deps[cursor].object == raw && deps[cursor].word == word {
            takeOver(cursor, into: &entry)
            cursor &+= 1
        } else if cursor &+ 1 < depCount && deps[cursor &+ 1].object == raw && deps[cursor &+ 1].word == word {
            // One dependency of the last run was not read here: it is dropped at the end.
            takeOver(cursor &+ 1, into: &entry)
            cursor &+= 2
        } else {
            // A new dependency: the scope holds the object until a run no longer reads it.
            _ = Unmanaged.passUnretained(object).retain()
        }
        next[nextCount] = entry
        nextCount &+= 1
        // Written only when it moves: a run whose dependencies stay in place writes nothing shared.
        if object._entryHint.load(ordering: .relaxed) != nextCount {
            object._entryHint.store(nextCount, ordering: .relaxed)
        }
    }

    /// A kept dependency: the new entry takes over the old one's retain and slot (no retain, no
    /// release, no lock).
    @inline(__always)
    private func takeOver(_ index: Int, into entry: inout _Dependency) {
        entry.installedMask = deps[index].installedMask
        entry.slot = deps[index].slot
        deps[index].object = nil
    }

    private func grow(_ list: inout UnsafeMutablePointer<_Dependency>, _ capacity: inout Int, _ count: Int) {
        let grown = UnsafeMutablePointer<_Dependency>.allocate(capacity: capacity * 2)
        grown.moveInitialize(from: list, count: count)
        list.deallocate()
        list = grown
        capacity *= 2
    }

    func countOwnWrite(of object: LockedObject) {
        let raw = Unmanaged.passUnretained(object).toOpaque()
        for i in 0..<nextCount where next[i].object == raw { next[i].ownWrites &+= 1 }
    }

    /// The end of a run: drops the slots of the last run's dependencies this run did not read
    /// (before arming, so that they never notify for this run), arms, then, per object under its
    /// lock, installs or updates the slot and re-checks the version. A change missed by the run
    /// fires the scope now.
    private func finish() {
        var updates = 0
        for i in 0..<depCount {
            guard let raw = deps[i].object else { continue }
            let object = Unmanaged<LockedObject>.fromOpaque(raw)
            let slot = deps[i].slot
            if slot >= 0 {
                let core = object._withUnsafeGuaranteedRef { o in o._observers.withLock { $0.remove(at: slot) } }
                // The slot's retain; the handle still holds the scope.
                Unmanaged<_ScopeCore>.fromOpaque(core).release()
            }
            object.release()
            updates &+= 1
        }
        swap(&deps, &next)
        swap(&depCapacity, &nextCapacity)
        depCount = nextCount
        nextCount = 0
        cursor = 0
        if nextCapacity < depCapacity {
            // The next run reads into the other list: size it now, so that a run reading what the
            // last one read allocates nothing.
            next.deallocate()
            next = .allocate(capacity: depCapacity)
            nextCapacity = depCapacity
        }

        // seq_cst: before the installs' seq_cst accesses (see `LockedObject._version`). A scope
        // cancelled meanwhile (which needs another thread breaking the contract) stays closed.
        _ = phase.compareExchange(
            expected: Phase.idle.rawValue, desired: Phase.armed.rawValue, ordering: .sequentiallyConsistent)
        var changed = false
        for i in 0..<depCount {
            let dependency = deps + i
            if dependency.pointee.slot < 0 || dependency.pointee.installedMask != dependency.pointee.mask { updates &+= 1 }
            let object = Unmanaged<LockedObject>.fromOpaque(dependency.pointee.object.unsafelyUnwrapped)
            if object._withUnsafeGuaranteedRef({ $0._install(dependency, for: self) }) { changed = true }
        }
        lastRunSlotUpdates = updates
        if changed && claim() { runCallback() }
    }

    // MARK: Notification

    /// Takes the right to call back for the current arming: strictly once for a one-shot scope; a
    /// continuous one is called back at every claim while armed.
    @inline(__always)
    func claim() -> Bool {
        if continuous { return phase.load(ordering: .acquiring) == Phase.armed.rawValue }
        // Acquire-release: one winner per arming.
        return phase.compareExchange(
            expected: Phase.armed.rawValue, desired: Phase.fired.rawValue, ordering: .acquiringAndReleasing
        ).exchanged
    }

    /// Calls back after a claim. A continuous scope cancelled since does not start its callback.
    func runCallback() {
        if continuous && !isArmed { return }
        let callback = self.callback.withLock { $0 }
        callback?.call()
        if closesWhenFired && !continuous { close(from: .fired) }
    }

    /// Runs the callbacks of the scopes claimed on this thread since `start` (each retained),
    /// outside every object lock. A callback may write again, which appends above.
    static func runPending(_ thread: UnsafeMutablePointer<locked_tracking_thread>, from start: Int) {
        var i = start
        while i < thread.pointee.pendingCount {
            let core = Unmanaged<_ScopeCore>.fromOpaque(thread.pointee.pending[i].unsafelyUnwrapped)
            core._withUnsafeGuaranteedRef { $0.runCallback() }
            core.release()
            i += 1
        }
        thread.pointee.pendingCount = start
    }

    // MARK: Ending

    /// Cancels the scope. Returns whether it was armed (a call back was still to come).
    @discardableResult
    func cancel() -> Bool {
        var current = phase.load(ordering: .acquiring)
        while true {
            if current == Phase.closed.rawValue { return false }
            // A fired `withTracking` scope is closed by the writer that runs its callback.
            if current == Phase.fired.rawValue && closesWhenFired { return false }
            let (exchanged, seen) = phase.compareExchange(
                expected: current, desired: Phase.closed.rawValue, ordering: .acquiringAndReleasing)
            if exchanged {
                dropAll()
                return current == Phase.armed.rawValue
            }
            current = seen
        }
    }

    private func close(from phase: Phase) {
        if self.phase.compareExchange(
            expected: phase.rawValue, desired: Phase.closed.rawValue, ordering: .acquiringAndReleasing
        ).exchanged {
            dropAll()
        }
    }

    /// Drops every slot and object, and the callback. Called once, by whoever closed the scope.
    private func dropAll() {
        // The caller holds the scope (its handle, or a writer's claim), so the slots' releases
        // below never free it here.
        for i in 0..<depCount {
            guard let raw = deps[i].object else { continue }
            let object = Unmanaged<LockedObject>.fromOpaque(raw)
            let slot = deps[i].slot
            if slot >= 0 {
                let core = object._withUnsafeGuaranteedRef { o in o._observers.withLock { $0.remove(at: slot) } }
                Unmanaged<_ScopeCore>.fromOpaque(core).release()
            }
            deps[i].object = nil
            object.release()
        }
        depCount = 0
        callback.withLock { $0 = nil }
    }
}

extension LockedObject {
    /// Installs or updates `dependency`'s slot for `core`, publishes its mask bits, and re-checks
    /// the version, all under the lock. Returns whether the object changed since the dependency
    /// was read (other than by the body's own writes).
    final func _install(_ dependency: UnsafeMutablePointer<_Dependency>, for core: _ScopeCore) -> Bool {
        let mask = dependency.pointee.mask
        return _observers.withLock { slots in
            if dependency.pointee.slot < 0 {
                dependency.pointee.slot = slots.insert(
                    core: Unmanaged.passRetained(core).toOpaque(), mask: mask, word: dependency.pointee.word)
            } else if dependency.pointee.installedMask != mask {
                slots.base.unsafelyUnwrapped[Int(dependency.pointee.slot)].mask = mask
            }
            dependency.pointee.installedMask = mask
            // seq_cst: the installer's half of the Dekker pair (see `_version`): the mask published
            // (or seen published), then the version loaded. Bits are never cleared.
            if _observed.load(ordering: .sequentiallyConsistent) & mask != mask {
                _observed.bitwiseOr(mask, ordering: .sequentiallyConsistent)
            }
            let current = _version.load(ordering: .sequentiallyConsistent)
            let expected = dependency.pointee.version &+ UInt64(dependency.pointee.ownWrites) &* VersionWord.begunUnit
            if current != expected { return true }
            // A write in flight at the read, and still in flight: its end tells this scope.
            if VersionWord.inFlight(current) != 0 { slots.markStraddling(dependency.pointee.slot) }
            return false
        }
    }
}
