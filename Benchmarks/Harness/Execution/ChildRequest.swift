/// A measuring pass. A request naming any other pass does not decode (a malformed request).
public enum Pass: String, Sendable, Codable {
    case time, count, instructions
}

/// What a child process is asked to measure; passed as one JSON argument.
public struct ChildRequest: Sendable, Codable, Equatable {
    public var family: String
    public var contender: String
    public var parameters: Parameters
    public var pass: Pass
    public var plan: TimingPlan?
    public var operations: Int?
}
