import Glibc

/// How long and how often to sample one benchmark.
public struct TimingPlan: Sendable, Equatable, Codable {
    /// Time spent taking samples, after warm-up.
    public var budgetNanoseconds: UInt64
    /// Sampling stops at this many samples even when budget is left.
    public var maxSamples: Int
    /// Sampling goes on to this many samples even past the budget (up to 4x the budget).
    public var minSamples: Int
    /// Time spent warming up after calibration.
    public var warmupNanoseconds: UInt64
    /// Operations are batched so one sample takes at least this long.
    public var targetSampleNanoseconds: UInt64

    public init(
        budgetNanoseconds: UInt64, maxSamples: Int, minSamples: Int = 5,
        warmupNanoseconds: UInt64? = nil, targetSampleNanoseconds: UInt64 = 100_000
    ) {
        self.budgetNanoseconds = budgetNanoseconds
        self.maxSamples = maxSamples
        self.minSamples = min(minSamples, maxSamples)
        self.warmupNanoseconds = warmupNanoseconds ?? budgetNanoseconds / 10
        self.targetSampleNanoseconds = targetSampleNanoseconds
    }

    /// Process `index`'s share of this plan when `processes` processes pool their samples: budget
    /// and warm-up divided, and the sample bounds split so that the pooled samples keep them (the
    /// first processes take one more when they do not divide).
    public func share(_ processes: Int, index: Int = 0) -> TimingPlan {
        let k = max(processes, 1)
        func part(_ total: Int) -> Int { total / k + (index < total % k ? 1 : 0) }
        var plan = self
        plan.budgetNanoseconds = budgetNanoseconds / UInt64(k)
        plan.warmupNanoseconds = warmupNanoseconds / UInt64(k)
        plan.maxSamples = part(maxSamples)
        plan.minSamples = min(part(minSamples), plan.maxSamples)
        return plan
    }
}

/// What the timing pass measured.
public struct TimingResult: Sendable {
    /// Nanoseconds per operation, one value per sample.
    public var nanosecondsPerOperation: [Double]
    /// Operations per sample.
    public var batch: Int
}

/// The timing pass: calibrate a batch size, warm up, then sample until the budget or the cap.
public enum TimingSampler {
    /// Times `instance` by `clock` (nanoseconds; the monotonic clock, or a test's own).
    public static func measure(
        _ instance: any BenchmarkInstance, plan: TimingPlan, clock: () -> UInt64 = monotonicNanoseconds
    ) throws -> TimingResult {
        var checksum = 0
        func timed(_ batch: Int) throws -> UInt64 {
            sched_yield()
            let start = clock()
            checksum &+= try instance.run(operations: batch)
            let end = clock()
            return end - start
        }

        // Calibrate: grow the batch until one batch takes the target time. The first batches run
        // cold (caches, lazy setup), so calibrate again after the warm-up; the batch only grows.
        func calibrate(from start: Int) throws -> Int {
            var batch = start
            while true {
                let elapsed = try timed(batch)
                if elapsed >= plan.targetSampleNanoseconds || batch >= 1 << 30 { return batch }
                let factor = elapsed == 0 ? 10 : Int(plan.targetSampleNanoseconds / elapsed) + 1
                batch *= min(max(factor, 2), 10)
            }
        }
        var batch = try calibrate(from: 1)
        let warmupEnd = clock() + plan.warmupNanoseconds
        while clock() < warmupEnd { _ = try timed(batch) }
        batch = try calibrate(from: batch)

        var samples: [Double] = []
        samples.reserveCapacity(min(plan.maxSamples, 100_000))
        let start = clock()
        while samples.count < plan.maxSamples {
            samples.append(Double(try timed(batch)) / Double(batch))
            let spent = clock() - start
            if spent >= plan.budgetNanoseconds
                && (samples.count >= plan.minSamples || spent >= 4 * plan.budgetNanoseconds)
            {
                break
            }
        }
        blackHole(checksum)
        return TimingResult(nanosecondsPerOperation: samples, batch: batch)
    }
}
