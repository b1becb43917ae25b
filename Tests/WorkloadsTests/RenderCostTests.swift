import Testing

@testable import Workloads

/// The render cost: zero costs nothing, and one calibration is shared with the run's children.
@Suite struct RenderCostTests {
    @Test func zeroIsFreeAndACostIsWork() {
        #expect(RenderCost(nanoseconds: 0).iterations == 0)
        #expect(RenderCost(nanoseconds: 1000).iterations >= 1)
        #expect(RenderCost(iterations: 1000).spend(7) != RenderCost(iterations: 1001).spend(7))
    }

    /// A child takes its parent's figure as it was written, exactly, and calibrates itself when
    /// none was shared. (The test reads environments it builds: changing the process's own while
    /// other tests run would race their reads of it.)
    @Test func theCalibrationIsHandedToChildren() {
        let figure = RenderCost.iterationsPerNanosecond
        #expect(RenderCalibration.shared(in: [RenderCalibration.variable: String(figure)]) == figure)
        #expect(RenderCalibration.shared(in: [:]) == nil)
        #expect(RenderCalibration.shared(in: [RenderCalibration.variable: "0"]) == nil)
        #expect(RenderCalibration.shared(in: [RenderCalibration.variable: "fast"]) == nil)
    }
}
