extension Bench {
    /// `bench check --baseline FILE`: checks the baseline first, runs, re-measures time suspects
    /// with four times the samples and budget, then gates.
    func check(baseline reference: String, _ options: RunOptions, thresholdsFolder: String = "results/thresholds") -> Int32 {
        let baseline: ResultSet
        let thresholds: Thresholds
        do throws(BaselineError) {
            baseline = try Baseline.load(reference)
            try Baseline.checkComparable(
                baseline, toolchain: MetadataCollector.toolchain, allocator: AllocationCounter.allocatorName)
            thresholds = try Thresholds.loadOrCreate(Thresholds.path(in: thresholdsFolder))
        } catch {
            console.err("bench: \(error.message)\n")
            return ExitCode.baselineUnusable
        }
        let outcome = run(options)
        guard var current = outcome.results, let plan = outcome.plan else { return outcome.exitCode }

        var verdict = Gate.evaluate(baseline: baseline, current: current, thresholds: thresholds)
        let suspects = Set(verdict.timeSuspects)
        if !suspects.isEmpty {
            console.err("re-measuring \(suspects.count) suspect(s) with more samples\n")
            var longer = plan
            longer.budgetNanoseconds *= 4
            longer.maxSamples *= 4
            let again = outcome.runs.filter {
                suspects.contains($0.name) && [Gate.ratioNumerator, Gate.ratioDenominator].contains($0.contender)
            }
            for result in measure(again, plan: longer) {
                if let i = current.results.firstIndex(where: { $0.benchmark == result.benchmark && $0.contender == result.contender }) {
                    current.results[i] = result
                }
            }
            do { try write(current, to: options.output, formats: options.formats) } catch {
                console.err("bench: \(error.message)\n")
                return ExitCode.cannotWrite
            }
            verdict = Gate.evaluate(baseline: baseline, current: current, thresholds: thresholds)
        }
        console.out("\n" + Gate.format(verdict))
        if verdict.exitCode == ExitCode.improvementOnly {
            console.out("\nOnly improvements: lock them in with\n  bench baseline save NAME --input \(options.output)/results.json\n")
            console.out("and commit it with the thresholds (\(Thresholds.path(in: thresholdsFolder))):\n\(thresholds.json)")
        }
        return verdict.exitCode
    }
}
