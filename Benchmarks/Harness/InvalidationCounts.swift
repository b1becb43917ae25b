/// Invalidation counts accumulated by a workload. The harness reports them per operation.
public struct InvalidationCounts: Sendable, Equatable, CustomStringConvertible {
    /// Change notifications delivered to views or observers.
    public var notifications: Int
    /// Distinct views marked dirty, once per view per frame.
    public var invalidations: Int
    /// View bodies evaluated.
    public var evaluations: Int
    /// Evaluations whose output equalled the previous output.
    public var unnecessary: Int
    /// Views whose incremental output differed from a full re-render (a correctness failure).
    public var missed: Int

    public init(
        notifications: Int = 0, invalidations: Int = 0, evaluations: Int = 0, unnecessary: Int = 0, missed: Int = 0
    ) {
        self.notifications = notifications
        self.invalidations = invalidations
        self.evaluations = evaluations
        self.unnecessary = unnecessary
        self.missed = missed
    }

    public static func + (a: Self, b: Self) -> Self {
        Self(
            notifications: a.notifications + b.notifications, invalidations: a.invalidations + b.invalidations,
            evaluations: a.evaluations + b.evaluations, unnecessary: a.unnecessary + b.unnecessary,
            missed: a.missed + b.missed)
    }

    public static func - (a: Self, b: Self) -> Self {
        Self(
            notifications: a.notifications - b.notifications, invalidations: a.invalidations - b.invalidations,
            evaluations: a.evaluations - b.evaluations, unnecessary: a.unnecessary - b.unnecessary,
            missed: a.missed - b.missed)
    }

    /// These counts, per operation, over `operations` operations.
    public func times(_ operations: Int) -> Self {
        Self(
            notifications: notifications * operations, invalidations: invalidations * operations,
            evaluations: evaluations * operations, unnecessary: unnecessary * operations,
            missed: missed * operations)
    }

    public var description: String {
        "notifications \(notifications), invalidations \(invalidations), evaluations \(evaluations), unnecessary \(unnecessary), missed \(missed)"
    }
}
