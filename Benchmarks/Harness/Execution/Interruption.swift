import Dispatch
import Glibc
import Synchronization

/// Whether a run was asked to stop (SIGINT, SIGTERM, SIGHUP), and the child processes it must stop
/// then.
///
/// The first signal marks the run interrupted and kills every child's process group at once: the
/// runner stops after the pass in flight, and `bench` writes what finished. A second signal ends
/// the process at once (`endAtOnce`). Children are spawned through `register`, under the same lock
/// as the flag, so a child is either killed by the interruption or never started.
public final class Interruption: Sendable {
    /// The interruption of this process, which `bench` arms with `trap`.
    public static let process = Interruption()

    private struct State {
        var signal: Int32?
        var signals = 0
        /// Process groups of the children alive (each child leads its own group).
        var children: Set<pid_t> = []
        var sources: [KeptSource] = []
    }

    /// A signal source kept alive for the life of the process, never used again: `@unchecked
    /// Sendable` since nothing reads it after `trap` resumes it.
    private struct KeptSource: @unchecked Sendable {
        let source: any DispatchSourceSignal
    }

    private let state = Mutex(State())
    /// What the second signal does: by default, dies of that signal (the shell then sees an
    /// interrupted command); tests record it instead.
    let endAtOnce: @Sendable (Int32) -> Void

    public init(endAtOnce: @escaping @Sendable (Int32) -> Void = Interruption.dieOf) {
        self.endAtOnce = endAtOnce
    }

    /// The first signal received, if any.
    public var signal: Int32? { state.withLock { $0.signal } }

    public var isInterrupted: Bool { signal != nil }

    /// Marks the run interrupted by `signal` and kills every child's process group; on the second
    /// call, `endAtOnce(signal)`.
    public func interrupt(_ signal: Int32) {
        let (children, first) = state.withLock { s -> (Set<pid_t>, Bool) in
            s.signals += 1
            if s.signal == nil { s.signal = signal }
            return (s.children, s.signals == 1)
        }
        for group in children { kill(-group, SIGKILL) }
        if !first { endAtOnce(signal) }
    }

    /// Runs `spawn` (which starts a child leading its own process group and returns its pid, or
    /// `nil`) unless the run is interrupted; the child is killed with the others on interruption.
    /// `nil` when interrupted or when `spawn` failed.
    func register(_ spawn: () -> pid_t?) -> pid_t? {
        state.withLock { s in
            guard s.signal == nil, let pid = spawn() else { return nil }
            s.children.insert(pid)
            return pid
        }
    }

    /// The child `pid` has been reaped: its pid may be reused, so it must not be killed any more.
    func unregister(_ pid: pid_t) {
        _ = state.withLock { $0.children.remove(pid) }
    }

    /// Turns `signals` into `interrupt`: the process no longer dies of them. By default the
    /// signals that stop a run a user meant to keep: Ctrl-C (SIGINT), `kill` and a shutdown
    /// (SIGTERM), and a closed terminal or a killed tmux session (SIGHUP).
    public func trap(_ signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]) {
        let sources = signals.map { signo -> KeptSource in
            Glibc.signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
            source.setEventHandler { [weak self] in self?.interrupt(signo) }
            source.resume()
            return KeptSource(source: source)
        }
        state.withLock { $0.sources += sources }
    }

    /// Ends this process by `signal`'s default action (a shell reads it as killed by `signal`),
    /// or with exit status 128 + `signal` where that fails.
    public static let dieOf: @Sendable (Int32) -> Void = { signo in
        Glibc.signal(signo, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signo)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        kill(getpid(), signo)
        _exit(128 + signo)
    }

    /// `SIGINT`, `SIGSEGV`, ...: the name of `signal`, or `signal N`.
    public static func name(of signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
            SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
            SIGCHLD: "SIGCHLD", SIGCONT: "SIGCONT", SIGSTOP: "SIGSTOP", SIGTSTP: "SIGTSTP", SIGTTIN: "SIGTTIN",
            SIGTTOU: "SIGTTOU", SIGURG: "SIGURG", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ", SIGVTALRM: "SIGVTALRM",
            SIGPROF: "SIGPROF", SIGWINCH: "SIGWINCH", SIGIO: "SIGIO", SIGSYS: "SIGSYS",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}
