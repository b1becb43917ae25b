import Foundation
import Testing

@testable import Workloads

/// The render cost: zero costs nothing, and one calibration is shared with the run's children.
@Suite struct RenderCostTests {
    @Test func zeroIsFreeAndACostIsWork() {
        #expect(RenderCost(nanoseconds: 0).iterations == 0)
        #expect(RenderCost(nanoseconds: 1000).iterations >= 1)
        #expect(RenderCost(iterations: 1000).spend(7) != RenderCost(iterations: 1001).spend(7))
    }

    @Test func theCalibrationIsHandedToChildren() throws {
        RenderCalibration.share()
        let shared = try #require(ProcessInfo.processInfo.environment[RenderCalibration.variable].flatMap(Double.init))
        #expect(shared == RenderCost.iterationsPerNanosecond)
    }
}
