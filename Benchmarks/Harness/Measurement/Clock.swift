import Glibc

/// The monotonic clock in nanoseconds (`CLOCK_MONOTONIC`): one vDSO call, no allocation.
@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Keeps a value alive so the optimiser cannot delete the work that produced it.
@_optimize(none)
public func blackHole<T>(_ value: T) {}
