import Dispatch
import Foundation

/// Runs a measuring pass somewhere: in a child process (`bench`) or in this process (tests).
public protocol PassExecutor: Sendable {
    func timing(_ run: PlannedRun, plan: TimingPlan) -> Measurer.PassReport
    func counting(_ run: PlannedRun, operations: Int) -> Measurer.PassReport
    /// The instruction passes of `runs`, in order, or `nil` where instructions cannot be counted.
    func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]?
    /// This executor, passing each line its passes print on stderr to `diagnostics` instead.
    func reporting(diagnostics: @escaping @Sendable (String) -> Void) -> any PassExecutor
}

extension PassExecutor {
    /// Instructions are counted only under valgrind, in a child process.
    public func instructions(_ runs: [(run: PlannedRun, operations: Int)]) -> [Measurer.PassReport]? { nil }
    /// In-process passes print where they are.
    public func reporting(diagnostics: @escaping @Sendable (String) -> Void) -> any PassExecutor { self }
}
