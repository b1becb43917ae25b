/// A benchmark declared as data: a family name, its parameters, the contender it runs on, and a
/// factory that performs the setup (outside any timed region) and returns the instance to measure.
///
/// The full name reads like a path: the family, then each parameter as `key=value`, e.g.
/// `books/toggle-available/n=100000/visible=50`.
public struct Benchmark: Sendable {
    /// The family, e.g. `primitives/tracked-read` or `books/toggle-available`.
    public var family: String
    /// The contender it runs on (`lockfree`, `apple`, `naive`, ...).
    public var contender: String
    /// The parameter sets this family runs with by default. Each set gives a value for every key in
    /// `parameterKinds`, in the same order. `--param key=value` overrides a key in every set.
    public var defaultParameterSets: [Parameters]
    /// Parameter sets that are valid but too large for the default suite (opt-in with `--param`,
    /// or with `--full`).
    public var largeParameterSets: [Parameters]
    /// The kind of each parameter key, used to validate `--param` values.
    public var parameterKinds: [String: ParameterKind]
    /// The expected invalidation counts per operation, when the workload knows them exactly.
    public var expectedCounts: (@Sendable (Parameters) -> InvalidationCounts?)?
    /// Operations in the counting pass (allocations and invalidation counts per operation), after as
    /// many warm-up operations. Fixed, not derived from timing, so counts are the same on every
    /// machine and can be gated exactly. Raise it when one `run` call has a fixed cost to amortise
    /// (e.g. one tracking scope around all operations of a batch). `nil` means 1.
    public var countingOperations: Int?
    /// Operations in the instruction pass for a parameter set (instructions per operation, counted
    /// by callgrind after as many warm-up operations), or `nil` for no instruction pass. Declare it
    /// for deterministic, single-threaded benchmarks whose setup is cheap: the pass runs about 50
    /// times slower than native. Its lockfree/apple ratio is what the gate holds speed to.
    public var instructionOperations: @Sendable (Parameters) -> Int?
    /// Performs the setup and returns the instance to measure.
    public var make: @Sendable (Parameters) throws -> any BenchmarkInstance

    public init(
        family: String,
        contender: String,
        parameterSets: [Parameters] = [Parameters()],
        largeParameterSets: [Parameters] = [],
        parameterKinds: [String: ParameterKind] = [:],
        expectedCounts: (@Sendable (Parameters) -> InvalidationCounts?)? = nil,
        countingOperations: Int? = nil,
        instructionOperations: @escaping @Sendable (Parameters) -> Int? = { _ in nil },
        make: @escaping @Sendable (Parameters) throws -> any BenchmarkInstance
    ) {
        self.family = family
        self.contender = contender
        self.defaultParameterSets = parameterSets
        self.largeParameterSets = largeParameterSets
        self.parameterKinds = parameterKinds
        self.expectedCounts = expectedCounts
        self.countingOperations = countingOperations
        self.instructionOperations = instructionOperations
        self.make = make
    }

    /// The name of this family with one parameter set: `family/key=value/...`.
    public func name(with parameters: Parameters) -> String {
        parameters.entries.isEmpty
            ? family
            : family + "/" + parameters.entries.map { "\($0.key)=\($0.value)" }.joined(separator: "/")
    }
}

/// The kind of value a parameter takes.
public enum ParameterKind: Sendable {
    case integer, number, text
}

/// Ordered `key=value` parameters of one benchmark run.
public struct Parameters: Sendable, Hashable {
    public var entries: [(key: String, value: String)]

    public init(_ entries: [(String, String)] = []) {
        self.entries = entries.map { (key: $0.0, value: $0.1) }
    }

    public subscript(key: String) -> String? {
        get { entries.first { $0.key == key }?.value }
        set {
            if let i = entries.firstIndex(where: { $0.key == key }) {
                if let newValue { entries[i].value = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append((key: key, value: newValue))
            }
        }
    }

    /// The integer value of `key`, or `fallback` when absent. Values were validated before `make`.
    public func int(_ key: String, default fallback: Int) -> Int {
        self[key].flatMap { Int($0) } ?? fallback
    }

    /// The number value of `key`, or `fallback` when absent.
    public func double(_ key: String, default fallback: Double) -> Double {
        self[key].flatMap { Double($0) } ?? fallback
    }

    public static func == (a: Parameters, b: Parameters) -> Bool {
        a.entries.map(\.key) == b.entries.map(\.key) && a.entries.map(\.value) == b.entries.map(\.value)
    }

    public func hash(into hasher: inout Hasher) {
        for e in entries { hasher.combine(e.key); hasher.combine(e.value) }
    }
}

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

    public init(notifications: Int = 0, invalidations: Int = 0, evaluations: Int = 0, unnecessary: Int = 0, missed: Int = 0) {
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

    public var description: String {
        "notifications \(notifications), invalidations \(invalidations), evaluations \(evaluations), unnecessary \(unnecessary), missed \(missed)"
    }
}

/// A benchmark after its setup: the harness times `run`, counts allocations around it in a separate
/// pass, and reads `counts` around it.
public protocol BenchmarkInstance: AnyObject {
    /// Performs `operations` operations; this is the measured region. Returns a checksum that the
    /// harness keeps alive so the work cannot be optimised away. Throws `BenchmarkFailure` on a
    /// correctness failure (e.g. the oracle found a missed update).
    func run(operations: Int) throws -> Int
    /// Counts accumulated since the instance was made.
    var counts: InvalidationCounts { get }
    /// Extra named results recorded as metrics (e.g. the grid's `sum` and `count`).
    var extraMetrics: [String: Double] { get }
    /// Turns on checks that are too slow to time (the view graph's oracle re-renders every mounted
    /// view after every frame). The harness turns them on for the counting pass, never while timing.
    func enableVerification()
}

extension BenchmarkInstance {
    public var counts: InvalidationCounts { InvalidationCounts() }
    public var extraMetrics: [String: Double] { [:] }
    public func enableVerification() {}
}

/// A correctness failure found while running a benchmark. `bench` reports it and exits with 1.
public struct BenchmarkFailure: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
