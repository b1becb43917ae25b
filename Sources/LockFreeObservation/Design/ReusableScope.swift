import CTrackingSupport
import Synchronization

/// What a run's reads counted (`tracking_run.bitsRead`, `reshaped`, `skipCount`).
struct RunReads {
    /// Distinct properties read of kept dependencies: one for each kept (the cursor's count, less
    /// the skips), and `tracking_run.bitsRead` more.
    var bits: Int
    /// Whether a kept dependency was read outside its installed properties or during a write.
    var reshaped: Bool
    /// Dependencies the cursor skipped.
    var skips: Int

    /// Added to `tracking_run.bitsRead` when a new read takes the place of the run's last
    /// dependency (`TrackedObject._displaceLastDependency`): so large that `readAsBefore` fails,
    /// which sends the run to `ReusableScope.reconcileDisplacing` with no test of its own.
    static let displacement = 1 << 40
}

/// A tracking scope that runs again and again, as a view re-evaluates its body, and keeps its
/// dependencies between runs.
///
/// ```swift
/// let scope = ReusableScope(notifying: rowView)   // once, when the view is mounted
/// let output = scope.run { render(book) }         // at every evaluation
/// scope.cancel()                                   // when the view goes away
/// ```
///
/// After each ``run(_:)``, the callback is told once, before the store, of the first change of
/// any property that run read; then nothing more until the next run. Reads are matched in order
/// with the previous run's dependencies: a dependency read again costs a compare and a load, and
/// touches neither the object's observer slots nor its reference count. Only new, dropped or
/// changed dependencies touch the objects they concern.
///
/// The same promises as ``withTracking(_:onChange:)``: no change is lost (the scope is armed as a
/// run begins, so a write made while it reads either is seen by the read or tells the scope, on
/// the writer's thread; one that races the install of a new dependency is told before `run`
/// returns), and the body's own writes do not tell its own scope. A write by another thread during
/// a run may tell the scope while it runs, as a write during `withTracking`'s `apply` makes its
/// install report a change.
///
/// The scope retains the objects its last run read, and holds its callback, until it is
/// cancelled: cancel every scope you create.
///
/// ## Thread safety
///
/// `Sendable`, and a handle like ``TrackingToken``: two words; copies name the same scope. One
/// thread at a time runs or cancels a given scope, not necessarily the same one each time; its
/// callback is called on whichever thread writes. Creating a scope allocates nothing once the
/// pool of scope records has warmed up; a run allocates only when its dependencies outgrow the two
/// its record keeps inline, or the buffer an earlier scope of the record left.
public struct ReusableScope: Sendable, Hashable {
    @usableFromInline let record: UInt32
    @usableFromInline let generation: UInt32

    /// Creates a scope that calls `observer.observedValueWillChange()`.
    ///
    /// The scope watches nothing until its first ``run(_:)``.
    ///
    /// - Parameter observer: Told at most once per run, on the writing thread. The scope holds it
    ///   until it is cancelled.
    public init(notifying observer: some ChangeObserver) {
        self.init(.observer(observer))
    }

    /// Creates a scope that calls `onChange`.
    ///
    /// The scope watches nothing until its first ``run(_:)``.
    ///
    /// - Parameter onChange: Called at most once per run, on the writing thread, before the store.
    ///   The scope holds it until it is cancelled.
    public init(onChange: @escaping @Sendable () -> Void) {
        self.init(.closure(onChange))
    }

    init(_ callback: TrackingScope.Callback) {
        let table = ScopeTable.shared
        let (index, free) = table.acquire()
        let scope = ScopeTable.record(index)
        scope.setCallback(callback)
        scope.pointee.kind.store(ScopeKind.reusable.rawValue, ordering: .relaxed)
        // A reusable scope retains its objects, so none of them can go away under it.
        scope.pointee.watchedSlots.store(WatchedSlots(generation: free.generation, count: 0).raw, ordering: .relaxed)
        ScopeTable.store(index).pointee.empty()
        let idle = free.idle
        idle._checkInvariants()
        // Release: publishes the payload to a thread that claims the record from a slot.
        scope.pointee.state.store(idle.raw, ordering: .releasing)
        record = index
        generation = free.generation
    }

    private var scope: UnsafeMutablePointer<ScopeRecord> { ScopeTable.record(record) }

    /// `tracking_entry.dependency` of an entry whose retain the scope took over: the outermost
    /// scope's end does not release it.
    static let retainTakenOver: Int32 = -2

    /// The cursor of no run (`tracking_run`): the sentinel, nothing to keep.
    private static var noRun: tracking_run {
        tracking_run(
            dependencies: tracking_no_dependencies_address(), cursor: tracking_no_dependencies_address(),
            dependencyCount: 0,
            cursorDepth: 0, bitsRead: 0,
            reshaped: 0, skipCount: 0, restOffset: 0)
    }

    /// What a run nested in `enclosing` shows the getters: the enclosing run's dependencies, with
    /// the cursor at their sentinel and none to keep.
    private static func nested(in enclosing: tracking_run) -> tracking_run {
        var run = enclosing
        // (In a scope nested in it already, the count is 0 and the cursor is there.)
        if enclosing.dependencyCount != 0 {
            run.cursor = UnsafeMutableRawPointer(DependencyHead.at(enclosing.dependencies, enclosing.dependencyCount))
            run.dependencyCount = 0
        }
        return run
    }

    /// Whether the last run's dependencies are watched: the scope has run, has not been told of a
    /// change since, and has not been cancelled.
    ///
    /// One atomic load; another thread's write may make the answer out of date by the time it is
    /// used.
    public var isArmed: Bool {
        let state = ScopeState(raw: scope.pointee.state.load(ordering: .acquiring))
        return state.isArmed && state.generation == generation
    }

    /// Whether the calling thread's running reusable scope holds its cursor away from the getters
    /// (`tracking_thread.heldCursor`; diagnostics and tests).
    static var holdsItsCursor: Bool { registrarThread().pointee.heldCursor != nil }

    /// How many object words the last run read (the owner's view; for tests).
    package var dependencyCount: Int { ScopeTable.store(record).pointee.count - ScopeTable.store(record).pointee.holes }

    /// Holes left among the dependencies (`DependencyStore.holes`; diagnostics and tests).
    var holeCount: Int { ScopeTable.store(record).pointee.holes }

    /// Runs `body`, tracking what it reads, and watches that until the first change.
    ///
    /// When the run ends, the scope watches exactly what this run read: dependencies the run no
    /// longer read are dropped, new ones installed. A run nested in another scope (another run, a
    /// tracked closure) counts its reads for the enclosing scopes too.
    ///
    /// - Parameter body: The computation to track, run synchronously on the calling thread. It may
    ///   read, write, track, run other reusable scopes (nested in this run), cancel any scope (this
    ///   one too: the run's end then keeps nothing), and drop objects.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; the scope then watches what `body` read before it threw.
    ///
    /// Cost: a run that reads what the last one read, in the same order, takes a compare and two
    /// stores per read, inlined into the getters, and no atomic operation on the objects. The
    /// reconciliation of a run that read otherwise costs in proportion to the dependencies that
    /// changed and the distance the others move, not the whole list.
    ///
    /// Running the scope inside its own run, or after ``cancel()``, is a precondition failure.
    public func run<T>(_ body: () throws -> T) rethrows -> T {
        let scope = self.scope
        let thread = registrarThread()
        let wasArmed = arm(scope)
        let savedStart = thread.pointee.scopeStart
        let start = thread.pointee.count
        thread.pointee.scopeStart = start
        thread.pointee.depth &+= 1
        // Inside another scope every read goes to the buffer, retained, for the enclosing scope too.
        let outermost = thread.pointee.depth == 1
        let store = ScopeTable.store(record)
        // Outside every scope the cursor is that of no run: an outermost run restores it as a
        // constant, and only a nested one keeps the enclosing cursor (in its own store, so that a
        // view's run copies nothing onto its stack).
        if outermost {
            store.pointee.dependencies.endWithSentinel(at: store.pointee.count)
        } else {
            // Only a nested run can be inside its own: the scope's runner is then this thread.
            precondition(
                scope.pointee.runner.load(ordering: .relaxed) != UInt(bitPattern: thread),
                "ReusableScope.run called inside its own run")
            store.pointee.enclosingRun = thread.pointee.run
        }
        scope.pointee.runner.store(UInt(bitPattern: thread), ordering: .relaxed)
        // A nested run keeps nothing: its reads all go to the buffer. It shows the enclosing run's
        // cursor at that run's sentinel, as a one-shot scope nested in a run does
        // (`TrackingScope.track`): no read keeps an enclosing dependency, and a write counts
        // itself in those the enclosing run has read (`TrackedObject._countOwnWrite`).
        thread.pointee.run =
            outermost
            ? tracking_run(
                dependencies: store.pointee.dependencies.base,
                cursor: UnsafeMutableRawPointer(store.pointee.dependencies.base),
                dependencyCount: store.pointee.count,
                cursorDepth: 1, bitsRead: 0, reshaped: 0, skipCount: 0,
                restOffset: store.pointee.dependencies.restOffset)
            : Self.nested(in: thread.pointee.run)
        let holds = outermost && Self.looksForWritesInFlight(store, wasArmed: wasArmed)
        // Held: the cursor is kept away from the getters, and every read takes the
        // checked path (`_trackingRecordAccess`).
        if _slowPath(holds) {
            thread.pointee.heldCursor = thread.pointee.run.cursor
            thread.pointee.run.cursor = UnsafeMutableRawPointer(mutating: tracking_no_dependencies_address())
        }

        func finish() {
            guard outermost else {
                finishNested(thread, from: start, savedStart: savedStart)
                return
            }
            let shown = thread.pointee.run
            thread.pointee.run = Self.noRun
            // (A run whose new read took the last dependency's place fails this: see
            // `RunReads.displacement`. So does a run whose cursor was held: it is at the sentinel;
            // and a run whose scope was cancelled in it: `DependencyStore.cancelledInRun`.)
            if Self.readAsBefore(shown, newEntries: thread.pointee.count &- start, store) {
                // Nothing moves (the commonest run of a view): `reconcile`'s frame is not paid.
                assert(thread.pointee.heldCursor == nil, "a held cursor is at the sentinel, never at the end")
                scope.pointee.runner.store(0, ordering: .relaxed)
                TrackingScope.end(thread, savedStart: savedStart)
            } else {
                finishOutermost(shown, thread, from: start, savedStart: savedStart)
            }
        }
        do {
            let value = try body()
            finish()
            return value
        } catch {
            finish()
            throw error
        }
    }

    // The end of a run that did not read what the last one read. Everything that can run user
    // code comes after the thread's state is the enclosing scope's again and the scope is no
    // longer the running one: the objects the run let go of are released at the end of the
    // thread's outermost scope (`TrackingScope.releaseLater`), and a change an install found is
    // told last.

    /// The end of an outermost run that `readAsBefore` did not settle.
    @inline(never)
    private func finishOutermost(
        _ shown: tracking_run, _ thread: UnsafeMutablePointer<tracking_thread>, from start: Int, savedStart: Int
    ) {
        let scope = self.scope
        let store = ScopeTable.store(record)
        var changed = false
        // The dependency a new read displaced (`settleDisplacement`), released once the run has
        // ended: an outermost run's end is the thread's outermost.
        var displaced: UnsafeMutableRawPointer? = nil
        if _slowPath(store.pointee.cancelledInRun) {
            closeCancelledRun(shown, thread, outermost: true)
        } else {
            let held = Self.withHeldCursor(shown, thread, outermost: true)
            let run = held ?? shown
            if held != nil && Self.readAsBefore(run, newEntries: thread.pointee.count &- start, store) {
                scope.pointee.runner.store(0, ordering: .relaxed)
            } else {
                changed = reconcileRun(run, thread, from: start, outermost: true)
                if run.bitsRead >= RunReads.displacement {
                    displaced = withUnsafeBytes(of: thread.pointee.displaced) { $0.load(as: Dependency.self) }.object
                }
            }
        }
        TrackingScope.end(thread, savedStart: savedStart)
        if let displaced { Unmanaged<RegistrarObject>.fromOpaque(displaced).release() }
        if changed { TrackingScope.fireNow(record, generation: generation) }
    }

    /// The end of a run nested in another scope: it kept nothing (its cursor was the enclosing
    /// run's sentinel), so every read is an entry; the enclosing run's state comes back.
    @inline(never)
    private func finishNested(_ thread: UnsafeMutablePointer<tracking_thread>, from start: Int, savedStart: Int) {
        let scope = self.scope
        let store = ScopeTable.store(record)
        thread.pointee.run = store.pointee.enclosingRun
        var changed = false
        if store.pointee.cancelledInRun {
            closeCancelledRun(Self.noRun, thread, outermost: false)
        } else if Self.readAsBefore(Self.noRun, newEntries: thread.pointee.count &- start, store) {
            scope.pointee.runner.store(0, ordering: .relaxed)
        } else {
            changed = reconcileRun(Self.noRun, thread, from: start, outermost: false)
            Self.forgetTakeovers(thread, from: start)
        }
        TrackingScope.end(thread, savedStart: savedStart)
        if changed { TrackingScope.fireNow(record, generation: generation) }
    }

    /// Reconciles the scope with what `run` read. Returns whether an install saw a change.
    private func reconcileRun(
        _ run: tracking_run, _ thread: UnsafeMutablePointer<tracking_thread>, from start: Int, outermost: Bool
    ) -> Bool {
        let kept = DependencyHead.index(run.cursor, in: run.dependencies)
        let displacing = run.bitsRead >= RunReads.displacement
        let bitsRead = displacing ? run.bitsRead - RunReads.displacement : run.bitsRead
        let reads = RunReads(bits: kept - run.skipCount + bitsRead, reshaped: run.reshaped != 0, skips: run.skipCount)
        if displacing {
            return reconcileDisplacing(
                thread, at: run.dependencyCount - 1, from: start, kept: kept, reads: reads, outermost: outermost)
        }
        return reconcile(thread, from: start, kept: kept, reads: reads, outermost: outermost)
    }

    /// Ends the scope: it stops watching, and lets go of its callback and of the objects it retains.
    ///
    /// - Returns: `true` if the scope was armed: its callback then never starts after this returns.
    ///   `false` if it had been told of a change since its last run (its callback may still be
    ///   running on another thread; it finishes), or was cancelled already.
    ///
    /// May be called inside the scope's own run, or inside a run nested in it, on the thread
    /// running it: the scope stops watching at once, and its run's end keeps nothing of what the
    /// run read. The scope cannot run again.
    ///
    /// Cost: linear in the scope's dependencies (their observer slots emptied). Their objects are
    /// released when the thread's outermost scope ends, or before this returns when no scope is
    /// open, so their deinits run outside every scope; the callback is released once no callback
    /// of the scope is running.
    @discardableResult
    public func cancel() -> Bool {
        let scope = self.scope
        let state = ScopeState(raw: scope.pointee.state.load(ordering: .acquiring))
        guard state.generation == generation && (state.isArmed || state.isIdle) else { return false }
        let thread = registrarThread()
        let store = ScopeTable.store(record)
        if scope.pointee.runner.load(ordering: .relaxed) == UInt(bitPattern: thread) {
            // Running on this thread: its run's end closes it (`closeCancelledRun`); until then
            // it is idle, and no write claims it.
            guard !store.pointee.cancelledInRun else { return false }
            store.pointee.cancelledInRun = true
            // No straddling count is negative: the run's end fails `readAsBefore`, and looks.
            store.pointee.straddling = -1
            return disarm(scope)
        }
        let wasArmed = disarm(scope)
        letGo(store, thread)
        close(scope, from: ScopeState(raw: scope.pointee.state.load(ordering: .relaxed)))
        if thread.pointee.depth == 0 { TrackingScope.releaseEntries(thread) }
        return wasArmed
    }

    /// The end of a run whose scope was cancelled on its own thread during the run: nothing it
    /// read is kept (the entries stay in the buffer for the enclosing scopes, or are released at
    /// the outermost end), its dependencies and a displaced one are let go of, and the scope
    /// closes.
    @inline(never)
    private func closeCancelledRun(
        _ run: tracking_run, _ thread: UnsafeMutablePointer<tracking_thread>, outermost: Bool
    ) {
        let scope = self.scope
        let store = ScopeTable.store(record)
        _ = Self.withHeldCursor(run, thread, outermost: outermost)
        if run.bitsRead >= RunReads.displacement {
            // The new dependency took the displaced one's place in the list; both hold a retain.
            let displaced = withUnsafeBytes(of: thread.pointee.displaced) { $0.load(as: Dependency.self) }
            TrackingScope.releaseLater(displaced.object, thread)
        }
        scope.pointee.runner.store(0, ordering: .relaxed)
        letGo(store, thread)
        close(scope, from: ScopeState(raw: scope.pointee.state.load(ordering: .relaxed)))
    }

    /// Takes the `dependency` marks of a nested run's reconciliation off its entries, which stay
    /// in the buffer for the enclosing scopes: the enclosing run's reconciliation must find only
    /// its own (a mark is an index into this scope's list).
    private static func forgetTakeovers(_ thread: UnsafeMutablePointer<tracking_thread>, from start: Int) {
        let entries = thread.pointee.entries
        for e in start..<thread.pointee.count { entries.unsafelyUnwrapped[e].dependency = -1 }
    }

    /// Lets go of the scope's dependencies (`TrackingScope.releaseLater`) and empties its store.
    private func letGo(_ store: UnsafeMutablePointer<DependencyStore>, _ thread: UnsafeMutablePointer<tracking_thread>)
    {
        let base = store.pointee.dependencies.base
        for i in 0..<store.pointee.count where !base[i].isHole {
            TrackingScope.releaseLater(base[i].object, thread)
        }
        store.pointee.cancelledInRun = false
        store.pointee.empty()
        store.pointee.dependencies.shrink(above: 256)
        store.pointee.spare.shrink(above: 256)
    }

    /// idle -> closing, recycled when no callback is in flight. Its slots stay in the objects
    /// until an install or a scan reuses them: once the record moves to its next generation,
    /// nothing reads them as this scope's.
    private func close(_ scope: UnsafeMutablePointer<ScopeRecord>, from state: ScopeState) {
        _ = ScopeTable.close(record, from: state) { _ in true }
    }

    /// armed -> idle, for the owner: the scope ends. Returns whether it was armed.
    @discardableResult
    private func disarm(_ scope: UnsafeMutablePointer<ScopeRecord>) -> Bool {
        var state = ScopeState(raw: scope.pointee.state.load(ordering: .relaxed))
        while true {
            precondition(
                state.generation == generation && (state.isArmed || state.isIdle), "ReusableScope used after cancel()")
            if state.isIdle { return false }
            // Relaxed: the owner publishes nothing here; a writer that still sees `armed` notifies
            // the scope, which is what it would have done a moment earlier.
            let (exchanged, seen) = scope.pointee.state.compareExchange(
                expected: state.raw, desired: state.disarmed.raw, ordering: .relaxed)
            if exchanged { return true }
            state = ScopeState(raw: seen)
        }
    }

    /// After a run: brings the slots in line with what the run read, and reports a change that
    /// raced a read (see `TrackedObject._writes`).
    ///
    /// - Kept dependencies (matched by the cursor) keep their slots, unless the properties read or
    ///   the straddling state changed. Nothing else is done for them: the scope was armed before
    ///   the run read them (`arm`), so a write either notified it or was seen by the read.
    /// - A previous dependency the run read out of order is taken over by the run's entry for it
    ///   (found through `seen`): its slots are kept, and the entry's retain is the buffer's.
    /// - Other previous dependencies are dropped: their slots emptied, their objects released.
    /// - The run's other entries are new: retained, installed and re-checked like `withTracking`'s
    ///   (slots, mask, then the write word), as is any dependency whose slots were rewritten.
    ///
    /// `reads`: what the reads counted. Called only when the run did not read what the last one
    /// read, in the same order (`readAsBefore`: then nothing moves, and `run` does not call it).
    /// Returns whether an install's re-check saw a change the run may have missed: `run` tells
    /// the scope once the run has ended. The dropped objects are let go of
    /// (`TrackingScope.releaseLater`), never released here.
    private func reconcile(
        _ thread: UnsafeMutablePointer<tracking_thread>, from start: Int, kept cursor: Int, reads: RunReads,
        outermost: Bool
    ) -> Bool {
        let scope = self.scope
        let store = ScopeTable.store(record)
        defer { scope.pointee.runner.store(0, ordering: .relaxed) }
        let end = thread.pointee.count
        let previousCount = store.pointee.count
        var changed = false
        if reconcileInPlace(
            thread, store, from: start, kept: cursor, reads: reads, outermost: outermost, changed: &changed)
        {
            return changed
        }
        let entries = thread.pointee.entries
        let previous = store.pointee.dependencies
        var unchanged = end == start && cursor == previousCount
        for j in 0..<previousCount {
            let (head, rest) = (previous.base + j, previous.rests + j)
            if j < cursor && head.pointee.read != 0 {
                rest.pointee.fate = .kept
                if head.pointee.read != head.pointee.mask || rest.pointee.straddling
                    || WriteWord.inFlight(rest.pointee.version) != 0
                {
                    unchanged = false
                }
                continue
            }
            unchanged = false
            if head.pointee.isHole {
                rest.pointee.fate = .dropped
                continue
            }
            if let entry = entryOf(head.pointee.object, word: head.pointee.word, thread, from: start, to: end),
                entries.unsafelyUnwrapped[entry].dependency < 0
            {
                entries.unsafelyUnwrapped[entry].dependency = Int32(truncatingIfNeeded: j)
                rest.pointee.fate = .takenOver
                continue
            }
            rest.pointee.fate = .dropped
            clearSlots(of: previous[j])
        }
        if unchanged { return false }

        store.pointee.spare.reserve(cursor + (end - start) + 1)
        let next = store.pointee.spare
        var count = 0
        var e = start
        /// Rewrites `dependency`'s slots for what this run read, and re-checks its write word: against
        /// the run's version, or, when the slots covered every read, one loaded now, before they
        /// are emptied (until then, a write notified the scope).
        func reinstall(_ dependency: inout Dependency, mask: UInt64) {
            if !dependency.versionIsThisRuns {
                dependency.version = Unmanaged<RegistrarObject>.fromOpaque(dependency.object)._withUnsafeGuaranteedRef {
                    // seq_cst: before the slots are emptied, the reader's half of the Dekker pair.
                    $0._writes.load(ordering: .sequentiallyConsistent)
                }
                dependency.ownWrites = 0
                _schedulePoint()
            }
            clearSlots(of: dependency)
            if install(&dependency, mask: mask, straddling: WriteWord.inFlight(dependency.version) != 0) {
                changed = true
            }
        }
        func takeEntry(_ e: Int) {
            let entry = entries.unsafelyUnwrapped[e]
            let dependency = dependencyOf(
                entry, e, entries.unsafelyUnwrapped, takingOver: previous, outermost: outermost, changed: &changed)
            next[count] = dependency
            count += 1
        }
        for j in 0..<min(cursor, previousCount) {
            while e < end && Int(entries.unsafelyUnwrapped[e].position) <= j {
                takeEntry(e)
                e += 1
            }
            guard previous.rests[j].fate == .kept else { continue }
            var dependency = previous[j]
            if dependency.read != dependency.mask || dependency.straddling
                || WriteWord.inFlight(dependency.version) != 0
            {
                reinstall(&dependency, mask: dependency.read)
            }
            next[count] = dependency
            count += 1
        }
        while e < end {
            takeEntry(e)
            e += 1
        }

        swap(&store.pointee.dependencies, &store.pointee.spare)
        store.pointee.count = count
        var watchedBits = 0
        var straddling = 0
        for i in 0..<count {
            watchedBits += next.base[i].mask.nonzeroBitCount
            if next.rests[i].straddling { straddling += 1 }
        }
        store.pointee.watchedBits = watchedBits
        store.pointee.straddling = straddling
        store.pointee.holes = 0
        store.pointee.runsWithHoles = 0
        for j in 0..<previousCount where previous.rests[j].fate == .dropped && !previous.base[j].isHole {
            TrackingScope.releaseLater(previous.base[j].object, thread)
        }
        // The next rebuild builds into the buffer just left (`previous`, read above: not before),
        // as large now, so that a run which rebuilds (a list reordered) allocates nothing after
        // the first.
        store.pointee.spare.reserve(store.pointee.dependencies.capacity, exactly: true)
        return changed
    }

    /// `reconcile`, after a run in which a new object took the place of the last dependency at
    /// `index` (`settleDisplacement`); when that was the run's only change (`kairo-unstable`'s
    /// run), nothing else moves. Returns whether the new dependency's install, or the
    /// reconciliation, saw a change (`run` tells the scope once the run has ended).
    @inline(never)
    private func reconcileDisplacing(
        _ thread: UnsafeMutablePointer<tracking_thread>, at index: Int, from start: Int, kept cursor: Int,
        reads: RunReads,
        outermost: Bool
    ) -> Bool {
        let store = ScopeTable.store(record)
        var changed = settleDisplacement(thread, at: index, store, outermost: outermost)
        // `readAsBefore`, with the new dependency kept and its properties counted.
        if !reads.reshaped && reads.skips == 0 && thread.pointee.count == start && cursor == store.pointee.count
            && reads.bits == store.pointee.watchedBits && store.pointee.straddling == 0
        {
            scope.pointee.runner.store(0, ordering: .relaxed)
        } else if reconcile(thread, from: start, kept: cursor, reads: reads, outermost: outermost) {
            changed = true
        }
        return changed
    }

    /// After a run in which a new object took the place of the last dependency
    /// (`TrackedObject._displaceLastDependency`): the new dependency is installed where it stands
    /// (slots, mask, then its write word re-checked against the version its first read loaded, as
    /// a new entry's in `dependencyOf`), and the displaced one dropped (its slots emptied, its
    /// object released once the run has ended; a later read of it in the run made an entry,
    /// installed afresh). Then the run is judged as any other (`readAsBefore`, `reconcile`): the new dependency a kept one,
    /// read with exactly its properties. Returns whether the re-check saw a change the run may have
    /// missed (the caller tells the scope once the run is reconciled).
    @inline(__always)
    private func settleDisplacement(
        _ thread: UnsafeMutablePointer<tracking_thread>, at index: Int, _ store: UnsafeMutablePointer<DependencyStore>,
        outermost: Bool
    ) -> Bool {
        let displaced = withUnsafeBytes(of: thread.pointee.displaced) { $0.load(as: Dependency.self) }
        clearSlots(of: displaced)
        var dependency = store.pointee.dependencies[index]
        // Never straddling: no write was in flight at its first read (`_displaceLastDependency`).
        let changed = install(&dependency, mask: dependency.mask, straddling: false)
        store.pointee.dependencies[index] = dependency
        store.pointee.watchedBits += dependency.mask.nonzeroBitCount - displaced.mask.nonzeroBitCount
        store.pointee.straddling -= displaced.straddling ? 1 : 0
        // An outermost run releases it at its end (`finishOutermost`).
        if !outermost { TrackingScope.releaseLater(displaced.object, thread) }
        return changed
    }

    /// `run` with its cursor put back, at the end of an outermost run whose cursor was held away
    /// from the getters (`tracking_thread.heldCursor`, then cleared); `nil` for any other run.
    private static func withHeldCursor(
        _ run: tracking_run, _ thread: UnsafeMutablePointer<tracking_thread>, outermost: Bool
    ) -> tracking_run? {
        guard outermost, let held = thread.pointee.heldCursor else { return nil }
        thread.pointee.heldCursor = nil
        var run = run
        run.cursor = held
        return run
    }

    /// Whether a run read exactly what the last one did, in the same order: every kept dependency
    /// read with exactly its installed properties (as many as watched, none outside them), no
    /// write in flight, none skipped, none left unread, no new entry, and no straddling slot.
    @inline(__always)
    private static func readAsBefore(
        _ run: tracking_run, newEntries: Int, _ store: UnsafeMutablePointer<DependencyStore>
    ) -> Bool {
        // The cursor at the end of the list: every dependency kept (compared as addresses, with no
        // division by the stride), each for one property, and `bitsRead` more.
        let end = UnsafeMutableRawPointer(DependencyHead.at(run.dependencies, store.pointee.count))
        return run.reshaped == 0 && run.skipCount == 0 && newEntries == 0 && run.cursor == end
            && store.pointee.count &+ run.bitsRead == store.pointee.watchedBits && store.pointee.straddling == 0
    }

    /// A run with few changes to a long list (a book moved, removed or added): the kept
    /// dependencies stay where they are or move in runs (`memmove`), new entries are written in
    /// the gaps, and only the few dependencies that changed are looked at, so the cost follows
    /// the changes and the distance moved, not the list. Taken when every kept dependency was read with its
    /// installed properties and no write in flight (nothing to rewrite), at most
    /// `TRACKING_SKIPS_KEPT` dependencies were skipped and the changes are few; and when the new
    /// list can be written over the old front to back or back to front (no entry lands on a kept
    /// dependency not yet moved). Returns `false`, having changed nothing, otherwise.
    private func reconcileInPlace(
        _ thread: UnsafeMutablePointer<tracking_thread>, _ store: UnsafeMutablePointer<DependencyStore>,
        from start: Int, kept cursor: Int, reads: RunReads, outermost: Bool, changed found: inout Bool
    ) -> Bool {
        let previousCount = store.pointee.count
        let skipCount = reads.skips
        let tail = previousCount - cursor
        guard !reads.reshaped, store.pointee.straddling == 0, skipCount <= Int(TRACKING_SKIPS_KEPT),
            thread.pointee.count - start <= 64, tail <= 64
        else { return false }
        let end = thread.pointee.count
        let deps = store.pointee.dependencies
        let entries = thread.pointee.entries
        let skipAt = { (i: Int) -> Int in
            withUnsafeBytes(of: thread.pointee.skips) { $0.load(fromByteOffset: i * 8, as: Int.self) }
        }
        // The dependencies not kept: the skipped ones (in order), then those after the cursor.
        let notKept = skipCount + tail
        let notKeptAt = { (i: Int) -> Int in i < skipCount ? skipAt(i) : cursor + (i - skipCount) }
        var notKeptBits = 0
        for i in 0..<notKept { notKeptBits += deps.base[notKeptAt(i)].mask.nonzeroBitCount }
        // Each kept dependency read a subset of its properties (nothing outside them): the totals
        // are equal only if every one read all of them.
        guard reads.bits == store.pointee.watchedBits - notKeptBits else { return false }
        let keptCount = cursor - skipCount
        let finalCount = keptCount + (end - start)
        // Room for the sentinel after them (`DependencyBuffer.endWithSentinel`).
        guard finalCount < store.pointee.dependencies.capacity else { return false }
        // A long run of kept dependencies after one dropped stays where it is, behind a hole, once
        // every entry is placed; unless holes have been left run after run.
        let holesAllowed = store.pointee.runsWithHoles < Int32(DependencyHoles.runLimit)

        // A dry run of the moves: an entry is written at `written`, which must not hold a kept
        // dependency still to be moved (`written < consumed`, or nothing left to move). Returns
        // how many dependencies the list holds after, holes included, or `nil`.
        func walk(
            _ move: (_ from: Int, _ to: Int, _ count: Int) -> Void, _ place: (_ entry: Int, _ at: Int) -> Void,
            _ leaveHoles: (_ at: Int, _ count: Int) -> Void
        ) -> Int? {
            var consumed = 0
            var written = 0
            var skip = 0
            var e = start
            while true {
                let nextSkip = skip < skipCount ? skipAt(skip) : cursor
                let nextEntry = e < end ? Int(entries.unsafelyUnwrapped[e].position) : Int.max
                let boundary = min(nextSkip, nextEntry, cursor)
                if boundary > consumed {
                    if holesAllowed && written < consumed && e == end && boundary - consumed > DependencyHoles.moveLimit
                    {
                        leaveHoles(written, consumed - written)
                        written = consumed
                    }
                    move(consumed, written, boundary - consumed)
                    written += boundary - consumed
                    consumed = boundary
                }
                // A skipped dependency is consumed before an entry at its index: it was copied
                // aside, so the entry may take its slot.
                if skip < skipCount && nextSkip <= nextEntry {
                    consumed = nextSkip + 1
                    skip += 1
                } else if e < end {
                    if written >= consumed && consumed < cursor { return nil }
                    place(e, written)
                    written += 1
                    e += 1
                } else {
                    return written
                }
            }
        }
        // The same from the back, for a list that grows before its end (an insertion): kept
        // dependencies move towards the end, entries fill the gaps behind them.
        func walkBackward(
            _ move: (_ from: Int, _ to: Int, _ count: Int) -> Void, _ place: (_ entry: Int, _ at: Int) -> Void
        ) -> Bool {
            var consumed = cursor
            var written = finalCount
            var skip = skipCount - 1
            var e = end - 1
            while true {
                let previousSkip = skip >= 0 ? skipAt(skip) : -1
                let previousEntry = e >= start ? Int(entries.unsafelyUnwrapped[e].position) : -1
                let boundary = max(previousSkip + 1, previousEntry, 0)
                if boundary < consumed {
                    if written - (consumed - boundary) < boundary { return false }
                    move(boundary, written - (consumed - boundary), consumed - boundary)
                    written -= consumed - boundary
                    consumed = boundary
                }
                // An entry at a skipped dependency's index goes before it: the skip is consumed first.
                if skip >= 0 && previousSkip >= previousEntry {
                    consumed = previousSkip
                    skip -= 1
                } else if e >= start {
                    if written - 1 < consumed { return false }
                    place(e, written - 1)
                    written -= 1
                    e -= 1
                } else {
                    return true
                }
            }
        }
        // (The forward walk's count, holes included, is checked against the room for the sentinel.)
        let forwardCount = walk({ _, _, _ in }, { _, _ in }, { _, _ in })
        let forward = forwardCount.map { $0 < store.pointee.dependencies.capacity } ?? false
        guard forward || walkBackward({ _, _, _ in }, { _, _ in }) else { return false }

        // Commit. First the dependencies not kept, copied aside (the moves may write over them):
        // taken over by this run's entry for them, or dropped.
        store.pointee.spare.reserve(notKept)
        let aside = store.pointee.spare
        var holes = store.pointee.holes
        for i in 0..<notKept {
            let j = notKeptAt(i)
            aside[i] = deps[j]
            if deps.base[j].isHole {
                aside.rests[i].fate = .dropped
                holes -= 1
            } else if let entry = entryOf(deps.base[j].object, word: deps.base[j].word, thread, from: start, to: end),
                entries.unsafelyUnwrapped[entry].dependency < 0
            {
                entries.unsafelyUnwrapped[entry].dependency = Int32(truncatingIfNeeded: i)
                aside.rests[i].fate = .takenOver
            } else {
                aside.rests[i].fate = .dropped
                clearSlots(of: aside[i])
            }
        }
        var changed = false
        var watchedBits = store.pointee.watchedBits - notKeptBits
        var straddling = 0
        let move = { (from: Int, to: Int, count: Int) in deps.move(from: from, to: to, count: count) }
        let place = { (e: Int, at: Int) in
            let entry = entries.unsafelyUnwrapped[e]
            let dependency = dependencyOf(
                entry, e, entries.unsafelyUnwrapped, takingOver: aside, outermost: outermost, changed: &changed)
            watchedBits += dependency.mask.nonzeroBitCount
            if dependency.straddling { straddling += 1 }
            deps[at] = dependency
        }
        let leaveHoles = { (at: Int, count: Int) in
            deps.leaveHoles(at: at, count: count)
            holes += count
        }
        if forward {
            store.pointee.count = walk(move, place, leaveHoles).unsafelyUnwrapped
        } else {
            _ = walkBackward(move, place)
            store.pointee.count = finalCount
        }
        store.pointee.watchedBits = watchedBits
        store.pointee.straddling = straddling
        store.pointee.holes = holes
        store.pointee.runsWithHoles = holes == 0 ? 0 : store.pointee.runsWithHoles + 1
        for i in 0..<notKept where aside.rests[i].fate == .dropped && !aside.base[i].isHole {
            TrackingScope.releaseLater(aside.base[i].object, thread)
        }
        found = changed
        return true
    }

    /// idle -> armed, as a run begins (a scope still armed stays so), counting the run: a callback
    /// claimed before it no longer starts (`ScopeState`). seq_cst: before every load of
    /// a write word by the run's reads and installs: the arming thread's half of the Dekker pair
    /// against a writer's count then state load. A write whose count comes first is seen by the
    /// read that loads the count after it (release, acquire: its store too); one whose count comes
    /// later finds the scope armed and notifies it, unless it is the run's own. Returns whether the
    /// scope was armed already (no write has notified it since a run armed it).
    @inline(__always)
    private func arm(_ scope: UnsafeMutablePointer<ScopeRecord>) -> Bool {
        var state = ScopeState(raw: scope.pointee.state.load(ordering: .relaxed))
        var wasArmed = false
        while true {
            precondition(
                state.generation == generation && (state.isArmed || state.isIdle), "ReusableScope used after cancel()")
            if state.isArmed {
                wasArmed = true
                break
            }
            let armed = state.rearmed
            let (exchanged, seen) = scope.pointee.state.compareExchange(
                expected: state.raw, desired: armed.raw, ordering: .sequentiallyConsistent)
            if exchanged {
                armed._checkInvariants()
                break
            }
            state = ScopeState(raw: seen)
        }
        // seq_cst fence, armed or not: a getter's inline keep loads nothing of the object but the
        // value (`TrackedObject._keepReadInline`). The run then loads the count of observed writes
        // in flight (seq_cst, `looksForWritesInFlight`): a write counted after that load scans
        // after the arming, and its state load sees the scope armed.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        _schedulePoint()
        return wasArmed
    }

    /// Whether an outermost run, its scope armed (`arm`), must hold its cursor away from the
    /// getters: an observed write in flight now may have scanned the slots before the scope was
    /// armed, and store after a kept read, and the getters look at no write word
    /// (`TrackedObject._keepReadInline`). With none in flight, a write that begins later counts
    /// itself (seq_cst) after this load, so its scan comes after the arming and finds the scope
    /// armed: it notifies it (see `TrackedObject._writes`).
    ///
    /// A scope still armed since a run that found none in flight needs no look
    /// (`DependencyStore.uncheckedArming`): every write in flight then has ended since, and every
    /// write begun after found the scope armed in its slots (those it had, or those a later run
    /// installed, whose re-check saw any write still in flight: they straddle, and the next run
    /// looks). So a view that re-renders untold beside another thread's writes does not load the
    /// count's line that those writes keep taking away (`primitives/retrack-beside-writes`).
    @inline(__always)
    private static func looksForWritesInFlight(_ store: UnsafeMutablePointer<DependencyStore>, wasArmed: Bool) -> Bool {
        if wasArmed && !store.pointee.uncheckedArming && store.pointee.straddling == 0 { return false }
        if _slowPath(Registrar.observedWritesAreInFlight) {
            store.pointee.uncheckedArming = true
            return true
        }
        // Checked now, armed since: as a run that armed it and found none. A run that arms the
        // scope leaves the mark as it is (a later run looks once more, at worst): the commonest
        // run stores nothing.
        if wasArmed { store.pointee.uncheckedArming = false }
        return false
    }

    /// The dependency for a run's entry: the previous one it takes over (`takingOver`, indexed by
    /// `entry.dependency`), rewritten if the run read other properties or a write was in flight,
    /// or a new one, installed. `changed` is set when the install's re-check saw a write.
    private func dependencyOf(
        _ entry: tracking_entry, _ e: Int, _ entries: UnsafeMutablePointer<tracking_entry>,
        takingOver: DependencyBuffer, outermost: Bool, changed: inout Bool
    ) -> Dependency {
        let inFlight = WriteWord.inFlight(entry.version) != 0
        var dependency: Dependency
        if entry.dependency >= 0 {
            dependency = takingOver[Int(entry.dependency)]
            dependency.version = entry.version
            dependency.ownWrites = entry.ownWrites
            if entry.mask != dependency.mask || dependency.straddling || inFlight {
                clearSlots(of: dependency)
                if install(&dependency, mask: entry.mask, straddling: inFlight) { changed = true }
            }
        } else {
            // The scope takes the buffer's retain over when no enclosing scope needs the entry
            // after this run; otherwise it takes one of its own.
            if outermost {
                entries[e].dependency = Self.retainTakenOver
            } else {
                _ = Unmanaged<RegistrarObject>.fromOpaque(entry.object).retain()
            }
            dependency = Dependency(
                object: entry.object, mask: 0, read: 0, version: entry.version, word: entry.word,
                ownWrites: entry.ownWrites, slot: nil, straddling: false)
            if install(&dependency, mask: entry.mask, straddling: inFlight) { changed = true }
        }
        dependency.read = entry.mask
        return dependency
    }

    /// This run's entry for `object` and `word`, if `seen` still knows it.
    private func entryOf(
        _ object: UnsafeMutableRawPointer, word: UInt32, _ thread: UnsafeMutablePointer<tracking_thread>,
        from start: Int, to end: Int
    ) -> Int? {
        let seen = tracking_seen_slot(thread, object).unsafelyUnwrapped.pointee
        guard seen.object == UInt(bitPattern: object), seen.index >= start, seen.index < end else { return nil }
        let entries = thread.pointee.entries.unsafelyUnwrapped
        var i = seen.index
        while i >= start {
            if entries[i].object != object { return nil }
            if entries[i].word == word { return i }
            i = Int(entries[i].previous)
        }
        return nil
    }

    /// Installs `dependency`'s slots for `mask` (`TrackingScope.forEachSlot`), publishes the mask
    /// bits, then loads the write word (or, straddling, sets `straddled`): `withTracking`'s install,
    /// with the scope armed since the run began. Returns whether a write other than the body's own
    /// began or ended since the run first read the object: a change the run may have missed.
    @inline(__always)
    private func install(_ dependency: inout Dependency, mask: UInt64, straddling: Bool) -> Bool {
        let entry = tracking_entry(
            object: dependency.object, mask: mask, version: 0, word: dependency.word, ownWrites: 0, previous: -1,
            position: 0, dependency: -1)
        let (version, ownWrites) = (dependency.version, dependency.ownWrites)
        let installed = Unmanaged<RegistrarObject>.fromOpaque(dependency.object)._withUnsafeGuaranteedRef {
            $0._installObservers(
                of: entry, record: record, generation: generation, version: version, ownWrites: ownWrites,
                straddling: straddling)
        }
        let changed = installed.changed
        // Compared: later runs find it settled (no write in flight), not theirs.
        dependency.version &= ~WriteWord.inFlightMask
        dependency.slot = installed.slots == 1 ? installed.first : nil
        dependency.mask = mask
        dependency.straddling = straddling
        return changed
    }

    /// Empties `dependency`'s slots. The scope is idle and holds them, so no other thread claims,
    /// empties or rewrites them meanwhile. Two dependencies of this scope on the same object and
    /// word (a read made before the cursor reached that object's dependency, or one `seen` lost
    /// track of) install slots of the same content, and emptying one by content may take the
    /// other's: so a dependency with one slot empties it only if it still holds its content
    /// (compare-and-swap), and otherwise empties another slot of that content, the one the other
    /// dependency left. Each content keeps as many slots as dependencies installed it, and no
    /// other scope's slot is ever emptied.
    private func clearSlots(of dependency: Dependency) {
        let entry = tracking_entry(
            object: dependency.object, mask: dependency.mask, version: 0, word: dependency.word, ownWrites: 0,
            previous: -1, position: 0, dependency: -1)
        Unmanaged<RegistrarObject>.fromOpaque(dependency.object)._withUnsafeGuaranteedRef {
            $0._uninstallObservers(
                of: entry, record: record, generation: generation, straddling: dependency.straddling,
                slot: dependency.slot)
        }
    }
}
