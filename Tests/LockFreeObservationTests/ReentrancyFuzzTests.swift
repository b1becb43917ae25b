import Foundation
import RegistrarTestSupport
import Testing

@testable import LockFreeObservation

/// Randomized programs that re-enter the registrar from every place it runs user code: reusable
/// runs nested up to four deep, one-shot and continuous scopes, cancels, writes from bodies,
/// callbacks and deinits, objects created and dropped at every point. A model of what each scope
/// watches checks every step (`ReentrancyWorld`), and every object's lifetime is checked at each
/// top-level step through a weak reference and a deinit count.
///
/// `swift test` runs a fixed set of programs. `REENTRANCY_FUZZ_SECONDS=n` runs programs from a
/// random first seed for about n seconds (`scripts/test.sh` gives it a minute under each build);
/// `REENTRANCY_FUZZ_SEED=s` runs the one program a failure printed.
extension RegistrarTests {
    @Suite struct ReentrancyFuzzTests {
        @Test func randomProgramsKeepEveryPromise() {
            let environment = ProcessInfo.processInfo.environment
            if let seed = environment["REENTRANCY_FUZZ_SEED"].flatMap(UInt64.init) {
                check(seed: seed)
                return
            }
            guard let seconds = environment["REENTRANCY_FUZZ_SECONDS"].flatMap(Double.init) else {
                for seed in UInt64(1)...400 { if !check(seed: seed) { return } }
                return
            }
            let first = UInt64.random(in: 1...UInt64(UInt32.max))
            print("reentrancy fuzz: seeds from \(first) for \(seconds) s")
            let deadline = Date().addingTimeInterval(seconds)
            var seed = first
            var programs = 0
            while Date() < deadline {
                if !check(seed: seed) { return }
                seed += 1
                programs += 1
            }
            print("reentrancy fuzz: \(programs) programs, no failure")
        }

        /// Program 4600555: a reusable scope whose nested run read an object during a write of
        /// it, run again in another callback of that write without reading it. The write's end
        /// claims the scope for the first run; its callback, still to start when the second run
        /// begins, does not start, and the next write of what the second run read tells it once.
        @Test func aReusableScopeRerunDuringAWriteItStraddledIsToldOnce() {
            let world = ReentrancyWorld(seed: 4_600_555)
            world.runProgram()
            #expect(world.failures.isEmpty, "\(world.failures)")
        }

        /// Runs program `seed`; records its failures, with the seed that reproduces them.
        @discardableResult
        func check(seed: UInt64) -> Bool {
            let world = ReentrancyWorld(seed: seed)
            world.runProgram()
            let failures = world.failures
            #expect(failures.isEmpty, "REENTRANCY_FUZZ_SEED=\(seed): \(failures.prefix(5).joined(separator: "; "))")
            return failures.isEmpty
        }
    }
}

/// A model object with three tracked properties, written through hand-written accessors so that
/// every write stores and notifies (a fresh value each time).
final class FuzzObject: TrackedObject, @unchecked Sendable {
    // `@unchecked Sendable`: the fuzzer is single-threaded.
    var values = [0, 0, 0]
    let id: Int
    unowned let world: ReentrancyWorld
    /// What its deinit does (`ReentrancyWorld.Hook`).
    let hook: ReentrancyWorld.Hook
    var isDying = false

    init(id: Int, world: ReentrancyWorld, hook: ReentrancyWorld.Hook) {
        self.id = id
        self.world = world
        self.hook = hook
        super.init()
    }

    deinit {
        isDying = true
        world.deinitStarts(self)
    }

    func read(_ property: Int) -> Int {
        trackAccess(property)
        return values[property]
    }

    func write(_ property: Int, _ value: Int) {
        let mutation = willMutate(property)
        values[property] = value
        didMutate(mutation)
    }
}

/// The state of one program: the objects, the scopes, and what each scope is known to watch.
final class ReentrancyWorld: @unchecked Sendable {
    // `@unchecked Sendable`: callbacks capture it, and all run on the fuzzer's thread.

    /// What a callback or a deinit does.
    enum Hook: CaseIterable {
        case nothing, read, writeOther, writeSelf, runScope, cancelScope, oneShot, dropObject, createObject
    }

    enum Kind { case reusable, oneShot, continuous }

    /// A scope and what it is known to watch.
    final class Scope: @unchecked Sendable {
        let index: Int
        let kind: Kind
        let hook: Hook
        var reusable: ReusableScope?
        var token: TrackingToken?
        /// The properties (`key`) its last run or body read, and the objects it retains (reusable).
        var watched: Set<Int> = []
        var held: Set<Int> = []
        /// Armed: told of nothing since its last run (a continuous scope stays armed).
        var armed = false
        var cancelled = false
        /// A one-shot or continuous body has returned, and its token is not known yet (the end
        /// runs deinits and callbacks first): a `cancel` meanwhile waits for it (`pendingCancel`).
        var ending = false
        var pendingCancel = false
        /// Callbacks claimed by writes in flight and not yet run: a write claims every scope it
        /// tells (disarming a one-shot or reusable one) before it runs their callbacks, and a
        /// callback that runs meanwhile finds them claimed (a write it makes does not tell them,
        /// a `cancel()` returns `false`).
        var claims = 0
        var cancels = 0
        var running = false
        var told = 0
        var runs = 0
        /// A read of it (this run or the last) found a write of that object in flight: it may be
        /// told at its end's re-check, or at that write's end, with no other write.
        var straddled = false
        /// Whether the last run's reads straddled (a reusable scope keeps straddling slots a run on).
        var lastRunStraddled = false
        init(index: Int, kind: Kind, hook: Hook) {
            self.index = index
            self.kind = kind
            self.hook = hook
        }
    }

    /// An open scope on the thread: a run's or a one-shot body's reads so far.
    final class Frame {
        let scope: Scope
        var reads: Set<Int> = []
        var objects: Set<Int> = []
        var straddled = false
        init(scope: Scope) { self.scope = scope }
    }

    final class Weak {
        weak var object: FuzzObject?
        init(_ object: FuzzObject) { self.object = object }
    }

    var rng: SplitMix64
    var failures: [String] = []
    var pool: [Int: FuzzObject] = [:]
    var weak: [Int: Weak] = [:]
    var deinits: [Int: Int] = [:]
    var nextObject = 0
    var scopes: [Scope] = []
    var frames: [Frame] = []
    /// Writes in flight (object, property): their willSet callbacks are running.
    var inFlight: [(object: Int, property: Int)] = []
    var nextValue = 1
    /// In some programs, a long list of objects (ids) that bodies read in order: long enough that a
    /// run whose last run read a row since removed near its start leaves a hole
    /// (`DependencyHoles.moveLimit`), which later runs pass.
    var list: [Int] = [] {
        didSet { listed = Set(list) }
    }
    var listed: Set<Int> = []
    /// Callbacks and deinits running inside one another.
    var nesting = 0
    var step = 0
    /// Writes a straddling scope must have been told of by the end of the step.
    var owed: [(scope: Scope, told: Int, runs: Int, cancels: Int, missed: String)] = []

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    static func key(_ object: Int, _ property: Int) -> Int { object * 4 + property }

    func fail(_ message: String) {
        if failures.count < 20 { failures.append("step \(step): \(message)") }
        trace("FAIL \(message)")
    }

    /// `REENTRANCY_FUZZ_TRACE=1`: every action, indented by nesting, to follow a failing seed.
    let tracing = ProcessInfo.processInfo.environment["REENTRANCY_FUZZ_TRACE"] != nil
    func trace(_ line: @autoclosure () -> String) {
        if tracing { print(String(repeating: "  ", count: frames.count + min(nesting, 10)) + line()) }
    }

    // MARK: The program

    func runProgram() {
        for _ in 0..<6 { createObject() }
        if rng.below(4) == 0 {
            for _ in 0..<(2 * DependencyHoles.moveLimit + 10) {
                createObject(hook: .nothing)
                list.append(nextObject - 1)
            }
        }
        for i in 0..<8 { addScope(i) }
        for s in 0..<50 where failures.isEmpty {
            step = s
            trace("step \(s)")
            action(depth: 0)
            for debt in owed
            where debt.scope.told == debt.told && debt.scope.runs == debt.runs && debt.scope.cancels == debt.cancels {
                fail(debt.missed)
            }
            owed = []
            checkLifetimes()
        }
        // Tear down: every scope cancelled, every object dropped; each goes exactly once.
        step = 50
        nesting = Int.max  // callbacks and deinits do nothing more
        for scope in scopes { cancel(scope) }
        // Released after the dictionary's access ends: a deinit reaches the pool.
        var dropped: [Int: FuzzObject] = [:]
        swap(&dropped, &pool)
        dropped = [:]
        for (id, reference) in weak where reference.object != nil { fail("object \(id) outlived every reference") }
        for (id, count) in deinits where count != 1 { fail("object \(id) deinit ran \(count) times") }
    }

    /// A scope of a random kind for slot `i` (replacing a cancelled one).
    func addScope(_ i: Int) {
        let roll = rng.below(10)
        // With a list, scope 0 is a reusable view of it (`open` reads the list first).
        let kind: Kind = roll < 6 || (i == 0 && !list.isEmpty) ? .reusable : roll < 9 ? .oneShot : .continuous
        let scope = Scope(index: i, kind: kind, hook: randomHook())
        if kind == .reusable {
            scope.reusable = ReusableScope { [unowned self] in self.told(scope) }
        }
        if i < scopes.count { scopes[i] = scope } else { scopes.append(scope) }
    }

    func randomHook() -> Hook {
        rng.below(3) == 0 ? .nothing : Hook.allCases[rng.below(Hook.allCases.count)]
    }

    /// One random action; bodies run `depth + 1` more, up to four scopes deep.
    func action(depth: Int) {
        switch rng.below(20) {
        case 0..<5: read()
        case 5..<8: write()
        case 8..<11: if depth < 4, let scope = randomScope() { open(scope, depth: depth) }
        case 11..<13: if let scope = randomScope() { cancel(scope) }
        case 13: createObject()
        case 14..<16: dropObject()
        case 16: if depth == 0 { replaceCancelledScope() } else { read() }
        case 17: if !list.isEmpty { editList() } else { read() }
        default:
            if depth < 4, let scope = randomScope() { open(scope, depth: depth) }
        }
    }

    /// Mostly one of the objects outside the list (there are few of them).
    func randomObject() -> FuzzObject? {
        let all = pool.keys.sorted()
        let outside = list.isEmpty || rng.below(8) == 0 ? all : all.filter { !listed.contains($0) }
        let ids = outside.isEmpty ? all : outside
        guard !ids.isEmpty else { return nil }
        return pool[ids[rng.below(ids.count)]]
    }

    func randomScope() -> Scope? { scopes.isEmpty ? nil : scopes[rng.below(scopes.count)] }

    /// Reads property 0 of every row of the list still in the pool, in order.
    func readList() {
        trace("read list of \(list.count)")
        for id in list { if let object = pool[id] { read(object, 0) } }
    }

    /// Removes a row near the start of the list, or inserts a new one there.
    func editList() {
        let at = rng.below(min(list.count, 40))
        if rng.below(3) == 0 {
            createObject(hook: .nothing)
            list.insert(nextObject - 1, at: at)
        } else {
            list.remove(at: at)
        }
        trace("list edited at \(at): \(list.count) rows")
    }

    func replaceCancelledScope() {
        if let scope = scopes.first(where: { $0.cancelled }) { addScope(scope.index) }
    }

    // MARK: Reads and writes, as the model sees them

    func read(_ object: FuzzObject? = nil, _ property: Int? = nil) {
        guard let object = object ?? randomObject() else { return }
        let property = property ?? rng.below(3)
        trace("read \(object.id).\(property)")
        _ = object.read(property)
        // A deinit's reads of its own object are not recorded.
        guard !object.isDying else { return }
        let straddling = inFlight.contains { $0.object == object.id }
        for frame in frames {
            frame.reads.insert(Self.key(object.id, property))
            frame.objects.insert(object.id)
            if straddling { frame.straddled = true }
        }
    }

    func write(_ object: FuzzObject? = nil, _ property: Int? = nil) {
        guard let object = object ?? randomObject() else { return }
        let property = property ?? rng.below(3)
        let key = Self.key(object.id, property)
        // Every armed scope watching it, but those running on this thread (its body's own writes).
        let expected = scopes.filter { $0.armed && !$0.running && $0.watched.contains(key) }
        let before = expected.map { ($0.told, $0.runs, $0.cancels) }
        for scope in expected {
            scope.claims += 1
            if scope.kind != .continuous { scope.armed = false }
        }
        trace("write \(object.id).\(property) expecting \(expected.map(\.index))")
        inFlight.append((object.id, property))
        nextValue += 1
        object.write(property, nextValue)
        inFlight.removeLast()
        for (scope, (told, runs, cancels)) in zip(expected, before)
        where scope.told == told && scope.runs == runs && scope.cancels == cancels {
            let missed = "\(scope.kind) scope \(scope.index) missed a write of object \(object.id).\(property)"
            // A straddling scope may have been claimed, its callback still to come: by the end
            // of the step.
            if scope.straddled { owed.append((scope, told, runs, cancels, missed)) } else { fail(missed) }
        }
    }

    /// A callback: checks that the scope could be told, then runs its hook.
    func told(_ scope: Scope) {
        trace("told \(scope.kind) \(scope.index)")
        scope.told += 1
        let watchedInFlight = inFlight.contains { scope.watched.contains(Self.key($0.object, $0.property)) }
        if scope.claims > 0 {
            scope.claims -= 1
            return runHook(scope.hook, dying: nil)
        }
        if !scope.armed {
            fail("\(scope.kind) scope \(scope.index) told while not armed")
        } else if !watchedInFlight && !scope.straddled
            && !frames.contains(where: { $0.scope === scope && $0.straddled })
        {
            fail("\(scope.kind) scope \(scope.index) told with no write of what it watches")
        }
        if scope.kind != .continuous { scope.armed = false }
        runHook(scope.hook, dying: nil)
    }

    func deinitStarts(_ object: FuzzObject) {
        trace("deinit \(object.id) \(object.hook)")
        deinits[object.id, default: 0] += 1
        runHook(object.hook, dying: object)
    }

    /// What a callback or a deinit does, a few levels deep at most.
    func runHook(_ hook: Hook, dying: FuzzObject?) {
        guard nesting < 6 else { return }
        nesting += 1
        defer { nesting -= 1 }
        switch hook {
        case .nothing: break
        case .read: if let dying { read(dying, rng.below(3)) } else { read() }
        case .writeOther: write()
        case .writeSelf: if let dying { write(dying, rng.below(3)) } else { write() }
        case .runScope: if let scope = randomScope() { open(scope, depth: 3) }
        case .cancelScope: if let scope = randomScope() { cancel(scope) }
        case .oneShot:
            if let scope = scopes.first(where: { $0.kind == .oneShot && !$0.cancelled }) { open(scope, depth: 3) }
        case .dropObject: dropObject()
        case .createObject: createObject()
        }
    }

    // MARK: Scopes

    /// Runs a reusable scope, or opens a one-shot or continuous scope with a new token.
    func open(_ scope: Scope, depth: Int) {
        guard !scope.cancelled, !scope.running, !scope.ending else { return }
        trace("open \(scope.kind) \(scope.index)")
        let frame = Frame(scope: scope)
        let bodyActions = 1 + rng.below(4)
        func body() {
            frames.append(frame)
            scope.running = true
            if scope.index == 0 && !list.isEmpty { readList() }
            for _ in 0..<bodyActions { action(depth: depth + 1) }
            close(frame)
        }
        switch scope.kind {
        case .reusable:
            scope.armed = true
            // A callback claimed before this run begins does not start (`ScopeState`).
            scope.claims = 0
            scope.reusable!.run { body() }
        case .oneShot:
            // A new observation in the same slot: the last one's is cancelled first.
            cancel(scope)
            scope.token = withCancellableTracking({ body() }, onChange: { [unowned self] in self.told(scope) }).token
            tokenArrived(scope)
        case .continuous:
            cancel(scope)
            scope.token = observeChanges({ body() }, onChange: { [unowned self] in self.told(scope) })
            tokenArrived(scope)
        }
    }

    /// A scope whose read straddled a write may be claimed by the end of a write the model does
    /// not follow (see `Scope.straddled`): a `cancel()` that returns `false` then leaves its
    /// callback to come.
    func claimedByAStraddle(_ scope: Scope, wasArmed: Bool, armed: Bool) -> Bool {
        guard !wasArmed && armed && (scope.straddled || frames.contains { $0.scope === scope && $0.straddled }) else {
            return false
        }
        scope.claims += 1
        return true
    }

    func tokenArrived(_ scope: Scope) {
        scope.ending = false
        if scope.pendingCancel {
            scope.pendingCancel = false
            cancel(scope)
        }
    }

    /// A body returns: what it read is what the scope watches from now on.
    func close(_ frame: Frame) {
        guard frames.last === frame else {
            fail("frames out of order")
            return
        }
        frames.removeLast()
        let scope = frame.scope
        trace("close \(scope.kind) \(scope.index) read \(frame.reads.sorted())")
        scope.running = false
        scope.runs += 1
        if scope.kind != .reusable { scope.ending = true }
        guard !scope.cancelled else {
            scope.watched = []
            scope.held = []
            scope.armed = false
            return
        }
        scope.straddled = frame.straddled || (scope.kind == .reusable && scope.lastRunStraddled)
        scope.lastRunStraddled = frame.straddled
        scope.watched = frame.reads
        scope.held = scope.kind == .reusable ? frame.objects : []
        // A one-shot or continuous scope that read nothing observes nothing (an inert token).
        scope.armed = scope.kind == .reusable || !frame.reads.isEmpty
    }

    func cancel(_ scope: Scope) {
        guard !scope.cancelled else { return }
        if scope.ending {
            scope.pendingCancel = true
            return
        }
        trace("cancel \(scope.kind) \(scope.index)")
        scope.cancels += 1
        switch scope.kind {
        case .reusable:
            // The model first: the objects' deinits may run inside `cancel()`.
            let armed = scope.armed
            scope.cancelled = true
            scope.armed = false
            if !scope.running {
                scope.watched = []
                scope.held = []
            }
            let wasArmed = scope.reusable!.cancel()
            if wasArmed != armed && !claimedByAStraddle(scope, wasArmed: wasArmed, armed: armed) {
                fail("reusable scope \(scope.index): cancel returned \(wasArmed)")
            }
        case .oneShot, .continuous:
            if let token = scope.token {
                let wasArmed = token.cancel()
                // A scope whose objects have all gone is closed by the registrar (it could never fire).
                let objectsGone = scope.watched.allSatisfy { weak[$0 / 4]?.object == nil }
                if wasArmed != scope.armed && !objectsGone
                    && !claimedByAStraddle(scope, wasArmed: wasArmed, armed: scope.armed)
                {
                    fail("\(scope.kind) scope \(scope.index): cancel returned \(wasArmed)")
                }
                // A continuous scope's claimed callbacks that have not started are dropped.
                if scope.kind == .continuous && wasArmed { scope.claims = 0 }
            }
            scope.token = nil
            scope.armed = false
            scope.watched = []
        // A one-shot or continuous slot takes a new observation at its next `open`.
        }
    }

    // MARK: Objects

    func createObject(hook: Hook? = nil) {
        let id = nextObject
        nextObject += 1
        trace("create \(id)")
        let object = FuzzObject(id: id, world: self, hook: hook ?? randomHook())
        pool[id] = object
        weak[id] = Weak(object)
    }

    func dropObject() {
        guard !pool.isEmpty else { return }
        let ids = pool.keys.sorted()
        // Released once the dictionary's access has ended: its deinit may reach the pool.
        let dropped = pool.removeValue(forKey: ids[rng.below(ids.count)])
        withExtendedLifetime(dropped) {}
    }

    /// At a top-level step, with no scope open: an object lives exactly while the program holds it
    /// or a reusable scope not cancelled read it in its last run.
    func checkLifetimes() {
        let heldByScopes = scopes.filter { $0.kind == .reusable && !$0.cancelled }.reduce(into: Set<Int>()) {
            $0.formUnion($1.held)
        }
        for (id, reference) in weak {
            let alive = reference.object != nil
            let expected = pool[id] != nil || heldByScopes.contains(id)
            if alive != expected {
                fail("object \(id) \(alive ? "alive" : "gone"), expected \(expected ? "alive" : "gone")")
            }
        }
        for (id, count) in deinits where count > 1 { fail("object \(id) deinit ran \(count) times") }
    }
}
