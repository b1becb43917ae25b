#if Jemalloc
    import CJemalloc
#endif

/// The process's malloc calls so far, from jemalloc's statistics (`stats.arenas.<all>.{small,large}
/// .nrequests`, after this thread's cache is flushed and the statistics refreshed); `nil` without
/// jemalloc. The probe's only other thread is idle, so the count is this thread's.
enum MallocCount {
    static func now() -> UInt64? {
        #if Jemalloc
            var one: UInt64 = 1
            guard mallctl("thread.tcache.flush", nil, nil, nil, 0) == 0,
                mallctl("epoch", nil, nil, &one, MemoryLayout<UInt64>.size) == 0
            else { return nil }
            var total: UInt64 = 0
            for name in ["stats.arenas.4096.small.nrequests", "stats.arenas.4096.large.nrequests"] {
                var value: UInt64 = 0
                var size = MemoryLayout<UInt64>.size
                guard mallctl(name, &value, &size, nil, 0) == 0 else { return nil }
                total += value
            }
            return total
        #else
            return nil
        #endif
    }
}
