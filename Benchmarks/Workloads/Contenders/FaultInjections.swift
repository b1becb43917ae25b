import Harness
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
// - BENCH_SELFCHECK_SLOW_BENCHMARK: one benchmark, `lockfree`'s `trees/kairo-deep`, does a fifth
//   more work per operation, on a second instance of its own whose counts are not reported (20%
//   slower in time and instructions; its counts stand): what `bench compare` of a default run
//   must list.
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
    #if BENCH_SELFCHECK_SLOW_BENCHMARK
        names.append("BENCH_SELFCHECK_SLOW_BENCHMARK")
    #endif
    return names
}()

/// `benchmarks` as this build measures them: with BENCH_SELFCHECK_SLOW_BENCHMARK, `lockfree`'s
/// `trees/kairo-deep` does 6 operations' work for every 5 it is asked for.
func withFaultInjections(_ benchmarks: [Benchmark]) -> [Benchmark] {
    #if BENCH_SELFCHECK_SLOW_BENCHMARK
        return benchmarks.map { benchmark in
            guard benchmark.family == "trees/kairo-deep", benchmark.contender == LockFree.name else {
                return benchmark
            }
            var slowed = benchmark
            let make = benchmark.make
            slowed.make = { parameters in _SlowedInstance(try make(parameters), extra: try make(parameters)) }
            return slowed
        }
    #else
        return benchmarks
    #endif
}

#if BENCH_SELFCHECK_SLOW_BENCHMARK
    /// An instance that does a fifth more work per operation, on `extra`, whose counts are not
    /// reported.
    final class _SlowedInstance: BenchmarkInstance {
        let inner: any BenchmarkInstance
        let extra: any BenchmarkInstance
        init(_ inner: any BenchmarkInstance, extra: any BenchmarkInstance) {
            self.inner = inner
            self.extra = extra
        }
        func run(operations: Int) throws -> Int {
            try inner.run(operations: operations) &+ extra.run(operations: max(1, operations / 5))
        }
        var counts: InvalidationCounts { inner.counts }
        var extraMetrics: [String: Double] { inner.extraMetrics }
        var measuredMetrics: [MeasuredMetric] { inner.measuredMetrics }
        func enableVerification() { inner.enableVerification() }
    }
#endif

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
