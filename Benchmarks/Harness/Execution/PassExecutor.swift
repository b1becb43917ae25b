import Dispatch
import Foundation

/// Runs a measuring pass somewhere: in a child process (`bench`) or in this process (tests).
public protocol PassExecutor: Sendable {
    func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport
    func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport
    /// The counting pass, expected to take about `expectedSeconds` (from the timing pass), which
    /// sets a child's deadline (`ChildDeadline`).
    func counting(_ run: PlannedRun, operations: Int, expectedSeconds: Double?) -> Measurer.PassReport
    /// The instruction passes of `runs`, in order, or `nil` where instructions cannot be counted.
    func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]?
    /// The same, expected to take about `expectedSeconds` in all.
    func instructions(_ runs: [(run: PlannedRun, operations: Int)], expectedSeconds: Double?)
        -> [Measurer.PassReport]?
    /// This executor, passing each line its passes print on stderr to `diagnostics` instead.
    func reporting(diagnostics: @escaping @Sendable (String) -> Void) -> any PassExecutor
    /// This executor, its children stopped by `interruption`.
    func interruptible(by interruption: Interruption) -> any PassExecutor
}

extension PassExecutor {
    /// Instructions are counted only under valgrind, in a child process.
    public func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]? { nil }
    public func instructions(_ runs: [(run: PlannedRun, operations: Int)], expectedSeconds: Double?)
        -> [Measurer.PassReport]?
    { instructions(runs) }
    public func counting(_ run: PlannedRun, operations: Int, expectedSeconds: Double?) -> Measurer.PassReport {
        counting(run, operations: operations)
    }
    /// In-process passes stop with the runner, between passes.
    public func interruptible(by interruption: Interruption) -> any PassExecutor { self }
    /// In-process passes print where they are.
    public func reporting(diagnostics: @escaping @Sendable (String) -> Void) -> any PassExecutor { self }
}
