/// An asynchronous sequence of the values a closure computes from tracked models: the first value
/// when iteration starts, then one value per transaction of changes. The lock-free registrar's
/// counterpart of Observation's `Observations` (SE-0475), with the same contract.
///
/// ```swift
/// for await title in TrackedValues({ book.title }) { label.text = title }
/// ```
///
/// - **First value**: the first `next()` evaluates `emit` and returns its value.
/// - **One value per transaction**: each later `next()` waits for a change of anything the last
///   evaluation read, then evaluates `emit` again, on `emit`'s isolation (that of the context that
///   created the sequence, as with `Observations`). Writes made before that evaluation can run
///   (before the writer's isolation next suspends, when the writer and `emit` share an actor) are
///   coalesced into one value. A change made while the consumer is busy is not lost: its `next()`
///   returns the re-evaluated value at once.
/// - **No lost final value**: a write that races an evaluation is caught by the registrar's install
///   re-check (`withTracking`), so after writers stop, the last value returned equals the current one.
/// - **End**: when `emit` returns `.finish` (`untilFinished`), throws (the error is rethrown once,
///   then `nil`), or the consuming task is cancelled (`next()` returns `nil`).
/// - **Lifetime**: the registrar holds only a small hand-off object (the observation callback), never
///   `emit` or the models; when the iterator goes away its armed observation is cancelled and the
///   hand-off released.
///
/// Two differences from `Observations`, each shown by a test in `StreamSemanticsTests`:
/// - A write from outside `emit`'s isolation (another thread) that races an evaluation is not
///   lost: the registrar's install re-check tells the new observation once the write has stored.
///   `Observations` can lose it, and then holds a stale final value until the next change
///   (`afterAContendedWriterStopsTheLastValueIsTheCurrentOne`). Its contract assumes writers on
///   `emit`'s isolation, where no write can race the evaluation.
/// - Each iterator observes on its own: iterators of one sequence do not share pending changes.
///   `Observations` keeps one "changed" flag for all iterators of a sequence, so with two, a
///   change made while neither waits wakes only the first to ask
///   (`eachIteratorHasItsOwnTransactions`).
///
/// Thread safety: the sequence is `Sendable` and may be iterated from any number of tasks, each
/// with its own iterator; one iterator is used by one task at a time. Writers may run on any thread.
/// The observation callback runs on the writer's thread at willSet, updates one atomic word and resumes a
/// continuation: it never runs `emit` or other user code inside the registrar.
public typealias TrackedValues<Element: Sendable, Failure: Error> = _ObservedValues<Element, Failure, _LockFreeOneShot>

/// How a value stream arms its one-shot observation: the lock-free registrar's
/// `withCancellableTracking`, or an ablation's (`LockedObservation`). Not for adopters.
public protocol _OneShotTracking: Sendable {
    associatedtype Token: Sendable
    /// Runs `apply`, tracking what it reads, and calls `onChange` once, at willSet of the first
    /// change (or after `apply` returns, for a write that raced it).
    static func track<T>(_ apply: () -> T, onChange: @escaping @Sendable () -> Void) -> (T, Token)
    /// Disarms the observation; its callback does not start after this returns.
    static func cancel(_ token: Token)
}

/// The lock-free registrar's one-shot tracking, for `TrackedValues`.
public enum _LockFreeOneShot: _OneShotTracking {
    @inlinable
    public static func track<T>(_ apply: () -> T, onChange: @escaping @Sendable () -> Void) -> (T, TrackingToken) {
        withCancellableTracking(apply, onChange: onChange)
    }

    @inlinable
    public static func cancel(_ token: TrackingToken) { token.cancel() }
}

/// The stream behind `TrackedValues` (and `LockedObservation`'s `LockedValues`), generic over the
/// registrar's one-shot tracking. See `TrackedValues` for the contract.
public struct _ObservedValues<Element: Sendable, Failure: Error, Tracking: _OneShotTracking>: AsyncSequence, Sendable {
    /// What `emit` returns in `untilFinished`: a value, or the end of the sequence.
    public enum Iteration: Sendable {
        case next(Element)
        case finish
    }

    let emit: Emit

    /// A sequence of the values `emit` computes: the first at once, then one after each transaction
    /// of changes to the tracked properties it read.
    ///
    /// - Parameter emit: Reads tracked models and returns a value. Runs on the isolation of the
    ///   context that creates the sequence (inherited, as `Observations` does), once per value.
    public init(@_inheritActorContext _ emit: @escaping @isolated(any) @Sendable () throws(Failure) -> Element) {
        self.emit = .element(emit)
    }

    /// A sequence that ends when `emit` returns `.finish`.
    ///
    /// - Parameter emit: Reads tracked models and returns `.next(value)`, or `.finish` to end the
    ///   sequence (the consumer's `next()` then returns `nil`). Runs as in `init(_:)`.
    public static func untilFinished(
        @_inheritActorContext _ emit: @escaping @isolated(any) @Sendable () throws(Failure) -> Iteration
    ) -> Self {
        Self(emit: .iteration(emit))
    }

    init(emit: Emit) { self.emit = emit }

    /// `emit`, as given (an `@isolated(any)` closure cannot be wrapped in another without losing
    /// its isolation).
    enum Emit: Sendable {
        case element(@isolated(any) @Sendable () throws(Failure) -> Element)
        case iteration(@isolated(any) @Sendable () throws(Failure) -> Iteration)

        var isolation: (any Actor)? {
            switch self {
            case .element(let closure): closure.isolation
            case .iteration(let closure): closure.isolation
            }
        }

        /// Calls the closure synchronously. The caller runs on `isolation` (`Iterator.evaluate`'s
        /// isolated parameter is that actor), which is what a synchronous call of an
        /// `@isolated(any)` closure needs; the language cannot see that, hence the cast to the plain
        /// function type of the same representation (`Observations` does the same).
        func callOnItsIsolation() -> Result<Iteration, Failure> {
            do throws(Failure) {
                switch self {
                case .element(let closure):
                    let plain = unsafeBitCast(Isolated(closure), to: (() throws(Failure) -> Element).self)
                    return .success(.next(try plain()))
                case .iteration(let closure):
                    let plain = unsafeBitCast(Isolated(closure), to: (() throws(Failure) -> Iteration).self)
                    return .success(try plain())
                }
            } catch {
                return .failure(error)
            }
        }

        /// A closure stored as a value, so that it can be cast (a conversion of the function type
        /// itself is refused).
        struct Isolated<Result> {
            let closure: @isolated(any) @Sendable () throws(Failure) -> Result
            init(_ closure: @escaping @isolated(any) @Sendable () throws(Failure) -> Result) { self.closure = closure }
        }
    }

    public func makeAsyncIterator() -> Iterator { Iterator(emit: emit) }

    /// Iterates the sequence; used by one task at a time.
    public struct Iterator: AsyncIteratorProtocol {
        /// `nil` once the sequence has ended.
        var observation: _StreamObservation<Tracking>?
        let emit: Emit
        var started = false

        init(emit: Emit) {
            self.emit = emit
            self.observation = _StreamObservation()
        }

        /// The next value: the first at once; then, after a change of what the last value read,
        /// the value computed after the transaction. `nil` when the sequence has ended or the task
        /// is cancelled.
        ///
        /// `iterator.next()` called from an actor keeps that actor (`isolation` defaults to the
        /// caller's), as `Observations`' does: the wait resumes on it, so when the writer shares
        /// that actor, the evaluation after a change is queued ahead of the writer's next job, and
        /// a writer that suspends between two writes makes two values where the actor's executor
        /// runs its jobs in order (see Streams.md for the main thread on Linux). There is
        /// deliberately no `next()` without the parameter: it would be chosen for
        /// `iterator.next()` and would leave the caller's actor at every call.
        public mutating func next(isolation: isolated (any Actor)? = #isolation) async throws(Failure) -> Element? {
            guard let observation else { return nil }
            if started {
                await observation.handoff.waitForChange()
            }
            started = true
            guard !Task.isCancelled else { return finish() }
            // `emit` runs on its isolation: here when that is none or this iterator's own, without
            // a suspension; otherwise after a hop to it.
            let target = emit.isolation
            let result =
                if target == nil || target.map(ObjectIdentifier.init) == isolation.map(ObjectIdentifier.init) {
                    Self.evaluateHere(emit, observation)
                } else {
                    await Self.evaluate(isolation: target, emit, observation)
                }
            switch result {
            case .success(.next(let element)): return element
            case .success(.finish): return finish()
            case .failure(let error):
                _ = finish()
                throw error
            }
        }

        /// Evaluates `emit` on its isolation under one-shot tracking whose callback tells the hand-off.
        static func evaluate(
            isolation: isolated (any Actor)?, _ emit: Emit,
            _ observation: _StreamObservation<Tracking>
        ) -> Result<Iteration, Failure> {
            evaluateHere(emit, observation)
        }

        /// `evaluate`, for a caller already on `emit`'s isolation (or `emit` has none).
        static func evaluateHere(_ emit: Emit, _ observation: _StreamObservation<Tracking>) -> Result<
            Iteration, Failure
        > {
            let handoff = observation.handoff
            let (result, token) = Tracking.track({ emit.callOnItsIsolation() }, onChange: { handoff.changed() })
            observation.token = token
            return result
        }

        mutating func finish() -> Element? {
            observation?.cancel()
            observation = nil
            return nil
        }
    }
}
