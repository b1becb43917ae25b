import Synchronization

/// Turns the runner's events into progress on stderr. On a terminal, one live line:
/// `[12/66] books/select/n=100000 apple  timing 2/3  ~3 min left`; a line as each timing round
/// begins. Elsewhere (CI logs), the round lines and one plain line per run when it ends (in the
/// last round), with its p50. Quiet: nothing. Child processes' diagnostics pass
/// through `diagnostic`, each distinct line once.
public final class ProgressReporter: Sendable {
    let console: Console
    let quiet: Bool
    private let state = Mutex(State())

    struct State {
        var started: UInt64 = 0
        var seenDiagnostics = Set<String>()
        var live = false
    }

    public init(console: Console, quiet: Bool) {
        self.console = console
        self.quiet = quiet
        state.withLock { $0.started = monotonicNanoseconds() }
    }

    public func handle(_ event: RunEvent) {
        guard !quiet else { return }
        switch event {
        case .roundBegan(let round, let rounds):
            clearLive()
            console.err("timing round \(round + 1) of \(rounds)\n")
        case .passBegan(let index, let total, let run, let pass, let done):
            guard console.interactive else { return }
            let left = state.withLock { s -> String in
                guard done > 0 else { return "" }
                let elapsed = Double(monotonicNanoseconds() - s.started) / 1e9
                return "  ~" + Self.duration(elapsed * (1 - done) / done) + " left"
            }
            show("[\(index + 1)/\(total)] \(run.name) \(run.contender)  \(pass)\(left)")
        case .runEnded(let index, let total, let result):
            if !console.interactive { console.err(Self.endLine(index: index, total: total, result) + "\n") }
        case .instructionsBegan(let runs, let estimate):
            let line = "counting instructions of \(runs) runs under callgrind, ~\(Self.duration(estimate))"
            if console.interactive { show(line) } else { console.err(line + "\n") }
        case .note(let line):
            clearLive()
            console.err("bench: " + line + "\n")
        }
    }

    /// One line a child process printed on stderr: shown the first time only.
    public func diagnostic(_ line: String) {
        guard !quiet, state.withLock({ $0.seenDiagnostics.insert(line).inserted }) else { return }
        clearLive()
        console.err(line + "\n")
    }

    /// Ends the live line, if any.
    public func finish() { clearLive() }

    static func endLine(index: Int, total: Int, _ result: BenchmarkResult) -> String {
        let head = "[\(index + 1)/\(total)] \(result.benchmark) \(result.contender): "
        if let failure = result.failure {
            return head + "FAILED (" + failure.split(whereSeparator: \.isNewline).joined(separator: " ") + ")"
        }
        if let p50 = result.metric(Metric.time)?.summary.p50 { return head + "p50 " + NumberFormat.duration(p50) }
        return head + "done"
    }

    /// `45 s`, `3 min`.
    static func duration(_ seconds: Double) -> String {
        seconds < 90 ? "\(max(1, Int(seconds.rounded()))) s" : "\(Int((seconds / 60).rounded())) min"
    }

    private func show(_ line: String) {
        state.withLock { $0.live = true }
        console.err("\r\u{1B}[K" + line)
    }

    private func clearLive() {
        let wasLive = state.withLock { s in
            defer { s.live = false }
            return s.live
        }
        if wasLive { console.err("\r\u{1B}[K") }
    }
}
