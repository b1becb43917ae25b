import Synchronization

/// Where a stream's observation callback (on a writer's thread, at willSet) meets its consumer
/// (suspended in `next()`, or busy between values).
///
/// The registrar holds it (captured by the callback) until the one-shot observation fires or is
/// cancelled; it holds nothing but its state.
final class _ChangeHandoff: Sendable {
    /// The legal transitions: `quiet -> changed` (a change, no waiter) and `quiet -> waiting`
    /// (the consumer suspends); `changed -> quiet` (the consumer takes it without suspending);
    /// `waiting -> quiet` (a change resumes the consumer); any -> `cancelled` (the consuming task
    /// is cancelled: the waiter, if any, is resumed), which is final.
    enum State: Sendable {
        case quiet
        case changed
        case waiting(UnsafeContinuation<Void, Never>)
        case cancelled
    }

    let state = Mutex(State.quiet)

    init() {}

    /// The observation's callback: resumes the waiting consumer, or leaves the change for its next
    /// `next()`. Runs no user code.
    func changed() {
        let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            switch state {
            case .waiting(let continuation):
                state = .quiet
                return continuation
            case .quiet:
                state = .changed
                return nil
            case .changed, .cancelled:
                return nil
            }
        }
        waiter?.resume()
    }

    /// Returns once a change has been told since the last evaluation armed the observation, or the
    /// task is cancelled (the caller checks `Task.isCancelled`).
    func waitForChange(isolation: isolated (any Actor)? = #isolation) async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    switch state {
                    case .changed:
                        state = .quiet
                        return true
                    case .cancelled:
                        return true
                    case .quiet:
                        state = .waiting(continuation)
                        return false
                    case .waiting:
                        preconditionFailure("a stream iterator was used by two tasks at once")
                    }
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
                defer { state = .cancelled }
                if case .waiting(let continuation) = state { return continuation }
                return nil
            }
            waiter?.resume()
        }
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
