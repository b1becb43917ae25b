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
        let results = measure(runs, plan: plan, deadline: options.mode.totalSeconds, mode: options.mode)
        let set = ResultSet(
            metadata: MetadataCollector.collect(
                command: commandLine, mode: options.mode.rawValue, faultInjections: faultInjections),
            results: results)
        try write(set, to: options.output, formats: options.formats)
        console.out(SummaryTable.format(set))
        let failed = reportFailures(set)
        return RunOutcome(exitCode: failed ? .benchmarkFailed : .success, results: set, runs: runs, plan: plan)
    }

    func measure(_ runs: [PlannedRun], plan: TimingPlan, deadline: Double? = nil, mode: RunMode = .standard) -> [BenchmarkResult] {
        let console = self.console
        let runner = Runner(executor: executor, progress: { console.progress($0) })
        defer { console.endProgress() }
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
    static func files(_ set: ResultSet, formats: Set<RunOptions.Format>) -> [(name: String, contents: String)] {
        var files: [(name: String, contents: String)] = []
        if formats.contains(.csv) { files.append(("results.csv", CSVFormat.format(set))) }
        if formats.contains(.json) { files.append(("results.json", JSONFormat.encode(set))) }
        if formats.contains(.markdown) { files += reportFiles(set) }
        return files
    }

    /// `report.md` and its charts.
    static func reportFiles(_ set: ResultSet) -> [(name: String, contents: String)] {
        let charts = ChartSet.charts(set)
        return [("report.md", ReportFormat.format(set, charts: charts))] + charts.map { ($0.fileName, $0.svg) }
    }

    func write(_ set: ResultSet, to folder: String, formats: Set<RunOptions.Format>) throws(BenchError) {
        do { try ResultsWriter.write(Self.files(set, formats: formats), to: folder) } catch { throw BenchError(error) }
    }
}
