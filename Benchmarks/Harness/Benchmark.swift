/// A benchmark declared as data: a family name, its parameters, the contender it runs on, and a
/// factory that performs the setup (outside any timed region) and returns the instance to measure.
///
/// The full name reads like a path: the family, then each parameter as `key=value`, e.g.
/// `books/toggle-available/n=100000/visible=50`.
public struct Benchmark: Sendable {
    /// The contender of floor rows: the same work with no observation at all (`plain-read`).
    public static let floorContender = "floor"

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
    /// times slower than native. Lockfree's count is what the gate holds speed to.
    public var instructionOperations: @Sendable (Parameters) -> Int?
    /// Whether `--quick` runs it when no `--filter` is given (the render-cost families do not: they
    /// answer an app-level question, and the quick suite is the CI gate's).
    public var inQuickSuite = true
    /// What the threads it runs with a parameter set do to its counts and allocations (see
    /// `ThreadTiming`): one thread, unless declared with `onThreads`.
    public var threads: @Sendable (Parameters) -> ThreadTiming = { _ in .oneThread }
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

    /// This benchmark, left out of `--quick` unless a filter selects it.
    public func notInQuickSuite() -> Benchmark {
        var copy = self
        copy.inQuickSuite = false
        return copy
    }

    /// This benchmark, declaring what its threads do to its figures with each parameter set.
    public func onThreads(_ timing: @escaping @Sendable (Parameters) -> ThreadTiming) -> Benchmark {
        var copy = self
        copy.threads = timing
        return copy
    }

    /// The name of this family with one parameter set: `family/key=value/...`.
    public func name(with parameters: Parameters) -> String {
        parameters.entries.isEmpty
            ? family
            : family + "/" + parameters.entries.map { "\($0.key)=\($0.value)" }.joined(separator: "/")
    }
}
