#if Jemalloc
    import CJemalloc
#endif

/// Allocation counts read from jemalloc: malloc calls, bytes allocated, bytes live in the heap.
///
/// Calls are `stats.arenas.<all>.{small,large}.nrequests` after a `thread.tcache.flush` and an
/// `epoch` write: exact for this thread, and exact for all threads when the process runs with
/// `MALLOC_CONF=tcache:false` (the counting child does). Bytes are this thread's running total
/// (`thread.allocatedp`). Without the `Jemalloc` trait every reading is `nil`: unavailable, never 0.
public struct AllocationCounter {
    /// A reading of the counters at one instant.
    public struct Reading: Sendable, Equatable {
        public var mallocs: UInt64
        public var bytes: UInt64
    }

    #if Jemalloc
        private var smallRequests: [Int]
        private var largeRequests: [Int]
        private var flushMIB: [Int]
        private var epochMIB: [Int]
        private var allocatedMIBs: [[Int]]
        private let allocatedPointer: UnsafeMutablePointer<UInt64>?
    #endif

    /// Whose allocations are counted.
    public enum Scope: Sendable {
        /// Every thread's (exact for other threads only under `MALLOC_CONF=tcache:false`).
        case process
        /// Only the calling thread's: binds it to a fresh arena of its own and counts that arena.
        /// Exact even while other threads allocate (as in a parallel test run).
        case callingThread
    }

    /// `nil` when allocation counting is unavailable (built without jemalloc, or mallctl failed).
    public init?(scope: Scope = .process) {
        #if Jemalloc
            func mib(_ name: String) -> [Int]? {
                var m = [Int](repeating: 0, count: 8)
                var length = m.count
                guard mallctlnametomib(name, &m, &length) == 0 else { return nil }
                return Array(m.prefix(length))
            }
            var arena = "4096"  // MALLCTL_ARENAS_ALL
            if scope == .callingThread {
                var index: UInt32 = 0
                var size = MemoryLayout<UInt32>.size
                guard mallctl("arenas.create", &index, &size, nil, 0) == 0,
                    mallctl("thread.arena", nil, nil, &index, MemoryLayout<UInt32>.size) == 0
                else { return nil }
                arena = String(index)
                // The statistics know a new arena only after the next epoch.
                var one: UInt64 = 1
                guard mallctl("epoch", nil, nil, &one, MemoryLayout<UInt64>.size) == 0 else { return nil }
            }
            let live =
                scope == .process
                ? [mib("stats.allocated")]
                : [mib("stats.arenas.\(arena).small.allocated"), mib("stats.arenas.\(arena).large.allocated")]
            guard let s = mib("stats.arenas.\(arena).small.nrequests"),
                let l = mib("stats.arenas.\(arena).large.nrequests"),
                let f = mib("thread.tcache.flush"), let e = mib("epoch"), !live.contains(where: { $0 == nil })
            else { return nil }
            smallRequests = s
            largeRequests = l
            flushMIB = f
            epochMIB = e
            allocatedMIBs = live.compactMap { $0 }
            var pointer: UnsafeMutablePointer<UInt64>?
            var size = MemoryLayout<UnsafeMutablePointer<UInt64>?>.size
            guard mallctl("thread.allocatedp", &pointer, &size, nil, 0) == 0 else { return nil }
            allocatedPointer = pointer
        #else
            return nil
        #endif
    }

    /// Why counting is unavailable, for reports; `nil` when it is available.
    public static var unavailableReason: String? {
        #if Jemalloc
            AllocationCounter() == nil ? "jemalloc's mallctl statistics could not be read" : nil
        #else
            "built without the Jemalloc trait (allocation metrics unavailable)"
        #endif
    }

    /// The allocator linked into this process, e.g. `jemalloc 5.3.0-0-g54eaed1d`.
    public static var allocatorName: String {
        #if Jemalloc
            var version: UnsafePointer<CChar>?
            var size = MemoryLayout<UnsafePointer<CChar>?>.size
            if mallctl("version", &version, &size, nil, 0) == 0, let version {
                return "jemalloc " + String(cString: version)
            }
            return "jemalloc (unknown version)"
        #else
            return "system malloc"
        #endif
    }

    /// Reads the counters now. Flushes this thread's cache first so its requests are merged.
    public func read() -> Reading {
        #if Jemalloc
            flush()
            refresh()
            return Reading(mallocs: value(smallRequests) + value(largeRequests), bytes: allocatedPointer?.pointee ?? 0)
        #else
            return Reading(mallocs: 0, bytes: 0)
        #endif
    }

    /// Bytes currently allocated by the application: in the whole process (`stats.allocated`), or
    /// for `.callingThread` in its own arena (small + large allocated). Flushes this thread's cache
    /// first: regions it holds count as allocated until they go back to the arena.
    public func liveBytes() -> UInt64 {
        #if Jemalloc
            flush()
            refresh()
            return allocatedMIBs.reduce(0) { total, mib in
                var v = 0
                var size = MemoryLayout<Int>.size
                mib.withUnsafeBufferPointer { _ = mallctlbymib($0.baseAddress, $0.count, &v, &size, nil, 0) }
                return total + UInt64(v)
            }
        #else
            return 0
        #endif
    }

    #if Jemalloc
        private func flush() {
            flushMIB.withUnsafeBufferPointer { _ = mallctlbymib($0.baseAddress, $0.count, nil, nil, nil, 0) }
        }

        private func refresh() {
            var one: UInt64 = 1
            epochMIB.withUnsafeBufferPointer {
                _ = mallctlbymib($0.baseAddress, $0.count, nil, nil, &one, MemoryLayout<UInt64>.size)
            }
        }

        private func value(_ mib: [Int]) -> UInt64 {
            var v: UInt64 = 0
            var size = MemoryLayout<UInt64>.size
            mib.withUnsafeBufferPointer { _ = mallctlbymib($0.baseAddress, $0.count, &v, &size, nil, 0) }
            return v
        }
    #endif
}

/// The start-up self-test: allocating `count` class instances must count at least `count` mallocs
/// and not many more. Guards against counters that silently read 0 after a build change.
public enum AllocationSelfTest {
    private final class Probe { var value = 0 }

    /// Returns the mallocs counted for `count` allocations, or throws when they are implausible.
    /// Returns `nil` when counting is unavailable.
    @discardableResult
    public static func run(count: Int = 1000) throws -> UInt64? {
        guard let counter = AllocationCounter(scope: .callingThread) else { return nil }
        var probes: [Probe] = []
        probes.reserveCapacity(count)
        let before = counter.read()
        for _ in 0..<count { probes.append(Probe()) }
        let after = counter.read()
        blackHole(probes)
        let counted = after.mallocs - before.mallocs
        guard counted >= UInt64(count), counted <= UInt64(count + count / 10) else {
            throw SelfTestFailure(expected: count, counted: counted)
        }
        return counted
    }
}

/// The allocation counters did not count what was allocated.
public struct SelfTestFailure: Error, CustomStringConvertible {
    public var expected: Int
    public var counted: UInt64
    public var description: String {
        "allocation counter self-test failed: \(expected) allocations counted as \(counted) mallocs (is jemalloc really linked?)"
    }
}
