import CProcess
import Glibc
import Synchronization

/// One child process, run to its end or its deadline: its own process group (so that the
/// terminal's Ctrl-C reaches `bench` alone, and a kill reaches whatever the child started), its
/// output read as it comes, and its process group killed when the deadline passes or the run is
/// interrupted (`Interruption`).
struct ChildProcess {
    /// How a child ended.
    enum Ending: Equatable {
        case exited(Int32)
        /// Died of a signal it did not get from `bench`.
        case signaled(Int32)
        /// Killed at its deadline, after that many seconds.
        case timedOut(seconds: Double)
        /// Killed because the run was interrupted, or never started because it was.
        case interrupted
        /// `posix_spawn` failed, with its error.
        case notStarted(String)
    }

    struct Outcome {
        var ending: Ending
        var output: String
        var errors: String
    }

    var program: String
    var arguments: [String]
    var environment: [String: String]
    /// Seconds the child may run.
    var deadline: Double
    /// Whether the child's stderr is read (`Outcome.errors`) rather than left on this process's.
    var capturesErrors = true

    /// Pipes are created and made close-on-exec under this lock, and children spawned under it,
    /// so that no child spawned on another thread inherits another child's pipe (which would keep
    /// that pipe open past its child's end).
    private static let spawning = Mutex(())

    /// Runs the child to its end, its deadline, or the interruption.
    func run(interruption: Interruption) -> Outcome {
        let start = monotonicNanoseconds()
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        var spawnError: String?
        let pid: pid_t? = interruption.register {
            Self.spawning.withLock { _ in
                guard Self.makePipe(&outPipe), !capturesErrors || Self.makePipe(&errPipe) else {
                    spawnError = String(cString: strerror(errno))
                    return nil
                }
                return spawn(stdout: outPipe[1], stderr: capturesErrors ? errPipe[1] : nil, error: &spawnError)
            }
        }
        for fd in [outPipe[1], errPipe[1]] where fd >= 0 { close(fd) }
        defer { for fd in [outPipe[0], errPipe[0]] where fd >= 0 { close(fd) } }
        guard let pid else {
            return Outcome(
                ending: interruption.isInterrupted ? .interrupted : .notStarted(spawnError ?? "unknown error"),
                output: "", errors: "")
        }
        let limit = start + UInt64(max(deadline, 0) * 1e9)
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var timedOut = false
        var open = [outPipe[0], errPipe[0]].filter { $0 >= 0 }
        var status: Int32 = 0
        var reaped = false
        while !reaped {
            let now = monotonicNanoseconds()
            if now >= limit && !timedOut {
                timedOut = true
                kill(-pid, SIGKILL)
            }
            // A process that left the group may hold a pipe open: stop reading soon after the kill.
            if timedOut && now >= limit + 2_000_000_000 { open.removeAll() }
            if !open.isEmpty {
                // Wake at the deadline at the latest.
                let wait = timedOut ? 50 : Int32(clamping: min((limit - min(now, limit)) / 1_000_000 + 1, 1000))
                var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                if poll(&fds, nfds_t(fds.count), wait) > 0 {
                    for entry in fds where entry.revents != 0 {
                        let more =
                            entry.fd == outPipe[0]
                            ? Self.drain(entry.fd, into: &output) : Self.drain(entry.fd, into: &errors)
                        if !more { open.removeAll { $0 == entry.fd } }
                    }
                }
                continue
            }
            // Both pipes closed: the child has ended, or closed them and goes on.
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid || (done == -1 && errno != EINTR) {
                reaped = true
            } else {
                usleep(timedOut ? 1000 : 5000)
            }
        }
        interruption.unregister(pid)
        // Whatever the child started goes with it.
        kill(-pid, SIGKILL)
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        let ending: Ending
        let termSignal = status & 0x7f
        if interruption.isInterrupted && termSignal == SIGKILL {
            ending = .interrupted
        } else if timedOut {
            ending = .timedOut(seconds: seconds)
        } else if termSignal == 0 {
            ending = .exited((status >> 8) & 0xff)
        } else {
            ending = .signaled(termSignal)
        }
        return Outcome(
            ending: ending, output: String(decoding: output, as: UTF8.self),
            errors: String(decoding: errors, as: UTF8.self))
    }

    /// `posix_spawn` of the child as the leader of a new process group, stdin from /dev/null,
    /// the signals `bench` traps back at their defaults and none blocked.
    private func spawn(stdout: Int32, stderr: Int32?, error: inout String?) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, 2) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signo in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, signo) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)

        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        // The child asks to die with this process (`ChildProcess.dieWithParent`).
        var environment = environment
        environment[Self.parentVariable] = String(getpid())
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else {
            error = "\(program): \(String(cString: strerror(result)))"
            return nil
        }
        return pid
    }

    /// The variable that gives a child its parent's pid (`dieWithParent`).
    static let parentVariable = "BENCH_PARENT_PID"

    /// The child's side: asks the kernel to kill this process when the `bench` that spawned it
    /// dies (killed, its terminal closed), so that no child is left measuring; ends this process
    /// at once where that parent is gone already. Nothing where no parent is named (run by hand).
    public static func dieWithParent() {
        guard let value = getenv(parentVariable), let parent = Int32(String(cString: value)) else { return }
        if bench_die_with_parent(parent) == 1 { _exit(1) }
    }

    /// A pipe whose two ends close on exec.
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Reads what `fd` holds now; `false` at its end.
    private static func drain(_ fd: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            buffer += chunk[0..<n]
            return true
        }
        return n < 0 && (errno == EINTR || errno == EAGAIN)
    }
}
