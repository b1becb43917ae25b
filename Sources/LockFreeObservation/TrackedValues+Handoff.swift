import Synchronization

/// Where a stream's observation callback (on a writer's thread, at willSet) meets its consumer
/// (suspended in `next()`, or busy between values). Lock-free: one atomic word.
///
/// The registrar holds it (captured by the callback) until the one-shot observation fires or is
/// cancelled; it holds nothing but its word.
final class _ChangeHandoff: Sendable {
    /// `quiet` (0): no change told since the consumer last took one, no waiter; `changed` (1): a
    /// change told, no waiter; `cancelled` (2): the consuming task was cancelled, final; any other
    /// value: the waiting consumer's continuation (a task address, aligned, so never 0, 1 or 2).
    ///
    /// Transitions: `quiet -> changed` (a change, no waiter), `quiet -> waiter` (the consumer
    /// suspends), `changed -> quiet` (the consumer takes it without suspending), `waiter -> quiet`
    /// (a change resumes the consumer, whose next evaluation re-arms), any -> `cancelled`.
    /// Each waiter is taken off the word by exactly one compare-exchange or exchange, and resumed
    /// by whoever took it.
    let word = Atomic<UInt>(quiet)

    static let quiet: UInt = 0
    static let changedWord: UInt = 1
    static let cancelled: UInt = 2

    init() {}

    /// The observation's callback: resumes the waiting consumer, or leaves the change for its next
    /// `next()`. Runs no user code.
    func changed() {
        var current = word.load(ordering: .acquiring)
        while true {
            if current == Self.changedWord || current == Self.cancelled { return }
            let desired = current == Self.quiet ? Self.changedWord : Self.quiet
            // Acquire: a waiter's continuation, published by its releasing compare-exchange.
            let (exchanged, seen) = word.compareExchange(
                expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged {
                if current != Self.quiet { Self.continuation(current).resume() }
                return
            }
            current = seen
        }
    }

    /// Returns once a change has been told since the last evaluation armed the observation, or the
    /// task is cancelled (the caller checks `Task.isCancelled`).
    ///
    /// Resumes on `isolation`: the continuation is made with it, so a change told by a writer on
    /// that actor enqueues the consumer there, ahead of the writer's next job. (The operation
    /// closure would otherwise be nonisolated, as it captures no isolated parameter, and the
    /// consumer would resume on the global executor and hop back, after the writer's next job
    /// as a rule.)
    func waitForChange(isolation: isolated (any Actor)? = #isolation) async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: isolation) { (continuation: UnsafeContinuation<Void, Never>) in
                let waiter = unsafeBitCast(continuation, to: UInt.self)
                var current = word.load(ordering: .relaxed)
                while true {
                    precondition(current <= Self.cancelled, "a stream iterator was used by two tasks at once")
                    if current == Self.cancelled { return continuation.resume() }
                    let desired = current == Self.changedWord ? Self.quiet : waiter
                    // Release: publishes the continuation to the thread that takes it.
                    let (exchanged, seen) = word.compareExchange(
                        expected: current, desired: desired, ordering: .acquiringAndReleasing)
                    if exchanged {
                        if current == Self.changedWord { continuation.resume() }
                        return
                    }
                    current = seen
                }
            }
        } onCancel: {
            // Acquire: the continuation, if one is waiting.
            let previous = word.exchange(Self.cancelled, ordering: .acquiringAndReleasing)
            if previous > Self.cancelled { Self.continuation(previous).resume() }
        }
    }

    static func continuation(_ word: UInt) -> UnsafeContinuation<Void, Never> {
        unsafeBitCast(word, to: UnsafeContinuation<Void, Never>.self)
    }
}

/// An iterator's observation: the hand-off and the token of the armed one-shot scope. Going away
/// (the iterator dropped) cancels that scope, so the registrar lets go of the hand-off.
///
/// `@unchecked Sendable`: `token` is written by the evaluation (on `emit`'s isolation) and read by
/// `cancel` or `deinit`, all on behalf of the one task that uses the iterator, one after another
/// (its hops between isolations order them).
final class _StreamObservation<Tracking: _OneShotTracking>: @unchecked Sendable {
    let handoff = _ChangeHandoff()
    var token: Tracking.Token?

    init() {}

    func cancel() {
        if let token { Tracking.cancel(token) }
        token = nil
    }

    deinit { cancel() }
}
