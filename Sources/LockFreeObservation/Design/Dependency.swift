import CTrackingSupport
import Synchronization

/// One object (one 64-property word of it) that a reusable scope's last run read, with the slot it
/// keeps in that object between runs, as a value: the two halves a buffer keeps apart
/// (`DependencyBuffer`), `head`, which a run's reads touch, and `rest`, which only the slow paths
/// do. Lives in the scope's record (`ScopeRecord.dependencies`), touched only by the thread running
/// or cancelling the scope.
///
/// While a run reads its dependencies in the same order as the last one, each read only writes
/// `head.read` (see `TrackedObject._keepReadInline`). The object is not touched, the slot stays
/// installed, and no reference count changes.
struct Dependency {
    var head: DependencyHead
    var rest: DependencyRest

    init(
        object: UnsafeMutableRawPointer, mask: UInt64, read: UInt64, version: UInt64, word: UInt32, ownWrites: UInt32,
        slot: UnsafeMutablePointer<Atomic<UInt64>>?, straddling: Bool
    ) {
        precondition(UInt(bitPattern: object) >> 48 == 0, "object address above 48 bits")
        head = DependencyHead(key: DependencyHead.key(object, word), mask: mask, read: read)
        rest = DependencyRest(version: version, slot: slot, ownWrites: ownWrites, straddling: straddling)
    }

    init(head: DependencyHead, rest: DependencyRest) {
        self.head = head
        self.rest = rest
    }

    var mask: UInt64 {
        get { head.mask }
        set { head.setMask(newValue) }
    }
    var read: UInt64 {
        get { head.read }
        set { head.read = newValue }
    }
    var object: UnsafeMutableRawPointer { head.object }
    var word: UInt32 { head.word }
    var isHole: Bool { head.isHole }
    var version: UInt64 {
        get { rest.version }
        set { rest.version = newValue }
    }
    var slot: UnsafeMutablePointer<Atomic<UInt64>>? {
        get { rest.slot }
        set { rest.slot = newValue }
    }
    var ownWrites: UInt32 {
        get { rest.ownWrites }
        set { rest.ownWrites = newValue }
    }
    var straddling: Bool {
        get { rest.straddling }
        set { rest.straddling = newValue }
    }
    var fate: DependencyRest.Fate {
        get { rest.fate }
        set { rest.fate = newValue }
    }

    /// A dependency on no object, left where a long list lost one (`DependencyStore.holes`): its
    /// key is no object's (as a sentinel's), so no read matches it and a run's cursor skips it; it
    /// has no slots, no retain and no properties.
    static var hole: Dependency {
        var hole = Dependency(
            object: UnsafeMutableRawPointer(bitPattern: UInt(TRACKING_NO_OBJECT)).unsafelyUnwrapped, mask: 0, read: 0,
            version: 0, word: 0, ownWrites: 0, slot: nil, straddling: false)
        hole.head.key = UInt(TRACKING_NO_OBJECT)
        hole.fate = .dropped
        return hole
    }

    /// Whether `version` was loaded by this run: it read a property outside the installed slots,
    /// or read during a write in flight (an earlier run's version has none in flight).
    var versionIsThisRuns: Bool { rest.versionIsThisRuns(head) }
}

/// The half of a dependency that a run's reads touch: what the getter compares (`key`, `mask`)
/// and the one thing it stores (`read`). 24 bytes, so that the cursor of a run over many objects
/// (the count view over 100,000 books) walks 24 bytes of them per object read, not 48: the other
/// half (`DependencyRest`) lies in an array of its own beside this one (`DependencyBuffer`).
///
/// A getter keeps a read through it (`keepRead(_:of:in:)`). Frozen and usable from inline code: a
/// getter keeps the read the run expects inline.
@usableFromInline @frozen
package struct DependencyHead {
    /// The object (retained by the scope), the word and the lead: `object | word << 48 | lead`
    /// (`key(_:_:)` and `lead(of:)`), so that a getter matches all three with one compare. (A
    /// user-space address has its top 16 bits clear, an object's address its low 4, and a word is
    /// below `TrackedObject.propertyLimit / 64`.) First in the layout: a sentinel's key is 1
    /// (`tracking_no_dependencies_address()`), which no object's address with any lead is.
    @usableFromInline package var key: UInt
    /// The properties the installed slots watch (bits of `word`). Set through `setMask(_:)`, which
    /// keeps the key's lead.
    @usableFromInline package internal(set) var mask: UInt64
    /// The properties this run read; 0 until the run reads the object (or when it skipped it).
    @usableFromInline package var read: UInt64

    /// `key`: the object and word (`key(_:_:)`), with the lead of `mask` added.
    @inlinable
    package init(key: UInt, mask: UInt64, read: UInt64) {
        self.key = key | Self.lead(of: mask)
        self.mask = mask
        self.read = read
    }

    /// `key` as it is, its lead 0 until `settleLead()`: a dependency of a run's own list, which no
    /// cursor walks until its leads are settled.
    @inlinable
    package init(keyWithoutLead key: UInt, mask: UInt64, read: UInt64) {
        self.key = key
        self.mask = mask
        self.read = read
    }

    /// The low 4 bits of a key: its lowest watched property when that is below 15, 15 otherwise
    /// (none, or a higher one). A getter of property `p < 15` that finds `key(object, word) | p`
    /// at the cursor knows, with that one compare, that the slots watch `p`: no mask test.
    @inlinable @inline(__always)
    package static var leadBits: UInt { 15 }

    /// The lead of a dependency watching `mask` (`leadBits`).
    @inlinable
    package static func lead(of mask: UInt64) -> UInt {
        let lowest = UInt(truncatingIfNeeded: mask.trailingZeroBitCount)
        return lowest < leadBits ? lowest : leadBits
    }

    /// Sets the watched properties, and the key's lead with them.
    @inlinable
    package mutating func setMask(_ newMask: UInt64) {
        mask = newMask
        settleLead()
    }

    /// Sets the key's lead for `mask`.
    @inlinable
    package mutating func settleLead() {
        key = baseKey | Self.lead(of: mask)
    }

    /// Sets the properties, leaving the key's lead as it is (for `settleLead()`).
    @inlinable
    package mutating func setMaskLeavingLead(_ newMask: UInt64) { mask = newMask }

    /// Adds properties, leaving the key's lead as it is (for `settleLead()`).
    @inlinable
    package mutating func addToMask(_ bits: UInt64) { mask |= bits }

    /// The object and word of a dependency, as one word (`key`, less its lead).
    @inlinable @inline(__always)
    package static func key(_ object: UnsafeMutableRawPointer, _ word: UInt32) -> UInt {
        UInt(bitPattern: object) | UInt(truncatingIfNeeded: word) &<< 48
    }

    /// The key less its lead: what `key(_:_:)` gives for this object and word.
    @inlinable @inline(__always)
    package var baseKey: UInt { key & ~Self.leadBits }

    /// The bits of a key that hold the object's address (a hole's are 0).
    static var objectBits: UInt { (1 &<< 48 &- 1) & ~leadBits }

    /// The object, retained by the scope. Never a hole's (`isHole`): it has none.
    var object: UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: key & Self.objectBits).unsafelyUnwrapped
    }

    /// Which 64-property word of the object `mask` and `read` describe.
    var word: UInt32 { UInt32(truncatingIfNeeded: key &>> 48) }

    /// Whether this is a hole (`Dependency.hole`).
    var isHole: Bool { key == UInt(TRACKING_NO_OBJECT) }

    /// Dependency `i` of the buffer the thread state points to.
    @inlinable @inline(__always)
    static func at(_ base: UnsafeMutableRawPointer?, _ i: Int) -> UnsafeMutablePointer<DependencyHead> {
        base.unsafelyUnwrapped.assumingMemoryBound(to: DependencyHead.self) + i
    }

    /// The dependency at `address` (a `tracking_run` cursor).
    @inline(__always)
    static func at(_ address: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<DependencyHead> {
        address.unsafelyUnwrapped.assumingMemoryBound(to: DependencyHead.self)
    }

    /// The index of the dependency at `cursor` in the buffer at `base`.
    @inline(__always)
    static func index(_ cursor: UnsafeMutableRawPointer?, in base: UnsafeMutableRawPointer?) -> Int {
        at(base).distance(to: at(cursor))
    }
}

/// Where a registrar keeps its running run's cursor over the last run's dependencies: in its C
/// thread-local (`registrarThread()`), which a getter reaches with no call. The getters keep a
/// read through it (`DependencyHead.keepRead(_:of:in:)`): every requirement is implemented
/// inline, as a load or a store of the thread-local (`TrackingRunCursor`).
///
/// The dependency at `cursor` is always readable (a sentinel outside an outermost run and in a
/// scope nested in one, where `dependencyCount` is 0), and two sentinels precede every list.
@usableFromInline
package protocol RunCursor {
    /// The dependency a read is expected to match next (never null).
    static var cursor: UnsafeMutableRawPointer? { get set }
    /// How many dependencies the cursor walks: 0 outside an outermost run, and in a scope nested
    /// in one.
    static var dependencyCount: Int { get }
    /// Properties the run read of its kept dependencies beyond one per dependency kept.
    static var bitsRead: Int { get set }
    /// After a read kept at the cursor, before the caller loads the value.
    static func keptAtCursor()
}

extension DependencyHead {
    /// The commonest tracked reads of a view that re-evaluates, inlined into the getters
    /// (`_keepReadInline`): the read the
    /// running run expects next (its last run read this object there) of a property the installed
    /// slots watch; and a further watched property of the dependency just kept or the one before
    /// it (a row reading a book's title, then its author). Stores only to the dependency and to
    /// `Cursor`'s thread-local: no look at the object's write word, no lock, no shared write (a
    /// write in flight when the run began holds the cursor away from the getters). Returns
    /// `false`, having changed nothing, for any other read.
    @inlinable @inline(__always)
    package static func keepRead<Cursor: RunCursor>(
        _ property: Int, of object: UnsafeMutableRawPointer, in _: Cursor.Type
    ) -> Bool {
        let key = Self.key(object, UInt32(truncatingIfNeeded: property >> 6))
        let bit: UInt64 = 1 &<< UInt64(property & 63)
        // The key with the lead a dependency watching this property first has (`lead(of:)`):
        // below 15, a match says the slots watch it, with no mask test.
        let lead = UInt(truncatingIfNeeded: property & 63)
        let leadKey = key &+ (lead < leadBits ? lead : leadBits)
        // Never null (a thread's state starts at the sentinel). (Not `at(_:)`: through it the
        // getters are larger.)
        let next = UnsafeMutablePointer<DependencyHead>(OpaquePointer(Cursor.cursor)).unsafelyUnwrapped
        if _fastPath(next.pointee.key == leadKey)
            && (lead < leadBits || _fastPath(next.pointee.mask & bit != 0))
        {
            // Covered by the installed slots: no version (see `Dependency.version`), and no look
            // at the write word: no observed write was in flight when the run began, or the
            // cursor would be held away (`tracking_thread.heldCursor`).
            next.pointee.read = bit
            Cursor.cursor = UnsafeMutableRawPointer(next + 1)
            Cursor.keptAtCursor()
            return true
        }
        // The dependency just kept (read in this run: a skipped one is never last), or the one
        // before it (two objects read in turn), if the run read it (a skipped one has `read` 0).
        // Both are readable with no bounds check: two sentinels precede every list. Only in the
        // cursor's scope: the count is 0 outside the outermost run and in a scope nested in it
        // (whose cursor is past the run's own).
        guard Cursor.dependencyCount != 0 else { return false }
        var last = next - 1
        if last.pointee.baseKey != key {
            last = next - 2
            guard last.pointee.baseKey == key && last.pointee.read != 0 else { return false }
        }
        guard last.pointee.mask & bit != 0 else { return false }
        let read = last.pointee.read
        if read & bit == 0 {
            last.pointee.read = read | bit
            Cursor.bitsRead &+= 1
        }
        return true
    }
}

/// The half of a dependency that only the slow paths touch (a first read the slots do not cover,
/// a reconcile, the body's own writes): what the run loaded and which slots are installed. In an
/// array beside the heads, at the same index (`DependencyBuffer`), of the same stride, so that a
/// head's rest lies a fixed distance after it (`tracking_run.restOffset`).
struct DependencyRest {
    /// The object's write word loaded before this run's first read of it that the installed slots
    /// did not cover: a property outside `mask`, or one read during a write in flight (then the
    /// run's version: `versionIsThisRuns`). A read the slots cover needs none: the scope is armed
    /// and the slots stay installed, so a later write notifies it. Otherwise a version of an
    /// earlier run, with no write in flight (`ReusableScope.install` settles it), never compared.
    var version: UInt64
    /// The slot, when the dependency has exactly one (`TrackingScope.forEachSlot`); `nil` when it
    /// has several, which are then found by scanning the object's slots.
    var slot: UnsafeMutablePointer<Atomic<UInt64>>?
    /// Writes of the object begun by the running thread since `version` was loaded (meaningful
    /// only while it is the run's).
    var ownWrites: UInt32
    /// Whether the installed slots are straddling (see `TrackedObject._writes`).
    var straddling: Bool
    /// What the run that just ended did with it (`ReusableScope.reconcile`).
    var fate = Fate.kept

    enum Fate: UInt8 {
        /// Read in order: its slots stay.
        case kept
        /// Read out of order: the run's entry for it takes its slots over.
        case takenOver
        /// Not read: its slots are emptied and its object released.
        case dropped
    }

    init(version: UInt64, slot: UnsafeMutablePointer<Atomic<UInt64>>?, ownWrites: UInt32, straddling: Bool) {
        self.version = version
        self.slot = slot
        self.ownWrites = ownWrites
        self.straddling = straddling
    }

    /// Whether `version` was loaded by this run (`Dependency.versionIsThisRuns`), `head` being the
    /// other half.
    func versionIsThisRuns(_ head: DependencyHead) -> Bool {
        head.read & ~head.mask != 0 || WriteWord.inFlight(version) != 0
    }
}

extension UnsafeMutablePointer where Pointee == DependencyHead {
    /// The other half of this dependency of the running scope's buffer (`tracking_run.restOffset`).
    @inline(__always)
    func rest(_ thread: UnsafeMutablePointer<tracking_thread>) -> UnsafeMutablePointer<DependencyRest> {
        (UnsafeMutableRawPointer(self) + thread.pointee.run.restOffset).assumingMemoryBound(to: DependencyRest.self)
    }

    /// The run's first read of this dependency, out of the getter (which keeps only the reads the
    /// slots cover): the write word loaded as the run's version, and the run reshaped if the slots
    /// do not cover the read.
    @inline(__always)
    func keep(_ bit: UInt64, of object: RegistrarObject, _ thread: UnsafeMutablePointer<tracking_thread>) {
        pointee.read = bit
        loadVersion(of: object, thread)
        thread.pointee.run.reshaped |= Int(bitPattern: UInt(truncatingIfNeeded: bit & ~pointee.mask))
    }

    /// Loads `object`'s write word as the run's version (`Dependency.version`), the body's own writes
    /// counted from here; a write in flight reshapes the run. seq_cst: the reader's half of
    /// `ReusableScope.run`'s Dekker pair (the scope was armed first); a plain load on x86.
    @inline(__always)
    func loadVersion(of object: RegistrarObject, _ thread: UnsafeMutablePointer<tracking_thread>) {
        let version = object._writes.load(ordering: .sequentiallyConsistent)
        let rest = rest(thread)
        rest.pointee.version = version
        rest.pointee.ownWrites = 0
        thread.pointee.run.reshaped |= Int(bitPattern: UInt(truncatingIfNeeded: WriteWord.inFlight(version)))
        // The window between the write word and the caller's load of the value.
        _schedulePoint()
    }

    /// Whether this is the dependency a new read put in the place of the run's last one
    /// (`TrackedObject._displaceLastDependency`): not installed until the run ends, its mask the
    /// properties read so far.
    @inline(__always)
    func isDisplacing(_ thread: UnsafeMutablePointer<tracking_thread>) -> Bool {
        thread.pointee.run.bitsRead >= RunReads.displacement
            && self == DependencyHead.at(thread.pointee.run.dependencies, thread.pointee.run.dependencyCount &- 1)
    }

    /// A further read, of property `bit` of `object`'s `word`, if this is that object's dependency
    /// and the run already read it: the property is added to what the run read, and counted for
    /// `tracking_run.bitsRead` / `reshaped`. Returns whether it was.
    @inline(__always)
    func readAgain(
        _ object: UnsafeMutableRawPointer, _ word: UInt32, _ bit: UInt64,
        _ thread: UnsafeMutablePointer<tracking_thread>
    ) -> Bool {
        guard pointee.baseKey == DependencyHead.key(object, word) else { return false }
        let read = pointee.read
        // A property read before in this run (the commonest repeated read) is counted already.
        if read & bit != 0 { return true }
        guard read != 0 else { return false }
        if bit & ~pointee.mask != 0 && isDisplacing(thread) {
            // Not installed yet: its version, loaded at its first read, covers this one too; the
            // property is watched from the install at the run's end.
            pointee.setMask(pointee.mask | bit)
            pointee.read = read | bit
            thread.pointee.run.bitsRead &+= 1
            return true
        }
        if bit & ~pointee.mask != 0 && !rest(thread).pointee.versionIsThisRuns(pointee) {
            // The run's first read the slots do not cover: from here the write word decides
            // whether the reinstall missed a change (`Dependency.version`).
            Unmanaged<RegistrarObject>.fromOpaque(object)._withUnsafeGuaranteedRef { loadVersion(of: $0, thread) }
        }
        pointee.read = read | bit
        thread.pointee.run.bitsRead &+= 1
        thread.pointee.run.reshaped |= Int(bitPattern: UInt(truncatingIfNeeded: bit & ~pointee.mask))
        return true
    }
}

/// When a run's reconciliation leaves holes in a list of dependencies instead of moving the kept
/// dependencies after a dropped one down (`DependencyStore.holes`).
@usableFromInline
package enum DependencyHoles {
    /// A run that drops dependencies from a list leaves holes where they were instead of moving
    /// more than this many later dependencies down (`ReusableScope.reconcileInPlace`).
    @inlinable package static var moveLimit: Int { 128 }

    /// Runs in a row that may end with holes left; the next moves the list together
    /// (`DependencyStore.runsWithHoles`).
    @inlinable package static var runLimit: Int { 8 }
}

/// A growable buffer of dependencies. It starts in a few slots set aside for its record
/// (`DependencyStore.inlineCapacity`), so a view that reads a few objects allocates nothing, and
/// grows into an allocation kept by the record for its later scopes.
///
/// Two sentinels precede `base` (`leadingSentinels`): a getter looks at the two dependencies before
/// the cursor with no bounds check (`TrackedObject._keepReadInline`), and finds no object there
/// when the cursor is at the first.
struct DependencyBuffer {
    /// The heads (`DependencyHead`); their rests follow them, `restOffset` bytes after each.
    var base: UnsafeMutablePointer<DependencyHead>
    var capacity: Int
    /// The record's own slots (after their leading sentinels), which are never freed.
    let inline: UnsafeMutablePointer<DependencyHead>

    /// Sentinels before the first dependency of every buffer, and of `tracking_no_dependencies_address()`.
    static let leadingSentinels = 2

    /// The stride of both halves: a head's rest is `restOffset` bytes after it only if they match.
    static let stride: Int = {
        precondition(
            MemoryLayout<DependencyHead>.stride == MemoryLayout<DependencyRest>.stride,
            "a dependency's halves differ in stride")
        // The sentinels a getter may read are laid out for dependencies of up to 64 bytes
        // (`tracking_no_dependencies_address()`).
        precondition(MemoryLayout<DependencyHead>.stride <= 64, "a dependency outgrew its sentinels")
        return MemoryLayout<DependencyHead>.stride
    }()

    /// The bytes a buffer of `capacity` takes: the leading sentinels, the heads, then the rests.
    static func bytes(capacity: Int) -> Int { (leadingSentinels + 2 * capacity) * stride }

    /// `region`: `bytes(capacity:)` bytes, aligned for a word.
    init(inline region: UnsafeMutableRawPointer, capacity: Int) {
        inline = Self.startAfterSentinels(region, capacity: capacity)
        base = inline
        self.capacity = capacity
    }

    /// Writes the leading sentinels at the start of `region` (`bytes(capacity:)`), binds the rest
    /// of it, and returns where the dependencies go.
    private static func startAfterSentinels(
        _ region: UnsafeMutableRawPointer, capacity: Int
    ) -> UnsafeMutablePointer<DependencyHead> {
        let heads = region.bindMemory(to: DependencyHead.self, capacity: leadingSentinels + capacity)
        (region + (leadingSentinels + capacity) * stride).bindMemory(to: DependencyRest.self, capacity: capacity)
        for i in 0..<leadingSentinels {
            UnsafeMutableRawPointer(heads + i).storeBytes(of: UInt(TRACKING_NO_OBJECT), as: UInt.self)
        }
        return heads + leadingSentinels
    }

    /// Bytes from a head to its rest (`tracking_run.restOffset`).
    var restOffset: Int { capacity &* Self.stride }

    /// The rests, parallel to the heads.
    var rests: UnsafeMutablePointer<DependencyRest> {
        (UnsafeMutableRawPointer(base) + restOffset).assumingMemoryBound(to: DependencyRest.self)
    }

    /// Dependency `i`, both halves. (Both are trivial types: setting one not yet initialised is
    /// initialising it.)
    subscript(i: Int) -> Dependency {
        get { Dependency(head: base[i], rest: rests[i]) }
        nonmutating set {
            base[i] = newValue.head
            rests[i] = newValue.rest
        }
    }

    /// Moves `count` dependencies from `from` to `to` (the ranges may overlap).
    func move(from: Int, to: Int, count: Int) {
        guard from != to else { return }
        (base + to).update(from: base + from, count: count)
        (rests + to).update(from: rests + from, count: count)
    }

    /// Writes `count` holes from `at` (`Dependency.hole`).
    func leaveHoles(at: Int, count: Int) {
        let hole = Dependency.hole
        (base + at).update(repeating: hole.head, count: count)
        (rests + at).update(repeating: hole.rest, count: count)
    }

    /// Writes the sentinel after the `count` dependencies a run's cursor walks (see `tracking_run`).
    /// Every buffer that holds a scope's dependencies has room for it: it is reserved for one more.
    func endWithSentinel(at count: Int) {
        assert(count < capacity, "no room for the sentinel")
        UnsafeMutableRawPointer(base + count).storeBytes(of: UInt(TRACKING_NO_OBJECT), as: UInt.self)
    }

    /// Makes room for `count` dependencies, with a quarter more for a list that grows a little
    /// from run to run (`exactly`: no more than `count`). The old contents are not kept: the
    /// caller builds into the buffer afresh.
    mutating func reserve(_ count: Int, exactly: Bool = false) {
        guard count > capacity else { return }
        let grown = exactly ? count : max(count + count / 4 + 8, 2 * capacity)
        if base != inline { UnsafeMutableRawPointer(base - Self.leadingSentinels).deallocate() }
        let region = UnsafeMutableRawPointer.allocate(
            byteCount: Self.bytes(capacity: grown), alignment: MemoryLayout<DependencyHead>.alignment)
        base = Self.startAfterSentinels(region, capacity: grown)
        capacity = grown
    }

    /// Frees a buffer grown beyond what a typical view needs, so that a pooled record does not keep
    /// a large allocation for ever.
    mutating func shrink(above limit: Int) {
        guard capacity > limit, base != inline else { return }
        UnsafeMutableRawPointer(base - Self.leadingSentinels).deallocate()
        base = inline
        capacity = DependencyStore.inlineCapacity
    }
}

/// A reusable scope's dependencies: the last run's, and a spare buffer the next run builds into.
/// One per scope record, in arrays beside the records (`ScopeTable.store(_:)`), touched only by
/// the thread that runs or cancels the scope; kept when the record is recycled, so a view mounted
/// in place of another allocates nothing.
struct DependencyStore {
    var dependencies: DependencyBuffer
    var count = 0
    var spare: DependencyBuffer
    /// The properties the installed slots watch, over all dependencies: a run that read as many,
    /// none outside them (`tracking_run.reshaped`), read exactly them.
    var watchedBits = 0
    /// Dependencies whose slots are straddling: while any is, every run re-examines them all.
    var straddling = 0
    /// Holes among the dependencies (`Dependency.hole`): a dependency dropped from a long list
    /// leaves one instead of every later dependency moving down to fill its place
    /// (`ReusableScope.reconcileInPlace`), and a dependency added there later takes its place. A
    /// run passes a hole as a dependency it skipped.
    var holes = 0
    /// Runs in a row that ended with holes left: each passed them in its slow path, so after
    /// `DependencyHoles.runLimit` of them the next run moves the list together instead.
    var runsWithHoles: Int32 = 0
    /// Set when a run of the scope found an observed write in flight (it held), or a write of the
    /// thread running it passed it by (`TrackedObject._passedByOwnWrite`: begun in the run, it
    /// may end after it). A run that finds the scope still armed, this clear and no slot
    /// straddling, looks at no count (`ReusableScope.looksForWritesInFlight`); one that finds it
    /// set looks, and clears it if it finds none in flight. A run that arms the scope and finds
    /// none leaves it as it is: a later run looks once more, at worst, and the commonest run
    /// stores nothing. (The run's own write of a dependency it adds scans no slot of the scope's,
    /// and needs no mark: the install's re-check finds it in flight and reports it. A nested run
    /// needs none either: its reads all load the write word, and a write in flight makes their
    /// slots straddle.) Beside the 32-bit count above, so that the store stays 152 bytes, its
    /// index a multiply.
    var uncheckedArming = false
    /// Set by a `cancel()` made on the thread running the scope (in its own run, or in a run
    /// nested in it): the run's end, instead of reconciling, lets go of everything and closes the
    /// scope (`ReusableScope.closeCancelledRun`). Beside `uncheckedArming`, in the same padding.
    var cancelledInRun = false
    /// The enclosing run's cursor while this scope runs nested in another scope's run (an
    /// outermost run restores the state of no run instead: `ReusableScope.run`).
    var enclosingRun = tracking_run()

    /// Dependencies each buffer holds without allocating: two, and the sentinel after them.
    static let inlineCapacity = 3

    /// The bytes of the record's own slots for both buffers, with their leading sentinels.
    static let inlineRegionBytes = 2 * DependencyBuffer.bytes(capacity: inlineCapacity)

    /// `inline`: `inlineRegionBytes` bytes, aligned for a word.
    init(inline: UnsafeMutableRawPointer) {
        dependencies = DependencyBuffer(inline: inline, capacity: Self.inlineCapacity)
        spare = DependencyBuffer(
            inline: inline + DependencyBuffer.bytes(capacity: Self.inlineCapacity), capacity: Self.inlineCapacity)
    }

    /// No dependency, nothing watched: a new scope's store, or a cancelled one's (its buffers kept).
    mutating func empty() {
        count = 0
        watchedBits = 0
        straddling = 0
        holes = 0
        runsWithHoles = 0
        uncheckedArming = false
    }
}
