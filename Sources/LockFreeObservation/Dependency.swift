import CTrackingSupport
import Synchronization

/// One object (one 64-property word of it) that a reusable scope's last run read, with the slot it
/// keeps in that object between runs. Lives in the scope's record (`ScopeRecord.dependencies`),
/// touched only by the thread running or cancelling the scope.
///
/// While a run reads its dependencies in the same order as the last one, each read only writes
/// here: `read` (see `TrackedObject._keepReadInline`). The object is not touched, the slot stays
/// installed, and no reference count changes.
///
/// Frozen and usable from inline code: a getter keeps the read the run expects inline
/// (`TrackedObject._keepReadInline`).
@usableFromInline @frozen
struct Dependency {
    /// The object (retained by the scope) and the word: `object | word << 48` (`key(_:_:)`), so
    /// that a getter matches both with one compare. (A user-space address has its top 16 bits
    /// clear, and a word is below `TrackedObject.propertyLimit / 64`.) First in the layout: a
    /// sentinel's key is 1 (`tracking_no_dependencies_address()`).
    @usableFromInline var key: UInt
    /// The properties the installed slots watch (bits of `word`).
    @usableFromInline var mask: UInt64
    /// The properties this run read; 0 until the run reads the object (or when it skipped it).
    @usableFromInline var read: UInt64
    /// The object's write word loaded before this run's first read of it that the installed slots
    /// did not cover: a property outside `mask`, or one read during a write in flight (then the
    /// run's version: `versionIsThisRuns`). A read the slots cover needs none: the scope is armed
    /// and the slots stay installed, so a later write notifies it. Otherwise a version of an
    /// earlier run, with no write in flight (`ReusableScope.install` settles it), never compared.
    @usableFromInline var version: UInt64
    /// The slot, when the dependency has exactly one (`TrackingScope.forEachSlot`); `nil` when it
    /// has several, which are then found by scanning the object's slots.
    @usableFromInline var slot: UnsafeMutablePointer<Atomic<UInt64>>?
    /// Writes of the object begun by the running thread since `version` was loaded (meaningful
    /// only while it is the run's).
    @usableFromInline var ownWrites: UInt32
    /// Whether the installed slots are straddling (see `TrackedObject._writes`).
    @usableFromInline var straddling: Bool
    /// What the run that just ended did with it (`ReusableScope.reconcile`).
    @usableFromInline var fate = Fate.kept

    @usableFromInline @frozen
    enum Fate: UInt8 {
        /// Read in order: its slots stay.
        case kept
        /// Read out of order: the run's entry for it takes its slots over.
        case takenOver
        /// Not read: its slots are emptied and its object released.
        case dropped
    }

    init(
        object: UnsafeMutableRawPointer, mask: UInt64, read: UInt64, version: UInt64, word: UInt32, ownWrites: UInt32,
        slot: UnsafeMutablePointer<Atomic<UInt64>>?, straddling: Bool
    ) {
        precondition(UInt(bitPattern: object) >> 48 == 0, "object address above 48 bits")
        key = Self.key(object, word)
        self.mask = mask
        self.read = read
        self.version = version
        self.slot = slot
        self.ownWrites = ownWrites
        self.straddling = straddling
    }

    /// The object and word of a dependency, as one word (`key`).
    @inlinable @inline(__always)
    static func key(_ object: UnsafeMutableRawPointer, _ word: UInt32) -> UInt {
        UInt(bitPattern: object) | UInt(truncatingIfNeeded: word) &<< 48
    }

    /// The object, retained by the scope.
    var object: UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: key & (1 &<< 48 &- 1)).unsafelyUnwrapped
    }

    /// Which 64-property word of the object `mask` and `read` describe.
    var word: UInt32 { UInt32(truncatingIfNeeded: key &>> 48) }

    /// Dependency `i` of the buffer the thread state points to.
    @inlinable @inline(__always)
    static func at(_ base: UnsafeMutableRawPointer?, _ i: Int) -> UnsafeMutablePointer<Dependency> {
        base.unsafelyUnwrapped.assumingMemoryBound(to: Dependency.self) + i
    }

    /// The dependency at `address` (a `tracking_run` cursor).
    @inline(__always)
    static func at(_ address: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<Dependency> {
        address.unsafelyUnwrapped.assumingMemoryBound(to: Dependency.self)
    }

    /// The index of the dependency at `cursor` in the buffer at `base`.
    @inline(__always)
    static func index(_ cursor: UnsafeMutableRawPointer?, in base: UnsafeMutableRawPointer?) -> Int {
        at(base).distance(to: at(cursor))
    }

    /// A dependency on no object, left where a long list lost one (`DependencyStore.holes`): its
    /// key is no object's (as a sentinel's), so no read matches it and a run's cursor skips it; it
    /// has no slots, no retain and no properties.
    static var hole: Dependency {
        var hole = Dependency(
            object: UnsafeMutableRawPointer(bitPattern: UInt(TRACKING_NO_OBJECT)).unsafelyUnwrapped, mask: 0, read: 0,
            version: 0, word: 0, ownWrites: 0, slot: nil, straddling: false)
        hole.fate = .dropped
        return hole
    }

    /// Whether this is a hole (`hole`).
    var isHole: Bool { key == UInt(TRACKING_NO_OBJECT) }

    /// Whether `version` was loaded by this run: it read a property outside the installed slots,
    /// or read during a write in flight (an earlier run's version has none in flight).
    var versionIsThisRuns: Bool { read & ~mask != 0 || WriteWord.inFlight(version) != 0 }
}

extension UnsafeMutablePointer where Pointee == Dependency {
    /// The run's first read of this dependency, out of the getter (which keeps only the reads the
    /// slots cover): the write word loaded as the run's version, and the run reshaped if the slots
    /// do not cover the read.
    @inline(__always)
    func keep(_ bit: UInt64, of object: TrackedObject, _ thread: UnsafeMutablePointer<tracking_thread>) {
        pointee.read = bit
        loadVersion(of: object, thread)
        thread.pointee.run.reshaped |= Int(bitPattern: UInt(truncatingIfNeeded: bit & ~pointee.mask))
    }

    /// Loads `object`'s write word as the run's version (`Dependency.version`), the body's own writes
    /// counted from here; a write in flight reshapes the run. seq_cst: the reader's half of
    /// `ReusableScope.run`'s Dekker pair (the scope was armed first); a plain load on x86.
    @inline(__always)
    func loadVersion(of object: TrackedObject, _ thread: UnsafeMutablePointer<tracking_thread>) {
        let version = object._writes.load(ordering: .sequentiallyConsistent)
        pointee.version = version
        pointee.ownWrites = 0
        thread.pointee.run.reshaped |= Int(bitPattern: UInt(truncatingIfNeeded: WriteWord.inFlight(version)))
        // The window between the write word and the caller's load of the value.
        _schedulePoint()
    }

    /// A further read, of property `bit` of `object`'s `word`, if this is that object's dependency
    /// and the run already read it: the property is added to what the run read, and counted for
    /// `tracking_run.bitsRead` / `reshaped`. Returns whether it was.
    @inline(__always)
    func readAgain(
        _ object: UnsafeMutableRawPointer, _ word: UInt32, _ bit: UInt64, _ thread: UnsafeMutablePointer<tracking_thread>
    ) -> Bool {
        guard pointee.key == Dependency.key(object, word) else { return false }
        let read = pointee.read
        // A property read before in this run (the commonest repeated read) is counted already.
        if read & bit != 0 { return true }
        guard read != 0 else { return false }
        if bit & ~pointee.mask != 0 && !pointee.versionIsThisRuns {
            // The run's first read the slots do not cover: from here the write word decides
            // whether the reinstall missed a change (`Dependency.version`).
            Unmanaged<TrackedObject>.fromOpaque(object)._withUnsafeGuaranteedRef { loadVersion(of: $0, thread) }
        }
        pointee.read = read | bit
        thread.pointee.run.bitsRead &+= 1
        thread.pointee.run.reshaped |= Int(bitPattern: UInt(truncatingIfNeeded: bit & ~pointee.mask))
        return true
    }
}

/// A growable buffer of dependencies. It starts in a few slots set aside for its record
/// (`DependencyStore.inlineCapacity`), so a view that reads a few objects allocates nothing, and
/// grows into an allocation kept by the record for its later scopes.
///
/// Two sentinels precede `base` (`leadingSentinels`): a getter looks at the two dependencies before
/// the cursor with no bounds check (`TrackedObject._keepReadInline`), and finds no object there
/// when the cursor is at the first.
struct DependencyBuffer {
    var base: UnsafeMutablePointer<Dependency>
    var capacity: Int
    /// The record's own slots (after their leading sentinels), which are never freed.
    let inline: UnsafeMutablePointer<Dependency>

    /// Sentinels before the first dependency of every buffer, and of `tracking_no_dependencies_address()`.
    static let leadingSentinels = 2

    /// `region`: room for `leadingSentinels + capacity` dependencies.
    init(inline region: UnsafeMutablePointer<Dependency>, capacity: Int) {
        inline = Self.startAfterSentinels(region)
        base = inline
        self.capacity = capacity
    }

    /// Writes the leading sentinels at the start of `region`, and returns where the dependencies go.
    private static func startAfterSentinels(_ region: UnsafeMutablePointer<Dependency>) -> UnsafeMutablePointer<Dependency> {
        for i in 0..<leadingSentinels {
            UnsafeMutableRawPointer(region + i).storeBytes(of: UInt(TRACKING_NO_OBJECT), as: UInt.self)
        }
        return region + leadingSentinels
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
        if base != inline { (base - Self.leadingSentinels).deallocate() }
        base = Self.startAfterSentinels(.allocate(capacity: Self.leadingSentinels + grown))
        capacity = grown
    }

    /// Frees a buffer grown beyond what a typical view needs, so that a pooled record does not keep
    /// a large allocation for ever.
    mutating func shrink(above limit: Int) {
        guard capacity > limit, base != inline else { return }
        (base - Self.leadingSentinels).deallocate()
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
    /// `ReusableScope.holeRunLimit` of them the next run moves the list together instead.
    var runsWithHoles = 0
    /// The enclosing run's cursor while this scope runs nested in another scope's run (an
    /// outermost run restores the state of no run instead: `ReusableScope.run`).
    var enclosingRun = tracking_run()

    /// Dependencies each buffer holds without allocating: two, and the sentinel after them.
    static let inlineCapacity = 3

    /// The record's own slots for both buffers, with their leading sentinels.
    static let inlineRegion = 2 * (DependencyBuffer.leadingSentinels + inlineCapacity)

    /// `inline`: room for `inlineRegion` dependencies.
    init(inline: UnsafeMutablePointer<Dependency>) {
        dependencies = DependencyBuffer(inline: inline, capacity: Self.inlineCapacity)
        spare = DependencyBuffer(
            inline: inline + DependencyBuffer.leadingSentinels + Self.inlineCapacity, capacity: Self.inlineCapacity)
    }
}
