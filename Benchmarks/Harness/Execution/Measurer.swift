/// The two measuring passes of one benchmark on one contender, run in-process. `bench` runs each in
/// its own child process (see `ChildProcessExecutor`); tests may call them directly.
public enum Measurer {
    /// What one pass found: metrics, a failure, and the batch size the timing pass chose.
    public struct PassReport: Sendable, Codable, Equatable {
        public var metrics: [MetricResult]
        public var failure: String?
        public var batch: Int

        /// A pass that measured nothing because of `why`.
        static func failed(_ why: String) -> PassReport { PassReport(metrics: [], failure: why, batch: 0) }

        init(metrics: [MetricResult], failure: String?, batch: Int) {
            self.metrics = metrics
            self.failure = failure
            self.batch = batch
        }

        /// Timing passes of one run in several processes, as one: the samples of each metric
        /// concatenated in process order, a single-valued metric (setup time) the median of the
        /// processes' values, the first failure, the first batch size.
        init(pooling reports: [PassReport]) {
            var metrics: [MetricResult] = []
            for name in reports.first?.metrics.map(\.name) ?? [] {
                let all = reports.compactMap { $0.metrics.first { $0.name == name } }
                guard let first = all.first else { continue }
                if first.samples != nil {
                    let samples = all.flatMap { $0.samples ?? [] }
                    metrics.append(
                        MetricResult(
                            name: name, unit: first.unit, summary: Summary(samples), samples: samples,
                            processes: all.map { $0.samples?.count ?? 0 }))
                } else {
                    let values = all.map(\.summary.p50).sorted()
                    metrics.append(MetricResult(name: name, unit: first.unit, value: values[(values.count - 1) / 2]))
                }
            }
            self.init(
                metrics: metrics, failure: reports.lazy.compactMap(\.failure).first, batch: reports.first?.batch ?? 0)
        }
    }

    /// The timing pass: setup time, then time per operation, by `clock` (nanoseconds; the
    /// monotonic clock, or a test's own).
    public static func timingPass(
        _ benchmark: Benchmark, _ parameters: Parameters, plan: TimingPlan, clock: () -> UInt64 = monotonicNanoseconds
    ) -> PassReport {
        var metrics: [MetricResult] = []
        do {
            let start = clock()
            let instance = try benchmark.make(parameters)
            let setup = Double(clock() - start)
            metrics.append(MetricResult(.setupTime, value: setup))
            let timing = try TimingSampler.measure(instance, plan: plan, clock: clock)
            // Picosecond resolution is finer than the clock's over a batch, and keeps results.json small.
            let samples = timing.nanosecondsPerOperation.map { ($0 * 1000).rounded() / 1000 }
            metrics.insert(
                MetricResult(.time, summary: Summary(samples), samples: samples), at: 0)
            for measured in instance.measuredMetrics where !measured.values.isEmpty {
                metrics.append(
                    measured.values.count > 1
                        ? MetricResult(measured.metric, summary: Summary(measured.values), samples: measured.values)
                        : MetricResult(measured.metric, value: measured.values[0]))
            }
            let missed = instance.counts.missed
            let failure = missed > 0 ? "\(missed) missed update(s) while timing" : nil
            return PassReport(metrics: metrics, failure: failure, batch: timing.batch)
        } catch {
            return PassReport(metrics: metrics, failure: describe(error), batch: 0)
        }
    }

    /// The counting pass: retained bytes of the setup; after `operations` warm-up operations,
    /// allocations and invalidation counts per operation over `operations` operations; then the same
    /// number again with verification (the oracle) on, outside the allocation window so its own
    /// allocations are not counted. Fails on a missed update or counts that differ from
    /// `expectedCounts` (compared exactly, as totals).
    public static func countingPass(_ benchmark: Benchmark, _ parameters: Parameters, operations: Int) -> PassReport {
        let ops = max(1, operations)
        let counter = AllocationCounter()
        var metrics: [MetricResult] = []
        do {
            let liveBefore = counter?.liveBytes()
            let instance = try benchmark.make(parameters)
            if let counter, let liveBefore {
                let retained = Double(Int64(bitPattern: counter.liveBytes() &- liveBefore))
                metrics.append(MetricResult(.retainedBytes, value: retained))
            }
            blackHole(try instance.run(operations: ops))

            let countsBefore = instance.counts
            let before = counter?.read()
            let checksum = try instance.run(operations: ops)
            let after = counter?.read()
            let counts = instance.counts - countsBefore
            blackHole(checksum)

            instance.enableVerification()
            blackHole(try instance.run(operations: ops))

            let perOp = { (v: Int) in Double(v) / Double(ops) }
            if let before, let after {
                metrics.append(
                    MetricResult(.mallocs, value: perOp(Int(after.mallocs &- before.mallocs))))
                metrics.append(
                    MetricResult(.bytes, value: perOp(Int(after.bytes &- before.bytes))))
            }
            for (metric, value) in countFields(counts) {
                metrics.append(MetricResult(metric, value: perOp(value)))
            }
            for (name, value) in instance.extraMetrics.sorted(by: { $0.key < $1.key }) {
                metrics.append(MetricResult(.value(named: name), value: value))
            }
            return PassReport(
                metrics: metrics, failure: check(counts, total: instance.counts, benchmark, parameters, ops),
                batch: ops)
        } catch {
            return PassReport(metrics: metrics, failure: describe(error), batch: ops)
        }
    }

    /// The instruction pass, in a child running under callgrind: after `operations` warm-up
    /// operations, collects instructions over `operations` operations only. The count is read from
    /// callgrind's dump by the parent (`ChildProcessExecutor.instructions`); this side reports
    /// failures and the number of operations.
    public static func instructionPass(
        _ benchmark: Benchmark, _ parameters: Parameters, operations: Int, region: String
    ) -> PassReport {
        let ops = max(1, operations)
        guard InstructionCounter.runningUnderValgrind else {
            return PassReport(metrics: [], failure: "the instruction pass must run under valgrind", batch: ops)
        }
        do {
            let instance = try benchmark.make(parameters)
            blackHole(try instance.run(operations: ops))
            let checksum = try InstructionCounter.measure(region: region) { try instance.run(operations: ops) }
            blackHole(checksum)
            let missed = instance.counts.missed
            return PassReport(metrics: [], failure: missed > 0 ? "\(missed) missed update(s)" : nil, batch: ops)
        } catch {
            return PassReport(metrics: [], failure: describe(error), batch: ops)
        }
    }

    static func countFields(_ c: InvalidationCounts) -> [(Metric, Int)] {
        [
            (Metric.notifications, c.notifications), (Metric.invalidations, c.invalidations),
            (Metric.evaluations, c.evaluations), (Metric.unnecessary, c.unnecessary),
            (Metric.missed, c.missed),
        ]
    }

    static func check(
        _ measured: InvalidationCounts, total: InvalidationCounts, _ benchmark: Benchmark, _ parameters: Parameters,
        _ ops: Int
    ) -> String? {
        if total.missed > 0 { return "\(total.missed) missed update(s)" }
        guard let expected = benchmark.expectedCounts?(parameters) else { return nil }
        let wanted = expected.times(ops)
        guard wanted != measured else { return nil }
        return "counts over \(ops) operations differ from expected: measured \(measured); expected \(wanted)"
    }

    static func describe(_ error: any Error) -> String {
        if let failure = error as? BenchmarkFailure { return failure.message }
        return "threw \(error)"
    }
}
