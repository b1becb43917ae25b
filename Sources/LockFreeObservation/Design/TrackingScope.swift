import CTrackingSupport
import Synchronization

/// A handle on a one-shot or continuous observation: cancel it, or ask whether it is still armed.
///
/// Returned by ``withCancellableTracking(_:onChange:)``, ``withTracking(_:notifying:)`` and
/// ``observeChanges(_:onChange:)``. Two words, no allocation; copies are equal and name the same
/// observation. A token outlives its observation safely: once the observation has fired or been
/// cancelled, its record moves to a new generation, and the token matches nothing any more.
/// Dropping a token does not cancel the observation.
///
/// Thread safety: `Sendable`. Any thread may ask or cancel, at any time, inside a callback too.
public struct TrackingToken: Sendable, Hashable {
    @usableFromInline let record: UInt32
    @usableFromInline let generation: UInt32

    /// A token that names no observation: never armed, and ``cancel()`` returns `false`.
    ///
    /// What an observation that read no tracked property returns; also a placeholder for a token
    /// to come.
    public static let inert = TrackingToken(record: 0, generation: 0)

    @usableFromInline init(record: UInt32, generation: UInt32) {
        self.record = record
        self.generation = generation
    }

    /// Whether the observation is still armed: it has neither fired (one-shot) nor been cancelled.
    ///
    /// One atomic load. While other threads write what the observation watches, the answer may be
    /// out of date by the time it is used; ``cancel()``'s result is exact.
    public var isArmed: Bool {
        guard record != 0 else { return false }
        let state = ScopeState(raw: ScopeTable.record(record).pointee.state.load(ordering: .acquiring))
        return state.isArmed && state.generation == generation
    }

    /// Cancels the observation.
    ///
    /// - Returns: `true` if this call cancelled it: no callback of it starts after this returns
    ///   (one already started finishes). `false` if it had already been told of a change (one-shot:
    ///   its callback may be running, or, claimed by a write whose callbacks this thread is still
    ///   running, about to run) or been cancelled.
    ///
    /// Lock-free and O(1): one compare-and-swap, retried while writers change the observation's
    /// state. The observer slots it leaves in objects are reused later by installs and writes. The
    /// callback is released once no callback of the observation is running.
    ///
    /// A continuous observation's callback has started once its writer, just before calling it,
    /// has found the observation armed: a cancel made between that check and the call returns
    /// `true`, and that call still happens (at most one per writing thread).
    @discardableResult
    public func cancel() -> Bool {
        guard record != 0 else { return false }
        let state = ScopeState(raw: ScopeTable.record(record).pointee.state.load(ordering: .relaxed))
        return ScopeTable.close(record, from: state) { $0.isArmed && $0.generation == generation }
    }
}

/// The tracking scope machinery: begin, end, install, callbacks.
@usableFromInline
enum TrackingScope {
    @usableFromInline
    enum Callback {
        case closure(@Sendable () -> Void)
        case observer(any ChangeObserver)
    }

    /// Runs `apply` in a new scope on this thread, then installs `callback` on every property read.
    ///
    /// An outermost one-shot scope installs each object's slots at its first read instead
    /// (`openAtRead`): it then holds no reference to what it reads, so threads tracking the same
    /// objects do not write their reference counts.
    @inlinable
    static func track<T>(
        _ apply: () throws -> T, continuous: Bool, callback: Callback
    ) rethrows -> (T, TrackingToken) {
        let thread = registrarThread()
        let atRead = !continuous && thread.pointee.depth == 0
        if atRead { openAtRead(thread) }
        let savedStart = thread.pointee.scopeStart
        let start = thread.pointee.count
        thread.pointee.scopeStart = start
        thread.pointee.depth &+= 1
        // Inside a reusable scope's run, its cursor does not apply to this scope's reads: it moves to
        // the run's sentinel, so the getters' inline keep needs no depth check
        // (`TrackedObject._keepReadInline`). (`_countOwnWrite` may then count writes in dependencies
        // the run has not reached: harmless, a dependency's count is read only with a write word
        // the run loaded, and loading one resets it.)
        // (In a scope nested in it already, the count is 0 and the cursor is there.)
        let savedCursor = thread.pointee.run.cursor
        let savedDependencyCount = thread.pointee.run.dependencyCount
        if savedDependencyCount != 0 {
            thread.pointee.run.cursor = UnsafeMutableRawPointer(
                DependencyHead.at(thread.pointee.run.dependencies, savedDependencyCount))
            thread.pointee.run.dependencyCount = 0
        }
        let result: T
        do {
            result = try apply()
        } catch {
            thread.pointee.run.cursor = savedCursor
            thread.pointee.run.dependencyCount = savedDependencyCount
            if atRead { abandonAtRead(thread) }
            end(thread, savedStart: savedStart)
            throw error
        }
        thread.pointee.run.cursor = savedCursor
        thread.pointee.run.dependencyCount = savedDependencyCount
        let (token, changed) =
            atRead
            ? closeAtRead(thread, from: start, callback: callback)
            : install(thread, from: start, continuous: continuous, callback: callback)
        end(thread, savedStart: savedStart)
        // A change that raced the body is told once the scope has ended: the callback runs in the
        // enclosing scope, as one run by a write there would.
        if changed { fireNow(token.record, generation: token.generation) }
        return (result, token)
    }

    /// Leaves the scope. Nested scopes' reads stay in the buffer for the enclosing scope, as
    /// Observation merges them; the outermost scope releases every object and empties the buffer.
    ///
    /// Each entry is taken off the buffer before its object is released: a release may run a
    /// `deinit` that mutates, tracks, or ends a scope of its own on this thread, and such a nested
    /// outermost `end` then releases the entries still left (each exactly once) instead of
    /// releasing them all again.
    ///
    /// The objects the registrar let go of meanwhile (`releaseLater`) are released there too, so
    /// that every deinit the registrar causes runs outside every scope of its thread.
    ///
    /// Inlined: a scope that leaves nothing to release (nested, or a run that read what the last
    /// one read) costs two stores.
    @usableFromInline @inline(__always)
    static func end(_ thread: UnsafeMutablePointer<tracking_thread>, savedStart: Int) {
        thread.pointee.depth &-= 1
        thread.pointee.scopeStart = savedStart
        _checkInvariants(of: thread)
        guard thread.pointee.depth == 0 && thread.pointee.count | thread.pointee.releasedCount > 0 else { return }
        releaseEntries(thread)
    }

    /// The outermost scope's end: releases every entry left in the buffer, then every object let
    /// go of while scopes were open (`releaseLater`). Each is taken off its list before it is
    /// released: its deinit may track, write, run or cancel scopes, and end an outermost scope of
    /// its own, which releases what is left (each exactly once).
    @usableFromInline @inline(never)
    static func releaseEntries(_ thread: UnsafeMutablePointer<tracking_thread>) {
        while thread.pointee.count > 0 || thread.pointee.releasedCount > 0 {
            if thread.pointee.count > 0 {
                let last = thread.pointee.count - 1
                let entry = thread.pointee.entries![last]
                thread.pointee.count = last
                _schedulePoint()
                // A reusable scope may have taken the entry's retain over (`ReusableScope.reconcile`);
                // an entry installed at its read holds none (`installAtRead`).
                if entry.dependency != ReusableScope.retainTakenOver && entry.word & TRACKING_WORD_INSTALLED == 0 {
                    Unmanaged<RegistrarObject>.fromOpaque(entry.object!).release()
                }
            } else {
                let last = thread.pointee.releasedCount - 1
                let object = thread.pointee.released[last]
                thread.pointee.releasedCount = last
                _schedulePoint()
                Unmanaged<RegistrarObject>.fromOpaque(object!).release()
            }
        }
    }

    /// Lets go of one retain of `object` once no scope is open on this thread: at the end of the
    /// thread's outermost scope, or now when none is open. A reusable scope's reconciliation and a
    /// cancellation let go of their objects this way: a deinit then never runs while the
    /// registrar is between two states of a scope, nor while a run is the running scope (its
    /// writes would be taken for the body's own).
    static func releaseLater(_ object: UnsafeMutableRawPointer, _ thread: UnsafeMutablePointer<tracking_thread>) {
        if thread.pointee.releasedCount == thread.pointee.releasedCapacity { tracking_grow_released(thread) }
        thread.pointee.released[thread.pointee.releasedCount] = object
        thread.pointee.releasedCount &+= 1
    }

    /// Traps if this thread's buffer breaks an invariant: `0 <= scopeStart <= count <= capacity`,
    /// depth not negative, no scope open with an empty range above its start. Debug builds only.
    @inline(__always)
    static func _checkInvariants(of thread: UnsafeMutablePointer<tracking_thread>) {
        #if DEBUG
            let state = thread.pointee
            precondition(
                0 <= state.scopeStart && state.scopeStart <= state.count && state.count <= state.capacity,
                "tracking buffer: start \(state.scopeStart), count \(state.count), capacity \(state.capacity)")
            precondition(state.depth >= 0, "tracking buffer: depth \(state.depth)")
            precondition(
                state.depth > 0 || state.scopeStart == 0, "tracking buffer: no scope open but start \(state.scopeStart)"
            )
        #endif
    }

    /// Installs the scope's entries from `start` under a new record: returns its token, and whether
    /// a write raced a read (the caller tells the scope once it has ended).
    @usableFromInline
    static func install(
        _ thread: UnsafeMutablePointer<tracking_thread>, from start: Int, continuous: Bool, callback: Callback
    ) -> (TrackingToken, changed: Bool) {
        _checkInvariants(of: thread)
        let end = thread.pointee.count
        guard start < end else { return (.inert, false) }
        let table = ScopeTable.shared
        let (index, free) = table.acquire()
        let record = ScopeTable.record(index)
        record.setCallback(callback)
        record.pointee.kind.store((continuous ? ScopeKind.continuous : .oneShot).rawValue, ordering: .relaxed)
        let generation = free.generation
        var slots: UInt64 = 0
        for i in start..<end { slots += UInt64(slotCount(thread.pointee.entries[i])) }
        record.pointee.watchedSlots.store(WatchedSlots(generation: generation, count: slots).raw, ordering: .relaxed)
        let armed = free.armed
        armed._checkInvariants(continuous: continuous)
        // Release: publishes the payload to whichever thread claims the record from a slot.
        record.pointee.state.store(armed.raw, ordering: .releasing)

        var changed = false
        let entries = thread.pointee.entries!
        for i in start..<end {
            let entry = entries[i]
            Unmanaged<RegistrarObject>.fromOpaque(entry.object)._withUnsafeGuaranteedRef { object in
                if installSlots(of: entry, in: object, record: index, generation: generation).changed { changed = true }
            }
        }
        return (TrackingToken(record: index, generation: generation), changed)
    }

    /// Installs `entry`'s slots in `object` for the record's incarnation `generation`, and re-checks
    /// the write word: returns how many slots it wrote, and whether a write may have raced the
    /// read (`entry.version` the word loaded before it). After the body (`install`), or at the read
    /// itself (`installAtRead`). `entry.word` without `TRACKING_WORD_INSTALLED`.
    /// Also returns the slot of the properties below 15 (`SlotContent`'s mask form), if it wrote one.
    @inline(__always)
    static func installSlots(
        of entry: tracking_entry, in object: RegistrarObject, record index: UInt32, generation: UInt32
    ) -> (slots: Int, changed: Bool, masked: UnsafeMutablePointer<Atomic<UInt64>>?) {
        let installed = object._installObservers(
            of: entry, record: index, generation: generation, version: entry.version, ownWrites: entry.ownWrites,
            straddling: WriteWord.inFlight(entry.version) != 0)
        let masked = entry.word == 0 && entry.mask & lowMask != 0 ? installed.first : nil
        return (installed.slots, installed.changed, masked)
    }

    /// The properties that share one slot (`SlotContent`'s mask form), as bits of word 0.
    static var lowMask: UInt64 { 1 << UInt64(SlotContent.maskedProperties) - 1 }

    /// The slots `install` writes for `entry`: one for its properties below 15 (the mask form), one
    /// per other property. The one place that decides, for installing and for counting.
    @inline(__always)
    static func forEachSlot(
        of entry: tracking_entry, record: UInt32, generation: UInt32, straddling: Bool = false,
        _ body: (SlotContent) -> Void
    ) {
        var bits = entry.mask
        if entry.word == 0 && bits & lowMask != 0 {
            body(SlotContent(record: record, generation: generation, mask: bits & lowMask, straddling: straddling))
            bits &= ~lowMask
        }
        while bits != 0 {
            let bit = bits.trailingZeroBitCount
            bits &= bits &- 1
            body(
                SlotContent(
                    record: record, generation: generation, property: Int(entry.word) << 6 | bit,
                    straddling: straddling))
        }
    }

    /// How many slots `install` writes for `entry`.
    static func slotCount(_ entry: tracking_entry) -> Int {
        var count = 0
        forEachSlot(of: entry, record: 0, generation: 0) { _ in count += 1 }
        return count
    }

    /// What a write does with a slot of its object that watches the property it writes (each
    /// registrar's scan: `TrackedObject._scanChain`, `LockedSlots.claim`). Passes the callback it
    /// claimed, if any, to `claimed` (a `Claim`, to run once the scan is over), and returns what the
    /// slot should hold from now on: 0 (its scope no longer holds it: fired, cancelled, recycled), its settled
    /// content (a continuous scope just told of a write it straddled needs no second notice at its
    /// end; a reusable scope's slot keeps its straddling state until its next run decides), or nil
    /// (as it is).
    ///
    /// Only an armed scope, or a one-shot body reading and not yet marked (it is marked changed
    /// instead: `claimCallback`), takes notice; the scope this thread runs is not told of its own
    /// writes. That write may outlive the run (`willMutate` in it, `didMutate` after): the scope's
    /// next run then looks for writes in flight (`DependencyStore.uncheckedArming`).
    @inline(__always)
    static func notice(
        _ content: SlotContent, by thread: UnsafeMutablePointer<tracking_thread>, _ claimed: (UInt32) -> Void
    ) -> UInt64? {
        let record = ScopeTable.record(content.record)
        // seq_cst: a reusable scope arms its record (seq_cst) before its reads load the write word
        // (seq_cst): the Dekker pair of `ReusableScope.run`.
        var state = ScopeState(raw: record.pointee.state.load(ordering: .sequentiallyConsistent))
        guard content.isHeld(in: state) else { return 0 }
        guard state.takesNotice, record.pointee.runner.load(ordering: .relaxed) != UInt(bitPattern: thread) else {
            if state.takesNotice { passedByOwnWrite(content.record) }
            return nil
        }
        if claimCallback(record, &state, markingReading: true) { claimed(Claim(record: content.record, state).raw) }
        if !content.isHeld(in: state) { return 0 }
        return content.isStraddling && state.isArmed ? content.settled.raw : nil
    }

    /// A write of the thread that runs the scope `record` passed it by (`notice`): the write may
    /// outlive the run, so the scope's next run looks for writes in flight. Out of line, so that
    /// it adds nothing to a scan's loop.
    @inline(never)
    static func passedByOwnWrite(_ record: UInt32) {
        ScopeTable.store(record).pointee.uncheckedArming = true
    }

    /// Runs the callback of a scope that saw a change while it was being installed.
    @usableFromInline
    static func fireNow(_ index: UInt32, generation: UInt32) {
        let record = ScopeTable.record(index)
        var state = ScopeState(raw: record.pointee.state.load(ordering: .acquiring))
        guard state.generation == generation else { return }
        if claimCallback(record, &state) { runCallback(of: Claim(record: index, state)) }
    }

    /// Takes one in-flight reference to run the record's callback, for the incarnation `state`
    /// was read from: closes a one-shot scope (strict: exactly one winner), ends a reusable scope's
    /// run (exactly one winner per run), or adds a run to a continuous one. `state` is updated.
    ///
    /// `markingReading`, for a writer: a one-shot body still reading (`takeRecord`) is marked
    /// changed instead, and its end reports the write (`false` is returned).
    @inline(__always)
    static func claimCallback(
        _ record: UnsafeMutablePointer<ScopeRecord>, _ state: inout ScopeState, markingReading: Bool = false
    ) -> Bool {
        let generation = state.generation
        let kind = ScopeKind(rawValue: record.pointee.kind.load(ordering: .relaxed)).unsafelyUnwrapped
        while state.generation == generation {
            let desired: ScopeState
            if state.isArmed {
                desired = state.claimed(kind)
            } else if markingReading && state.phase == .reading {
                desired = state.withPhase(.readingChanged)
            } else {
                return false
            }
            // Acquire: the winner reads the payload written before the arming release store.
            // (Acquire-release for a mark: the body's end reads it.)
            let (exchanged, current) = record.pointee.state.compareExchange(
                expected: state.raw, desired: desired.raw, ordering: .acquiringAndReleasing)
            if exchanged {
                state = desired
                guard desired.isReading == false else { return false }
                desired._checkInvariants(continuous: kind == .oneShot ? false : nil)
                return true
            }
            state = ScopeState(raw: current)
        }
        return false
    }

    /// A slot of a dying object held `content`: if that scope is still armed, it holds one slot
    /// fewer, and is cancelled when it holds none.
    static func objectWentAway(_ content: SlotContent) {
        let record = ScopeTable.record(content.record)
        let state = ScopeState(raw: record.pointee.state.load(ordering: .acquiring))
        guard content.isLive(in: state) else { return }
        _schedulePoint()
        var watched = WatchedSlots(raw: record.pointee.watchedSlots.load(ordering: .acquiring))
        while watched.generation == state.generation && watched.count > 0 {
            let (exchanged, current) = record.pointee.watchedSlots.compareExchange(
                expected: watched.raw, desired: watched.lessOne.raw, ordering: .acquiringAndReleasing)
            if exchanged {
                if watched.lessOne.count == 0 {
                    TrackingToken(record: content.record, generation: state.generation).cancel()
                }
                return
            }
            watched = WatchedSlots(raw: current)
        }
    }

    /// Runs the callback of a record on which the caller holds one in-flight reference, then drops
    /// it, recycling the record if it was the last one of a closed scope.
    ///
    /// A one-shot claim closed the scope itself, so its callback always runs. A continuous claim
    /// left it armed: if it has been cancelled since (by an earlier callback of the same scan, or by
    /// another thread), its callback does not start. The acquire load is the start's linearisation
    /// point: a `cancel()` that returned `true` before it is seen here. A reusable claim ended the
    /// scope's run: its callback does not start if another run has begun since (`ScopeState`).
    static func runCallback(of claim: Claim) {
        let index = claim.record
        let record = ScopeTable.record(index)
        _schedulePoint()
        let kind = record.pointee.kind.load(ordering: .relaxed)
        let starts =
            kind == ScopeKind.reusable.rawValue
            ? claim.isOfTheRun(in: ScopeState(raw: record.pointee.state.load(ordering: .acquiring)))
            : kind != ScopeKind.continuous.rawValue
                || ScopeState(raw: record.pointee.state.load(ordering: .acquiring)).isArmed
        if !starts {
            // Dropped: no callback.
        } else {
            record.pointee.callBack()
        }
        // Acquire-release: the recycler must see every callback's reads of the payload done.
        // Wrapping: one `lock xadd` (the checked `subtract` is a compare-and-swap loop with an
        // overflow test); the caller holds the reference it drops, so the count stays >= 0.
        let after = ScopeState(
            raw: record.pointee.state.wrappingSubtract(ScopeState.oneInFlight, ordering: .acquiringAndReleasing)
                .newValue)
        after._checkInvariants()
        if after.isDone { ScopeTable.shared.recycle(index, from: after) }
    }
}
