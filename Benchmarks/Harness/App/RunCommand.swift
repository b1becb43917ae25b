import Foundation

extension Bench {
    /// What `run` produced: the exit status and, when it measured, the result set.
    public struct RunOutcome {
        public var exitCode: ExitCode
        public var results: ResultSet?
        var runs: [PlannedRun] = []
        var plan: TimingPlan?
    }

    /// The file beside an interrupted run's results that holds the timing rounds of the
    /// benchmarks it timed in fewer rounds than the run's: what `--resume` goes on from.
    static let roundsFile = "resume.json"

    /// An interrupted run to complete (`--resume`): its results, and the rounds of its partly
    /// timed benchmarks.
    struct Resumable {
        var set: ResultSet
        var rounds: [Runner.RoundsMeasured]
    }

    /// `bench run`: select, check the output folder, self-test, measure, write, summarise. With
    /// `--resume DIR`, the run recorded in DIR is completed (`resumable`). Interrupted, it writes
    /// what it measured, marked interrupted, and returns `.interrupted`.
    func run(_ options: RunOptions) throws(BenchError) -> RunOutcome {
        var options = options
        var previous: Resumable?
        if let folder = options.resume { (options, previous) = try resumable(folder, options) }
        let runs: [PlannedRun]
        do { runs = try options.selection.plan(suite) } catch { throw BenchError(error) }
        if runs.isEmpty { throw BenchError(.usage, "no benchmark matches the selection; see 'bench list'") }
        // What the earlier part measured whole; a partly timed benchmark goes on from its rounds.
        let partlyTimed = Set(previous?.set.metadata.interrupted?.partial.map(\.benchmark) ?? [])
        let kept = previous.map { Self.complete(runs, in: $0.set).filter { !partlyTimed.contains($0.benchmark) } } ?? []
        if let previous, kept.count == runs.count, previous.set.metadata.interrupted == nil {
            console.err("bench: '\(options.resume!)' holds every benchmark of its run; nothing to measure\n")
            // `check --resume` gates it as it stands.
            let plan = options.mode.timingPlan(runs: runs.count, maxSamples: options.samples)
            return RunOutcome(exitCode: .success, results: previous.set, runs: runs, plan: plan)
        }
        do { try ResultsWriter.checkWritable(options.output) } catch { throw BenchError(error) }
        do { try AllocationSelfTest.run() } catch { throw BenchError(.benchmarkFailed, "\(error)") }
        IdleThread.start()

        // The plan and deadline of the whole run (the runner gives what is left its share).
        let plan = options.mode.timingPlan(runs: runs.count, maxSamples: options.samples)
        let outcome = measure(
            runs, plan: plan, deadline: options.mode.totalSeconds, mode: options.mode,
            metrics: options.metrics, quiet: options.quiet, measured: kept, resumed: previous?.rounds ?? [])
        var metadata =
            previous?.set.metadata
            ?? MetadataCollector.collect(
                command: commandLine, mode: options.mode.rawValue, faultInjections: faultInjections)
        if previous != nil {
            let before = Set(kept.map(\.benchmark))
            let stillPartial = Set(outcome.partial.map(\.benchmark))
            let measured = Self.benchmarkNames(outcome.results).filter {
                !before.contains($0) && !stillPartial.contains($0)
            }
            let counted = kept.filter { $0.metric(Metric.instructions) == nil }.compactMap { old in
                outcome.results.first { $0.benchmark == old.benchmark && $0.contender == old.contender }?
                    .metric(Metric.instructions).map { _ in "\(old.benchmark) on \(old.contender)" }
            }
            metadata.interrupted = nil
            metadata.resumed =
                (metadata.resumed ?? []) + [
                    ResumedRun(
                        date: MetadataCollector.now(), command: MetadataCollector.reproducible(commandLine),
                        measured: measured, instructionsCounted: counted.isEmpty ? nil : counted)
                ]
        }
        var set = ResultSet(metadata: metadata, results: outcome.results)
        // (A resumed run's first part may have run the probe already.)
        if let probe = probe, options.metrics.contains(.time), !interruption.isInterrupted,
            set.results.contains(where: {
                $0.contender == "apple" && $0.benchmark.hasPrefix("primitives/") && $0.metric(Probe.metric) == nil
            })
        {
            if let figures = Probe.measure(probe, interruption: interruption) {
                Probe.attach(figures, to: &set)
            } else if !interruption.isInterrupted {
                console.err("bench: the probe (\(probe)) failed; its figures are left out\n")
            }
        }
        if let signal = interruption.signal {
            let partial = Set(outcome.partial.map(\.benchmark))
            set.metadata.interrupted = InterruptedRun(
                signal: Interruption.name(of: signal), rounds: outcome.rounds, partial: outcome.partial,
                notMeasured: Self.notMeasured(runs, in: set),
                instructionsNotCounted: Runner.instructionsWanted(
                    runs.filter { !partial.contains($0.name) }, results: set.results, metrics: options.metrics,
                    mode: options.mode))
        }
        guard !set.results.isEmpty else {
            console.err(
                "bench: interrupted by \(set.metadata.interrupted?.signal ?? "a signal") before any benchmark was "
                    + "timed in a round; nothing written ('\(options.output)' is as it was)\n")
            return RunOutcome(exitCode: .interrupted, results: nil, runs: runs, plan: plan)
        }
        var extra: [(name: String, contents: String)] = []
        if !outcome.unfinished.isEmpty {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            extra.append((Self.roundsFile, String(decoding: try! encoder.encode(outcome.unfinished), as: UTF8.self)))
        }
        // An interrupted run keeps its results.json whatever --format says: --resume reads it.
        let formats = set.metadata.interrupted == nil ? options.formats : options.formats.union([.json])
        let written = try write(
            set, to: options.output, formats: formats, keepSamples: options.keepSamples, extra: extra)
        console.out(SummaryTable.format(set))
        let failed = reportFailures(set)
        console.out(
            "\n" + SummaryTable.closing(set, folder: options.output, files: written.filter { !$0.hasSuffix(".svg") }))
        if let interrupted = set.metadata.interrupted {
            console.err("bench: " + Self.interruptedLine(interrupted, runs: runs, folder: options.output) + "\n")
            return RunOutcome(exitCode: .interrupted, results: set, runs: runs, plan: plan)
        }
        return RunOutcome(exitCode: failed ? .benchmarkFailed : .success, results: set, runs: runs, plan: plan)
    }

    /// The line that says a run was interrupted, what it wrote and how to finish it.
    static func interruptedLine(_ interrupted: InterruptedRun, runs: [PlannedRun], folder: String) -> String {
        let total = benchmarkNames(runs.map(\.name)).count
        let partial = interrupted.partial.count
        let missing = interrupted.notMeasured.count
        var what = ["\(total - partial - missing) of \(total) benchmarks whole"]
        if partial > 0 { what.append("\(partial) in fewer than \(interrupted.rounds) timing rounds") }
        var left = missing > 0 || interrupted.instructionsNotCounted.isEmpty ? ["\(missing) not measured"] : []
        if !interrupted.instructionsNotCounted.isEmpty {
            left.append("instructions not counted for \(interrupted.instructionsNotCounted.count) run(s)")
        }
        return "interrupted by \(interrupted.signal): wrote " + what.joined(separator: " and ") + " to \(folder) ("
            + left.joined(separator: ", ") + "; listed in report.md); finish with: bench run --resume "
            + shellQuoted(folder)
    }

    /// The options and results of the interrupted run in `folder` (`--resume`), read as
    /// `Baseline.load` reads a folder, with the rounds of its partly timed benchmarks
    /// (`roundsFile`); its command line's options, with `given`'s output and quiet. Refused (exit
    /// 5) when unreadable, or measured by other code.
    func resumable(_ folder: String, _ given: RunOptions) throws(BenchError) -> (RunOptions, Resumable) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw BenchError(.baselineUnusable, "cannot resume '\(folder)': it is not a results folder")
        }
        let set: ResultSet
        do { set = try Baseline.load(folder, role: "results") } catch {
            throw BenchError(.baselineUnusable, "cannot resume '\(folder)': \(error.message)")
        }
        let command = set.metadata.command
        let prefix = MetadataCollector.reproducible(["bench"])
        var recorded: RunOptions
        let parsed = command.starts(with: prefix) ? (try? Parser.parse(Array(command.dropFirst(prefix.count)))) : nil
        switch parsed {
        case .run(let options)?, .check(_, let options)?: recorded = options
        default:
            throw BenchError(
                .baselineUnusable,
                "cannot resume '\(folder)': its command (\(set.metadata.commandLine)) is not a run of the suite")
        }
        let here = (
            commit: MetadataCollector.gitCommit(), toolchain: MetadataCollector.toolchain,
            allocator: AllocationCounter.allocatorName
        )
        let m = set.metadata
        var differences: [String] = []
        if m.gitCommit != here.commit { differences.append("commit \(m.gitCommit), this tree is at \(here.commit)") }
        if m.toolchain != here.toolchain { differences.append("Swift \(m.toolchain), this is Swift \(here.toolchain)") }
        if m.allocator != here.allocator { differences.append("\(m.allocator), this build uses \(here.allocator)") }
        // The same build, not only the same commit: a tree with uncommitted changes is `-dirty`
        // whatever the changes; and the same machine, whose figures these are.
        if m.build != MetadataCollector.buildIdentity {
            differences.append(
                m.build.map { "another build of bench (\($0), this one is \(MetadataCollector.buildIdentity))" }
                    ?? "a bench that recorded no build identity")
        }
        let machine = (
            host: MetadataCollector.hostName(), uname: MetadataCollector.machine(), cpu: MetadataCollector.cpuModel(),
            cores: ProcessInfo.processInfo.activeProcessorCount
        )
        if m.host != machine.host || m.machine != machine.uname || m.cpu != machine.cpu || m.cores != machine.cores {
            differences.append(
                "another machine (\(m.host ?? "unknown host"), \(m.cpu), \(m.cores) cores; this is "
                    + "\(machine.host), \(machine.cpu), \(machine.cores) cores)")
        }
        if (m.faultInjections ?? []) != faultInjections {
            differences.append("injected faults \(m.faultInjections ?? []), this build has \(faultInjections)")
        }
        if !differences.isEmpty {
            throw BenchError(
                .baselineUnusable,
                "cannot resume '\(folder)': it was measured with \(differences.joined(separator: "; "))")
        }
        var rounds: [Runner.RoundsMeasured] = []
        if let partial = set.metadata.interrupted?.partial, !partial.isEmpty {
            let path = folder + "/" + Self.roundsFile
            guard let data = FileManager.default.contents(atPath: path),
                let decoded = try? JSONDecoder().decode([Runner.RoundsMeasured].self, from: data),
                Set(decoded.map(\.benchmark)) == Set(partial.map(\.benchmark))
            else {
                throw BenchError(
                    .baselineUnusable,
                    "cannot resume '\(folder)': '\(path)', the timing rounds of its \(partial.count) partly timed "
                        + "benchmark(s), is missing or unreadable")
            }
            rounds = decoded
        }
        recorded.resume = given.resume
        recorded.output = given.output
        recorded.quiet = given.quiet
        return (recorded, Resumable(set: set, rounds: rounds))
    }

    /// The results of `set` for the benchmarks of `runs` that it has on every contender.
    static func complete(_ runs: [PlannedRun], in set: ResultSet) -> [BenchmarkResult] {
        let missing = Set(runs.filter { set.result($0.name, $0.contender) == nil }.map(\.name))
        return runs.compactMap { run in missing.contains(run.name) ? nil : set.result(run.name, run.contender) }
    }

    /// The benchmarks of `runs` that `set` lacks, each once, in run order.
    static func notMeasured(_ runs: [PlannedRun], in set: ResultSet) -> [String] {
        benchmarkNames(runs.filter { set.result($0.name, $0.contender) == nil }.map(\.name))
    }

    static func benchmarkNames(_ results: [BenchmarkResult]) -> [String] { benchmarkNames(results.map(\.benchmark)) }

    /// `names`, each once, in order.
    static func benchmarkNames(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    func measure(
        _ runs: [PlannedRun], plan: TimingPlan, deadline: Double? = nil, mode: RunMode = .standard,
        metrics: Set<MetricGroup> = Set(MetricGroup.allCases), quiet: Bool = false, measured: [BenchmarkResult] = [],
        resumed: [Runner.RoundsMeasured] = []
    ) -> Runner.SuiteOutcome {
        let progress = ProgressReporter(console: console, quiet: quiet)
        let runner = Runner(
            executor: executor.reporting(diagnostics: { progress.diagnostic($0) }), metrics: metrics,
            interruption: interruption, events: { progress.handle($0) })
        defer { progress.finish() }
        return runner.measureSuite(
            runs, plan: plan, deadline: deadline, mode: mode, measured: measured, resumed: resumed)
    }

    /// Prints one line per failed benchmark on stderr; returns whether any failed.
    func reportFailures(_ set: ResultSet) -> Bool {
        let failures = set.results.filter { $0.failure != nil }
        for f in failures {
            let message = f.failure!.split(whereSeparator: \.isNewline).joined(separator: " ")
            console.err("FAILED \(f.benchmark) on \(f.contender): \(message)\n")
        }
        return !failures.isEmpty
    }

    /// The files of a result set, by format.
    /// `results.json` is the compact form (`SummaryJSON`); `samples.json`, with every raw sample,
    /// only when asked for (`--keep-samples`).
    static func files(
        _ set: ResultSet, formats: Set<RunOptions.Format>, keepSamples: Bool = false
    ) -> [(name: String, contents: String)] {
        var files: [(name: String, contents: String)] = []
        if formats.contains(.csv) { files.append(("results.csv", CSVFormat.format(set))) }
        if formats.contains(.json) { files.append(("results.json", SummaryJSON.encode(set))) }
        if keepSamples { files.append(("samples.json", JSONFormat.encode(set))) }
        if formats.contains(.githubActionBenchmark) {
            files.append((GitHubActionBenchmark.fileName, GitHubActionBenchmark.encode(set)))
        }
        if formats.contains(.markdown) { files += reportFiles(set) }
        return files
    }

    /// `report.md`, its group pages and its charts; `report.md` last, so that a file-by-file
    /// write (`bench report`) links only to pages already written.
    static func reportFiles(_ set: ResultSet) -> [(name: String, contents: String)] {
        let charts = ChartSet.charts(set)
        return charts.map { ($0.fileName, $0.svg) } + GroupReport.pages(set, charts: charts)
            + [(ReportFormat.fileName, ReportFormat.format(set, charts: charts))]
    }

    /// Writes the files of `set` to `folder`; returns their names.
    @discardableResult
    func write(
        _ set: ResultSet, to folder: String, formats: Set<RunOptions.Format>, keepSamples: Bool = false,
        extra: [(name: String, contents: String)] = []
    ) throws(BenchError) -> [String] {
        let files = Self.files(set, formats: formats, keepSamples: keepSamples) + extra
        do { try ResultsWriter.write(files, to: folder) } catch { throw BenchError(error) }
        return files.map(\.name)
    }
}
