import CTrackingSupport
import Synchronization

/// All scope records of the process, in chunks that are allocated on demand and never freed.
///
/// Memory reclamation scheme: type-stable memory. A record is never returned to the allocator, only
/// recycled through a lock-free free list with its generation bumped, so any thread may read a
/// record from a stale slot at any time; the generation check decides whether the slot still means
/// anything. The table grows to the largest number of scopes alive at once and stays there.
@usableFromInline
final class ScopeTable: @unchecked Sendable {
    // `@unchecked Sendable`: `chunks` is immutable after init and every word it points to is atomic.
    @usableFromInline static let shared = ScopeTable()

    static let chunkShift = 10
    static let chunkSize = 1 << chunkShift
    static let chunkCount = 1 << 14  // 16M records at most, the limit of `SlotContent.record`.

    /// Chunk pointers, published once with release and read with acquire.
    let chunks: UnsafeMutablePointer<Atomic<UInt>>
    /// The records' dependency stores, a chunk of them for each chunk of records whose records
    /// serve reusable scopes, allocated by the first such scope (published as `chunks`).
    let storeChunks: UnsafeMutablePointer<Atomic<UInt>>
    /// The free list's head: bits 0..<32 the first free index (0: empty), bits 32..<64 a tag bumped
    /// by every push and pop so that a compare-and-swap never succeeds on a recycled head (ABA).
    let freeHead = Atomic<UInt64>(0)
    /// The next never-used index; index 0 is never used.
    let nextIndex = Atomic<UInt32>(1)
    /// Records retired at the generation limit (diagnostics and tests).
    let retired = Atomic<Int>(0)

    /// Private: there is one table per process (`shared`), whose chunks the C globals publish.
    private init() {
        chunks = .allocate(capacity: Self.chunkCount)
        for i in 0..<Self.chunkCount { (chunks + i).initialize(to: Atomic(0)) }
        storeChunks = .allocate(capacity: Self.chunkCount)
        for i in 0..<Self.chunkCount { (storeChunks + i).initialize(to: Atomic(0)) }
        // The one table of the process: `record(_:)` and `store(_:)` reach its chunks through the
        // C globals, without `shared`'s lazy-initialisation check.
        Registrar.publishChunks(UnsafeMutableRawPointer(chunks), UnsafeMutableRawPointer(storeChunks))
    }

    /// The record at `index`, which must have been handed out by `acquire()` (so the table, and
    /// the C globals it published, exist).
    @inline(__always)
    static func record(_ index: UInt32) -> UnsafeMutablePointer<ScopeRecord> {
        let chunks = Registrar.scopeChunks.unsafelyUnwrapped.assumingMemoryBound(to: Atomic<UInt>.self)
        // Acquire: pairs with the release publication of the chunk.
        let chunk = chunks[Int(index) >> chunkShift].load(ordering: .acquiring)
        return UnsafeMutablePointer<ScopeRecord>(bitPattern: chunk).unsafelyUnwrapped + (Int(index) & (chunkSize - 1))
    }

    /// The dependency store of the record at `index`: only its reusable scope's owner touches it.
    /// Its chunk is made by the first reusable scope among the chunk's records (`makeStoreChunk`).
    @inline(__always)
    static func store(_ index: UInt32) -> UnsafeMutablePointer<DependencyStore> {
        let storeChunks = Registrar.storeChunks.unsafelyUnwrapped.assumingMemoryBound(to: Atomic<UInt>.self)
        let chunkIndex = Int(index) >> chunkShift
        // Acquire: pairs with the release publication of the chunk.
        var chunk = storeChunks[chunkIndex].load(ordering: .acquiring)
        if _slowPath(chunk == 0) { chunk = makeStoreChunk(chunkIndex, storeChunks) }
        return UnsafeMutablePointer<DependencyStore>(bitPattern: chunk).unsafelyUnwrapped
            + (Int(index) & (chunkSize - 1))
    }

    /// Allocates and publishes the dependency stores of chunk `chunkIndex`, or takes the ones
    /// another thread published first. Returns the chunk's address.
    @inline(never)
    static func makeStoreChunk(_ chunkIndex: Int, _ storeChunks: UnsafeMutablePointer<Atomic<UInt>>) -> UInt {
        // The stores, then their inline dependency slots, in one allocation.
        let storeBytes = MemoryLayout<DependencyStore>.stride * chunkSize
        let slotsOffset = (storeBytes + 63) & ~63
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: slotsOffset + DependencyStore.inlineRegionBytes * chunkSize, alignment: 64)
        let stores = raw.bindMemory(to: DependencyStore.self, capacity: chunkSize)
        for i in 0..<chunkSize {
            (stores + i).initialize(
                to: DependencyStore(inline: raw + slotsOffset + DependencyStore.inlineRegionBytes * i))
        }
        // Release on success publishes the initialised stores; the loser frees its own.
        let (exchanged, current) = storeChunks[chunkIndex].compareExchange(
            expected: 0, desired: UInt(bitPattern: raw), successOrdering: .releasing, failureOrdering: .acquiring)
        if exchanged { return UInt(bitPattern: raw) }
        raw.deallocate()
        return current
    }

    /// Takes a free record: its index, and its state (phase free). Lock-free.
    @usableFromInline
    func acquire() -> (index: UInt32, state: ScopeState) {
        var head = freeHead.load(ordering: .acquiring)
        while UInt32(truncatingIfNeeded: head) != 0 {
            let index = UInt32(truncatingIfNeeded: head)
            // The record is type-stable, so reading `nextFree` of a record popped meanwhile is safe;
            // the tag makes the exchange below fail in that case.
            let next = Self.record(index).pointee.nextFree.load(ordering: .relaxed)
            let newHead = (head >> 32 &+ 1) << 32 | UInt64(next)
            // Acquire on success: pairs with the releasing push, so the recycler's writes are visible.
            let (exchanged, current) = freeHead.weakCompareExchange(
                expected: head, desired: newHead, successOrdering: .acquiring, failureOrdering: .acquiring)
            if exchanged {
                return (index, ScopeState(raw: Self.record(index).pointee.state.load(ordering: .relaxed)))
            }
            head = current
        }
        return (fresh(), ScopeState(raw: 0))
    }

    /// Returns a record whose in-flight count reached 0 in phase closing to the free list, as
    /// `free(generation + 1)`; a record whose next generation would reach
    /// `ScopeState.generationLimit` is retired instead (left free, never handed out again), so that
    /// the generation a slot stores stays exact. One record (under 100 bytes) retires per 8M scopes it
    /// served; the 16M-record table would take 10^14 scopes to fill with retired records.
    @usableFromInline
    func recycle(_ index: UInt32, from state: ScopeState) {
        let rec = Self.record(index)
        rec.clearCallback()
        let recycled = state.recycled
        recycled._checkInvariants()
        // Relaxed: the releasing push below publishes it; a retired record is published by nothing
        // and needs nothing published (no thread will arm it, stale readers only see it unarmed).
        rec.pointee.state.store(recycled.raw, ordering: .relaxed)
        if recycled.generation >= ScopeState.generationLimit {
            retired.add(1, ordering: .relaxed)
            return
        }
        var head = freeHead.load(ordering: .relaxed)
        while true {
            rec.pointee.nextFree.store(UInt32(truncatingIfNeeded: head), ordering: .relaxed)
            let newHead = (head >> 32 &+ 1) << 32 | UInt64(index)
            // Release: publishes the cleared payload and `nextFree` to the next `acquire()`.
            let (exchanged, current) = freeHead.weakCompareExchange(
                expected: head, desired: newHead, successOrdering: .releasing, failureOrdering: .relaxed)
            if exchanged { return }
            head = current
        }
    }

    /// Cancels the incarnation of record `index` that `state` (a load of its word) shows, while
    /// `open` holds for the word seen: moves it to closing (acquire-release: a canceller sees the
    /// callbacks' payload as the claimers do, and publishes the cancel), and recycles it if no
    /// callback is in flight. Returns whether it did.
    @inline(__always)
    static func close(_ index: UInt32, from state: ScopeState, while open: (ScopeState) -> Bool) -> Bool {
        let record = Self.record(index)
        var current = state
        while open(current) {
            let closing = current.cancelled
            let (exchanged, seen) = record.pointee.state.compareExchange(
                expected: current.raw, desired: closing.raw, ordering: .acquiringAndReleasing)
            if exchanged {
                closing._checkInvariants()
                if closing.isDone { shared.recycle(index, from: closing) }
                return true
            }
            current = ScopeState(raw: seen)
        }
        return false
    }

    /// Test hook: sets the generation of a record that is free, so that a test can reach the
    /// generation limit without recycling it 8M times. The caller must own the record (it has
    /// just recycled it and no other thread takes records meanwhile, or it retries).
    func _fastForward(_ index: UInt32, toGeneration generation: UInt32) -> Bool {
        let rec = Self.record(index)
        let current = ScopeState(raw: rec.pointee.state.load(ordering: .acquiring))
        guard current.isFree, generation < ScopeState.generationLimit else { return false }
        return rec.pointee.state.compareExchange(
            expected: current.raw, desired: ScopeState(generation: generation, phase: .free).raw,
            ordering: .acquiringAndReleasing
        ).exchanged
    }

    /// A never-used index, allocating its chunk when it is the first of one.
    private func fresh() -> UInt32 {
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        precondition(Int(index) < Self.chunkCount << Self.chunkShift, "more than 16M tracking scopes alive at once")
        let chunkIndex = Int(index) >> Self.chunkShift
        if chunks[chunkIndex].load(ordering: .acquiring) == 0 {
            let chunk = UnsafeMutablePointer<ScopeRecord>.allocate(capacity: Self.chunkSize)
            for i in 0..<Self.chunkSize { (chunk + i).initialize(to: ScopeRecord()) }
            // Release on success publishes the initialised records; the loser frees its own chunk.
            let (exchanged, _) = chunks[chunkIndex].compareExchange(
                expected: 0, desired: UInt(bitPattern: chunk), successOrdering: .releasing,
                failureOrdering: .acquiring)
            if !exchanged {
                _ = chunk.deinitialize(count: Self.chunkSize)
                chunk.deallocate()
            }
        }
        return index
    }
}
