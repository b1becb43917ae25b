extension Bench {
    /// What `run` produced: the exit status and, when it measured, the result set.
    public struct RunOutcome {
        public var exitCode: ExitCode
        public var results: ResultSet?
        var runs: [PlannedRun] = []
        var plan: TimingPlan?
    }

    /// `bench run`: select, check the output folder, self-test, measure, write, summarise.
    func run(_ options: RunOptions) throws(BenchError) -> RunOutcome {
        let runs: [PlannedRun]
        do { runs = try options.selection.plan(suite) } catch { throw BenchError(error) }
        if runs.isEmpty { throw BenchError(.usage, "no benchmark matches the selection; see 'bench list'") }
        do { try ResultsWriter.checkWritable(options.output) } catch { throw BenchError(error) }
        do { try AllocationSelfTest.run() } catch { throw BenchError(.benchmarkFailed, "\(error)") }
        IdleThread.start()

        let plan = options.mode.timingPlan(runs: runs.count, maxSamples: options.samples)
        let results = measure(
            runs, plan: plan, deadline: options.mode.totalSeconds, mode: options.mode, metrics: options.metrics,
            quiet: options.quiet)
        var set = ResultSet(
            metadata: MetadataCollector.collect(
                command: commandLine, mode: options.mode.rawValue, faultInjections: faultInjections),
            results: results)
        if let probe = probe, options.metrics.contains(.time),
            set.results.contains(where: { $0.contender == "apple" && $0.benchmark.hasPrefix("primitives/") })
        {
            if let figures = Probe.measure(probe) {
                Probe.attach(figures, to: &set)
            } else {
                console.err("bench: the probe (\(probe)) failed; its figures are left out\n")
            }
        }
        let written = try write(set, to: options.output, formats: options.formats, keepSamples: options.keepSamples)
        console.out(SummaryTable.format(set))
        let failed = reportFailures(set)
        console.out(
            "\n" + SummaryTable.closing(set, folder: options.output, files: written.filter { !$0.hasSuffix(".svg") }))
        return RunOutcome(exitCode: failed ? .benchmarkFailed : .success, results: set, runs: runs, plan: plan)
    }

    func measure(
        _ runs: [PlannedRun], plan: TimingPlan, deadline: Double? = nil, mode: RunMode = .standard,
        metrics: Set<MetricGroup> = Set(MetricGroup.allCases), quiet: Bool = false
    ) -> [BenchmarkResult] {
        let progress = ProgressReporter(console: console, quiet: quiet)
        let runner = Runner(
            executor: executor.reporting(diagnostics: { progress.diagnostic($0) }), metrics: metrics,
            events: { progress.handle($0) })
        defer { progress.finish() }
        return runner.run(runs, plan: plan, deadline: deadline, mode: mode)
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
        _ set: ResultSet, to folder: String, formats: Set<RunOptions.Format>, keepSamples: Bool = false
    ) throws(BenchError) -> [String] {
        let files = Self.files(set, formats: formats, keepSamples: keepSamples)
        do { try ResultsWriter.write(files, to: folder) } catch { throw BenchError(error) }
        return files.map(\.name)
    }
}
