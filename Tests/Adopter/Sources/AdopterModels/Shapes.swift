import LockFreeObservation

/// Property shapes apps declare: optionals, closures, tuples, enums, collections, references.
public enum Phase: Equatable, Sendable {
    case idle
    case loading(progress: Double)
    case done
}

/// Not `Equatable`: every write tells, as with Observation.
public enum Outcome: Sendable {
    case success
    case failure(any Error)
}

public final class Plain: Sendable {
    public init() {}
}

@TrackedModel public final class Shapes: TrackedObject {
    public var nickname: String?
    public var onTap: (@Sendable () -> Void)?
    public var origin: (x: Double, y: Double) = (0, 0)
    public var phase = Phase.idle
    public var outcome = Outcome.success
    public var tags: [String] = []
    public var scores: [String: Int] = [:]
    public var reference = Plain()
    public var optionalReference: Plain?
    public var implicitlyUnwrapped: String!
    @Untracked public var cache = 0, scratch = 0

    public override init() { super.init() }
}
