import Synchronization

/// The base class of models observed with the lock-free registrar.
///
/// Its registrar state lives inline in the object (four words), so creating and destroying a model
/// allocates nothing beyond the object itself; observer slots are allocated on first observation.
///
/// Declare properties with `@Tracked(index)`, one small distinct index per property of the class
/// hierarchy (0, 1, 2, ...). A property without a default value is set up in `init` with
/// `_name = Tracked(value, index)`:
///
///     final class Book: TrackedObject {
///         @Tracked(0) var title = ""
///         @Tracked(1) var isAvailable = true
///     }
///
/// Models are compared by identity (`==` is `===`), as `@Observable`'s setter compares objects.
open class TrackedObject {
    // Not `Sendable`, like `@Observable` classes: the registrar state below is atomic and safe to
    // share, but the subclass's properties are the app's to synchronise.

    /// Bit `p % 64` is set once property `p` (or another property with the same bit) has had an
    /// observer: a mutation whose bit is clear returns after one load. Set by installs (seq_cst OR
    /// after the slot is written) and never cleared while the object lives: clearing would open a
    /// window in which a concurrent mutation misses an observer being published. A property that
    /// was observed once pays, on mutation, a scan of the object's few slots instead of one load.
    @usableFromInline let _observed = Atomic<UInt64>(0)
    /// Mutation version: incremented (seq_cst) at every willSet, before the observed mask is loaded.
    /// A scope records it at its first read and re-checks it after publishing its observers: with the
    /// mask load this is Dekker's pattern, so either the mutation sees the new observer or the scope
    /// sees the new version. That is what closes the lost-change race of Apple's registrar.
    @usableFromInline let _version = Atomic<UInt64>(0)
    /// 1 + the index of this object's entry in the reading thread's access buffer (a hint, verified
    /// before use), so a repeated tracked read finds its entry without a search.
    @usableFromInline let _entryHint = Atomic<Int>(0)
    /// The first `SlotBlock`'s address, or 0. Set once by compare-and-swap.
    @usableFromInline let _slots = Atomic<UInt>(0)

    public init() {}

    deinit {
        // No other thread can reach the object now, so its blocks can go. Observers still in them
        // are dropped silently, as Apple's registrar drops them; a scope that loses its last
        // object is closed so that its callback is released.
        var block = SlotBlock(address: _slots.load(ordering: .acquiring))
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

extension TrackedObject: Equatable {
    public static func == (lhs: TrackedObject, rhs: TrackedObject) -> Bool { lhs === rhs }
}
