import Synchronization

/// A block of observer slots of one object, in raw memory:
///
///     offset  0  next      Atomic<UInt>   the next block's address, 0 for none; set once (CAS)
///     offset  8  capacity  Int            slots in this block, fixed at allocation
///     offset 16  hint      Atomic<Int>    first block only: where an install starts looking
///     offset 24  slots     Atomic<UInt64> x capacity, each a `SlotContent` or 0
///
/// Blocks are only ever appended while the object lives, and freed together in its `deinit`, when
/// no other thread can reach the object any more. Slots are reused in place by compare-and-swap.
@usableFromInline
struct SlotBlock {
    @usableFromInline let base: UnsafeMutableRawPointer

    @inlinable init(_ base: UnsafeMutableRawPointer) { self.base = base }

    @inlinable init?(address: UInt) {
        guard let base = UnsafeMutableRawPointer(bitPattern: address) else { return nil }
        self.base = base
    }

    static let firstCapacity = 4
    static let largestCapacity = 1024

    /// A chain's first block (56 bytes) is aligned to a cache line of its own: the slots a lane's
    /// threads claim share no line with another allocation (`TrackedObject._laneSlots`).
    static func allocate(capacity: Int) -> SlotBlock {
        let alignment = capacity == firstCapacity ? 64 : 16
        let base = UnsafeMutableRawPointer.allocate(byteCount: 24 + 8 * capacity, alignment: alignment)
        precondition(SlotsWord.fits(UInt(bitPattern: base)), "a slot block above 2^48")
        base.bindMemory(to: Atomic<UInt>.self, capacity: 1).initialize(to: Atomic(0))
        base.storeBytes(of: capacity, toByteOffset: 8, as: Int.self)
        (base + 16).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        let slots = (base + 24).bindMemory(to: Atomic<UInt64>.self, capacity: capacity)
        for i in 0..<capacity { (slots + i).initialize(to: Atomic(0)) }
        return SlotBlock(base)
    }

    func deallocate() { base.deallocate() }

    @inlinable var next: UnsafeMutablePointer<Atomic<UInt>> {
        base.assumingMemoryBound(to: Atomic<UInt>.self)
    }

    @inlinable var capacity: Int { base.load(fromByteOffset: 8, as: Int.self) }

    @inlinable var hint: UnsafeMutablePointer<Atomic<Int>> {
        (base + 16).assumingMemoryBound(to: Atomic<Int>.self)
    }

    @inlinable func slot(_ i: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (base + 24).assumingMemoryBound(to: Atomic<UInt64>.self) + i
    }

    /// The block after this one. seq_cst: pairs with the seq_cst append, and orders the load in
    /// the writer's Dekker half (see `TrackedObject._writes`).
    @inlinable var following: SlotBlock? {
        SlotBlock(address: next.pointee.load(ordering: .sequentiallyConsistent))
    }
}
