import Synchronization

/// The base class of models observed with the lock-free registrar.
///
/// Declare a model with ``TrackedModel()``, which tracks every stored `var`:
///
/// ```swift
/// @TrackedModel final class Book: TrackedObject {
///     var title = ""
///     var isAvailable = true
/// }
/// ```
///
/// Hand-written accessors are possible too: ``trackAccess(_:)`` before the read,
/// ``willMutate(_:)`` and ``didMutate(_:)`` around the store (or ``withMutation(_:_:)``), each with
/// a property index no other property of the class hierarchy has.
///
/// The registrar's state lives inline in the object (three words; a tracked read writes none of
/// them), so creating and destroying a model allocates nothing beyond the object itself. Observer
/// slots are allocated on the object's first observation and freed with it. When the object is
/// deallocated, its observers are dropped without being called, as Observation drops them, and an
/// observation left watching no living object is cancelled, which releases its callback.
///
/// A model's `Equatable`, `Hashable` and `Codable` conformances are its own: the base class
/// imposes none.
///
/// ## Thread safety
///
/// Not `Sendable`, like an `@Observable` class. The registrar's state is atomic: reads may be
/// tracked on several threads while others write, with no lock. The subclass's stored properties
/// are the app's to synchronise, as any class's. A write tells the scopes that read the property
/// synchronously, on the writing thread.
open class TrackedObject {
    // Not `Sendable`, like `@Observable` classes: the registrar state below is atomic and safe to
    // share, but the subclass's properties are the app's to synchronise.

    /// The object's writes, a `WriteWord`:
    ///
    ///     bits 25..<64  begun       writes counted (wrapping; compared for equality only)
    ///     bit  24       straddled   a scope left a straddling slot; the end of a write scans
    ///     bits  0..<24  in flight   writes of observed properties begun and not ended
    ///
    /// Every change is a read-modify-write, so the word has one modification order, and every
    /// later change continues the release sequence of an earlier one. A write takes one of two
    /// protocols, chosen by its property's bit in the observed mask (`_slots`) when it is announced:
    ///
    /// - **Unobserved** (the fast path): store, then `begun` + 1 (seq_cst), then the mask loaded
    ///   (seq_cst) and, if the bit is set now, the slots scanned (seq_cst loads) and every scope
    ///   found notified, after the store. **A scope reads** the object: it loads this word
    ///   (acquire) *before* reading the value, as `entry.version`. **It installs**: slots written
    ///   (seq_cst), mask published (seq_cst), this word loaded (seq_cst). If the read's load saw the
    ///   increment, it saw the store (release, acquire). If not, Dekker's pattern in the single
    ///   total order of seq_cst operations: either the install's load comes after the increment
    ///   (it sees `begun` moved and reports the change itself) or the writer's mask and slot loads
    ///   come after the install's writes (the writer notifies the scope). The slot and block-link
    ///   loads are seq_cst themselves, so this holds in the memory model when the mask bit was
    ///   already set, not only on x86 (where seq_cst loads are plain loads).
    /// - **Observed** (willSet): `begun` + 1 and `in flight` + 1 (seq_cst), the slots scanned
    ///   (seq_cst) and the scopes found notified before the store; then the store; then `in flight`
    ///   - 1 (acquire-release). A scope that installs afterwards but read before the increment sees
    ///   `begun` moved, or was found by the scan (the same Dekker pair). A scope whose read saw
    ///   the write *in flight* may hold the old value with the store still to come: it publishes
    ///   its slots as *straddling* and ORs `straddled` in (seq_cst read-modify-write) instead of
    ///   loading. If the OR comes after the end of a write in flight at the read, the counts differ
    ///   and the scope reports the change itself. If it comes first, each such write's end finds
    ///   `straddled` set (acquire, so it sees the slots) and notifies the straddling slots that
    ///   watch its property, after its store. A writer that served straddlers clears `straddled`
    ///   by compare-and-swap if `in flight` is 0 then: every scope that set it while writes were
    ///   in flight has been served by their ends, which all came first.
    ///
    /// A reusable scope's kept read (`_keepReadInline`) loads none of this: its slots stay
    /// installed between runs, so the observed protocol's scan finds it. A write counts itself in
    /// flight process-wide too (`tracking_observed_writes_in_flight`: + 1 seq_cst before `begun`,
    /// - 1 release after its end), and each run loads that count (seq_cst) after arming
    /// (`ReusableScope.arm`'s seq_cst fence). If the load sees 0, every write in flight during the
    /// run counted itself after it, so its scan comes after the arming in the single total order
    /// and sees the scope armed: it notifies it, before its store; and a write whose end the load
    /// saw had stored (release, acquire). If the load sees a write in flight, the run holds its
    /// cursor away from the getters and every read looks at this word as above (straddling).
    ///
    /// So a scope is told of every write that could have made a value it read stale: before the
    /// store when the writer sees it (willSet); after the store for a scope that raced the write
    /// (installed during it, typically re-armed inside an `onChange`, and holding the old value);
    /// or at its own install. The price is a spurious report when another property of the same
    /// object was written around the read. `begun` wraps after 2^39 writes: a scope would have to
    /// see exactly that many writes of one object between its first read and its install to miss
    /// one.
    @usableFromInline let _writes = Atomic<UInt64>(0)
    /// A `SlotsWord`: the observed mask and the address of lane 0's first `SlotBlock`.
    ///
    /// The mask's bit for property `p` (`p % 16`) is set once `p` (or another property with the
    /// same bit) has had an observer: a mutation whose bit is clear returns after one load. Set by
    /// installs (seq_cst OR after the slot is written) and never cleared while the object lives:
    /// clearing would open a window in which a concurrent mutation misses an observer being
    /// published. A property that was observed once pays, on mutation, a scan of the object's few
    /// slots instead of one load. The address is set once, by compare-and-swap (keeping the mask).
    @usableFromInline let _slots = Atomic<UInt>(0)
    /// The first `SlotBlock`'s address of lane 1's chain, or 0, set once. Threads install in the chain of their lane (`tracking_lane`),
    /// each chain's first block on a cache line of its own, so that two threads tracking the same
    /// objects claim slots without taking each other's line (one-shot scopes claim a slot per
    /// object per evaluation). Writers scan both; a thread that tracks alone uses one.
    @usableFromInline let _laneSlots = Atomic<UInt>(0)

    /// The number of indices a tracked property can take: indices run from 0 to 32,767.
    ///
    /// ``trackAccess(_:)`` checks its index when a read is first recorded in a scope, and
    /// ``willMutate(_:)`` at every write (for free with a literal index, which the optimiser checks
    /// at compile time); an index out of range is a precondition failure.
    @inlinable public static var propertyLimit: Int { SlotContent.propertyLimit }

    /// The property indices `@TrackedModel` has given this class and its superclasses: a model's
    /// properties take the indices from its superclass's end on. 0 here. Dispatched on a class
    /// named in the code (`Book._trackedPropertyEnd`), it folds to a constant.
    ///
    /// Overridden by ``TrackedModel()``. A class with hand-written accessors that subclasses a
    /// model numbers its properties from its superclass's `_trackedPropertyEnd` on.
    @inlinable open class var _trackedPropertyEnd: Int { 0 }

    /// Creates an object that nothing observes yet.
    ///
    /// Allocates nothing beyond the object: its observer slots come with its first observation.
    public init() {}

    deinit {
        // No other thread can reach the object now, so its blocks can go. Observers still in them
        // are dropped silently, as Apple's registrar drops them; a scope that loses its last
        // object is closed so that its callback is released.
        let head = SlotsWord.address(_slots.load(ordering: .acquiring))
        let laneHead = _laneSlots.load(ordering: .acquiring)
        if head | laneHead != 0 {
            Self._releaseChain(head)
            Self._releaseChain(laneHead)
        }
    }

    /// Frees the chain of blocks that starts at `head` (0: none), telling each live scope found.
    private static func _releaseChain(_ head: UInt) {
        var block = SlotBlock(address: head)
        while let current = block {
            block = current.following
            for i in 0..<current.capacity {
                let raw = current.slot(i).pointee.load(ordering: .acquiring)
                if raw != 0 { TrackingScope.objectWentAway(SlotContent(raw: raw)) }
            }
            current.deallocate()
        }
    }
}
