import Foundation

/// What a view's body and its diff cost in a real app, standing in for them: `nanoseconds` of real
/// computation per view evaluation, charged by the view graph after each body, the same code and
/// the same work for every contender. A dependent multiply-add chain the optimizer cannot remove
/// (its result is kept by the graph), sized by one calibration per run: `bench` calibrates before
/// it starts any child and hands the figure to them (`RenderCalibration.share`), so that a child
/// that happens to run while the machine is slow does not get less work than the others.
struct RenderCost: Sendable {
    /// Iterations of the chain per evaluation; 0 costs nothing (the registrar families).
    let iterations: Int

    static let none = RenderCost(iterations: 0)

    init(iterations: Int) { self.iterations = iterations }

    init(nanoseconds: Double) {
        iterations = nanoseconds > 0 ? max(1, Int((nanoseconds * Self.iterationsPerNanosecond).rounded())) : 0
    }

    /// Spends the cost; the result depends on every iteration.
    @inline(never)
    func spend(_ seed: Int) -> Int {
        var x = UInt64(bitPattern: Int64(seed)) | 1
        for _ in 0..<iterations { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
        return Int(truncatingIfNeeded: x >> 33)
    }

    /// Iterations per nanosecond: the run's calibration when `bench` shared one, else this
    /// process's own.
    static let iterationsPerNanosecond: Double = {
        RenderCalibration.shared(in: ProcessInfo.processInfo.environment) ?? calibrate()
    }()

    /// The best of 5 rounds of 200,000 iterations here.
    static func calibrate() -> Double {
        let probe = RenderCost(iterations: 200_000)
        var best = UInt64.max
        var sink = 0
        for round in 0..<5 {
            let start = ContinuousClock.now
            sink &+= probe.spend(round)
            let elapsed = ContinuousClock.now - start
            let ns =
                UInt64(elapsed.components.seconds) * 1_000_000_000
                + UInt64(elapsed.components.attoseconds / 1_000_000_000)
            best = min(best, max(ns, 1))
        }
        // The sink's last bit keeps the calls (a 1e-30 share of the figure).
        return Double(probe.iterations) / Double(best) + Double(sink & 1) * 1e-30
    }
}

/// One render-cost calibration for a whole run.
public enum RenderCalibration {
    static let variable = "BENCH_RENDER_ITERATIONS_PER_NS"

    /// Calibrates in this process and puts the figure in the environment its children inherit.
    /// Call it before any other thread runs: the environment is not safe to change while another
    /// thread reads it.
    public static func share() {
        setenv(variable, String(RenderCost.iterationsPerNanosecond), 1)
    }

    /// The figure a parent shared in `environment` (iterations per nanosecond), if any.
    static func shared(in environment: [String: String]) -> Double? {
        guard let figure = environment[variable].flatMap(Double.init), figure > 0 else { return nil }
        return figure
    }
}
