/// Runs both passes in this process. Allocation counts are then exact only for this thread.
public struct InProcessExecutor: PassExecutor {
    public init() {}
    public func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport {
        Measurer.timingPass(run.benchmark, run.parameters, plan: plan)
    }
    public func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport {
        Measurer.countingPass(run.benchmark, run.parameters, operations: operations)
    }
}
