import Foundation

extension Bench {
    /// `bench check --baseline FILE`: checks the baseline first, runs, re-measures time suspects
    /// (up to three rounds, four times the samples and budget, best ratio kept), then gates.
    func check(
        baseline reference: String, _ options: RunOptions, thresholdsFolder: String = "results/thresholds"
    ) throws(BenchError) -> ExitCode {
        let baseline = try load(reference)
        let thresholdsPath = Thresholds.path(in: thresholdsFolder)
        let file = try thresholds(for: baseline, at: thresholdsPath)
        let outcome = try run(options)
        if outcome.exitCode == .interrupted { return try noVerdict(written: outcome.results != nil, options.output) }
        // No verdict without measurement: a run that produced nothing to gate never passes.
        guard var current = outcome.results, let plan = outcome.plan else {
            if outcome.exitCode != .success { return outcome.exitCode }
            throw BenchError(.baselineUnusable, "nothing was measured to gate; no verdict")
        }
        // What the measured benchmarks declare of their threads, with the file's tolerances.
        let thresholds = file.declaring(outcome.runs)

        var verdict = Gate.evaluate(baseline: baseline, current: current, thresholds: thresholds)
        let rounds = remeasureTimeSuspects(
            &current, &verdict, outcome.runs, plan: plan, baseline: baseline, thresholds: thresholds)
        // Interrupted while re-measuring: the results written above stand, without a verdict.
        if interruption.isInterrupted { return try noVerdict(written: true, options.output) }
        if rounds > 0 {
            try write(current, to: options.output, formats: options.formats, keepSamples: options.keepSamples)
        }
        let gate = Gate.format(verdict)
        console.out("\n" + gate)
        // Beside the results, for a CI job summary.
        do { try ResultsWriter.writeFile("## bench check\n\n" + gate, to: options.output + "/gate.md") } catch {
            throw BenchError(error)
        }
        let unchecked = Gate.unchecked(baseline: baseline, current: current)
        if !unchecked.isEmpty && [.success, .improvementOnly].contains(verdict.exitCode) {
            for line in unchecked { console.err("not checked: \(line)\n") }
            throw BenchError(
                .baselineUnusable,
                "the baseline gates \(unchecked.count) figure(s) this run did not measure (see 'not checked' above)")
        }
        if verdict.exitCode == .improvementOnly {
            console.out(
                "\nOnly improvements: lock them in with\n  bench baseline save NAME --input \(options.output)/results.json\n"
            )
            console.out("and commit it with the thresholds (\(thresholdsPath)):\n\(thresholds.json)")
        }
        return verdict.exitCode
    }

    /// An interrupted check: no verdict, said on stderr and, beside results that were written, in
    /// `gate.md`.
    private func noVerdict(written: Bool, _ folder: String) throws(BenchError) -> ExitCode {
        let signal = interruption.signal.map(Interruption.name) ?? "a signal"
        let line = "check interrupted by \(signal): no verdict"
        console.err("bench: \(line)\n")
        if written {
            do {
                try ResultsWriter.writeFile(
                    "## bench check\n\n\(line.prefix(1).uppercased() + line.dropFirst()).\n", to: folder + "/gate.md")
            } catch {
                throw BenchError(error)
            }
        }
        return .interrupted
    }

    /// The checked baseline's thresholds (`thresholdsPath`, written with the defaults when missing),
    /// once the baseline is known comparable with this run: same toolchain and allocator, and
    /// instruction counts only where they can be counted here.
    private func thresholds(for baseline: ResultSet, at thresholdsPath: String) throws(BenchError) -> Thresholds {
        do throws(BaselineError) {
            try Baseline.checkComparable(
                baseline, toolchain: MetadataCollector.toolchain, allocator: AllocationCounter.allocatorName)
            if !FileManager.default.fileExists(atPath: thresholdsPath) {
                console.err("bench: no thresholds for this toolchain; writing the defaults to \(thresholdsPath)\n")
            }
            let file = try Thresholds.loadOrCreate(thresholdsPath)
            if let reason = InstructionCounter.unavailableReason,
                baseline.results.contains(where: { $0.metric(Metric.instructions) != nil })
            {
                throw BaselineError("the baseline gates instruction counts, which cannot be counted here: \(reason)")
            }
            return file
        } catch {
            throw BenchError(error)
        }
    }

    /// Wall-clock ratios on a shared machine move with each process (a process that lands on a
    /// busy core is slow throughout), so a suspect is re-measured in fresh processes, up to three
    /// times with four times the samples, and keeps its best ratio: a real regression is slow in
    /// every process, noise is not. Returns the rounds run; `current` and `verdict` are updated.
    private func remeasureTimeSuspects(
        _ current: inout ResultSet, _ verdict: inout Gate.Verdict, _ runs: [PlannedRun], plan: TimingPlan,
        baseline: ResultSet, thresholds: Thresholds
    ) -> Int {
        var rounds = 0
        while !verdict.timeSuspects.isEmpty && rounds < 3 && !interruption.isInterrupted {
            rounds += 1
            let suspects = Set(verdict.timeSuspects)
            console.err("re-measuring \(suspects.count) suspect(s) with more samples (round \(rounds) of 3)\n")
            var longer = plan
            longer.budgetNanoseconds *= 4
            longer.maxSamples *= 4
            let again = runs.filter {
                suspects.contains($0.name) && [Gate.ratioNumerator, Gate.ratioDenominator].contains($0.contender)
            }
            var rerun = current
            for result in measure(again, plan: longer).results {
                if let i = rerun.results.firstIndex(where: {
                    $0.benchmark == result.benchmark && $0.contender == result.contender
                }) {
                    rerun.results[i] = result
                }
            }
            for name in suspects {
                guard let better = Gate.ratio(rerun, name), better < Gate.ratio(current, name) ?? .infinity else {
                    continue
                }
                for contender in [Gate.ratioNumerator, Gate.ratioDenominator] {
                    if let i = current.results.firstIndex(where: { $0.benchmark == name && $0.contender == contender }),
                        let replacement = rerun.result(name, contender)
                    {
                        current.results[i] = replacement
                    }
                }
            }
            verdict = Gate.evaluate(baseline: baseline, current: current, thresholds: thresholds)
        }
        return rounds
    }
}
