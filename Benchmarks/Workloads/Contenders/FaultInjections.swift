import LockFreeObservation

// Faults that `scripts/gate-selfcheck.sh` compiles into the build (`-Xswiftc -DBENCH_SELFCHECK_...`),
// to prove that the regression gate catches them:
//
// - BENCH_SELFCHECK_SLOW_TRACKED_READ: names a build of a scratch copy of the checkout whose
//   `TrackedObject.trackAccess`, which every `lockfree` getter calls (the models are
//   `@TrackedModel`'s), records each read twice (the tracked read 2x). The script patches the
//   copy; the library's sources have no such switch.
// - BENCH_SELFCHECK_EXTRA_ALLOCATION: one allocation per evaluated scope.
// - BENCH_SELFCHECK_EXTRA_NOTIFICATION: every notification of an evaluated scope delivered twice.
//
// A build with any of them measures something other than the code you ship: `bench` says so
// loudly, records them in the run's metadata (`faultInjections`), and `check` refuses such a run
// as a baseline.

/// The fault injections compiled into this build; empty for every build you measure.
public let faultInjections: [String] = {
    var names: [String] = []
    #if BENCH_SELFCHECK_SLOW_TRACKED_READ
        names.append("BENCH_SELFCHECK_SLOW_TRACKED_READ")
    #endif
    #if BENCH_SELFCHECK_EXTRA_ALLOCATION
        names.append("BENCH_SELFCHECK_EXTRA_ALLOCATION")
    #endif
    #if BENCH_SELFCHECK_EXTRA_NOTIFICATION
        names.append("BENCH_SELFCHECK_EXTRA_NOTIFICATION")
    #endif
    return names
}()

#if BENCH_SELFCHECK_EXTRA_ALLOCATION
    /// The self-check's deliberate allocation per evaluated scope: a block allocated and freed, with
    /// no shared state (threads evaluate at once), out of line so that the optimiser keeps it.
    @usableFromInline @inline(never)
    func _selfCheckAllocation() {
        let block = UnsafeMutablePointer<UInt64>.allocate(capacity: 2)
        block.initialize(repeating: 0, count: 2)
        block.deallocate()
    }
#endif

#if BENCH_SELFCHECK_EXTRA_NOTIFICATION
    /// Delivers each notification twice (the self-check's changed counts).
    @usableFromInline
    final class _DoubleNotifier<Observer: ChangeObserver>: ChangeObserver {
        @usableFromInline let observer: Observer
        @usableFromInline init(_ observer: Observer) { self.observer = observer }
        @usableFromInline func observedValueWillChange() {
            observer.observedValueWillChange()
            observer.observedValueWillChange()
        }
    }
#endif
