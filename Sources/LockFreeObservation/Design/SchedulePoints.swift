#if REGISTRAR_SCHEDULE_POINTS
    import CTrackingSupport
    import Glibc
#endif

// Schedule points: where the registrar's race windows are. In a build with the `SchedulePoints`
// trait (`swift test --traits SchedulePoints`, which defines REGISTRAR_SCHEDULE_POINTS), each one
// yields the processor now and then, so that another thread runs inside the window and the stress
// tests hit the interleavings often, not by luck (Rust's loom swaps its atomics the same way under
// `cfg(loom)`). They cannot change a result, only the schedule; by default they compile to nothing,
// and `bench` refuses to measure a build that has them.

#if REGISTRAR_SCHEDULE_POINTS
    /// Whether this build widens the registrar's race windows (the `SchedulePoints` trait).
    package let registrarHasSchedulePoints = true

    /// Yields on about one call in four, chosen by a per-thread sequence (no shared write, no fence,
    /// which would hide the reorderings the tests look for).
    @usableFromInline
    func _schedulePoint() {
        let thread = registrarThread()
        thread.pointee.scheduleTicket =
            thread.pointee.scheduleTicket &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        if thread.pointee.scheduleTicket >> 62 == 0 { sched_yield() }
    }
#else
    /// Whether this build widens the registrar's race windows (the `SchedulePoints` trait).
    package let registrarHasSchedulePoints = false

    @inlinable @inline(__always)
    func _schedulePoint() {}
#endif
