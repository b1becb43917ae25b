/// `bench --help` and `bench <subcommand> --help`.
public enum Usage {
    static var exitCodes: String { ExitCode.table }

    static let runOptions = """
          --filter REGEX          only benchmarks whose full name matches REGEX
          --contender A,B         only these contenders (lockfree, apple, naive, ...)
          --quick                 smaller time budget and sample cap, and without the render-cost families
                                  unless --filter names them (about 2.5 minutes)
          --full                  bigger budget, and each family's large parameter sets
          --samples N             at most N timing samples per benchmark
          --param KEY=VALUE       override KEY in every parameter set of the families that declare it
          --output DIR            results folder (default results/latest), replaced atomically
          --format csv,json,markdown,github-action-benchmark
                                  files to write (default csv,json,markdown): results.csv, results.json,
                                  report.md with a report-<group>.md per benchmark group and SVG charts,
                                  github-action-benchmark.json (github-action-benchmark's customSmallerIsBetter
                                  input: time p50, instructions, mallocs, bytes per benchmark and contender)
          --metrics time,allocations,instructions,counts
                                  passes to run (default all); a run expected to take too long under
                                  callgrind is not counted, with a note
          --quiet                 print the summary only: no progress, no child diagnostics
          --keep-samples          also write samples.json, every raw sample (results.json holds summaries)
          --resume DIR            complete the interrupted run whose results are in DIR: time each benchmark
                                  in the rounds it lacks, with DIR's options, and write the whole set to DIR
                                  (or --output); only --output and --quiet may be given with it
        Each measuring child has a deadline: 60 s plus 4 times what its pass is given (the timing
        pass's warm-up and budget, the counting pass's operations at the measured p50, the instruction
        pass's estimate); past it its process group is killed and its benchmark fails ("timed out").
        Ctrl-C (SIGINT), SIGTERM or SIGHUP stops the children and writes what was measured (every whole
        timing round), marked interrupted; bench then dies of that signal. A second signal ends bench
        at once. --output takes a new folder, an empty one, or an earlier run's (nothing in it but what
        bench writes): a run replaces it whole.
        """

    /// `bench report --help`.
    static let report = """
        USAGE: bench report [--input FILE] [--output DIR] [--format csv,json,markdown,github-action-benchmark]

        Regenerates files from a results.json or samples.json (default results/latest/results.json), into
        DIR (default: the folder holding FILE). --format chooses (default markdown):
          csv                      results.csv
          json                     the compact results.json
          markdown                 report.md (summary, charts, render cost, thread scaling, probe,
                                   allocations), a report-<group>.md per benchmark group with every
                                   percentile, and the SVG charts
          github-action-benchmark  github-action-benchmark.json, for github-action-benchmark's
                                   customSmallerIsBetter tool: one entry per benchmark x contender x
                                   metric where less is better (time p50, instructions, mallocs, bytes)
        Intervals of the time ratios, and the report's verdicts, need each process's samples: a
        samples.json (run --keep-samples) has them, a results.json does not.

        """

    /// `bench check --help`.
    static let check = """
        USAGE: bench check --baseline FILE [run options]

        Runs the suite (with the run options) and gates it against FILE:
          - count metrics (notifications, invalidations, evaluations, unnecessary, missed) exactly,
            and a workload's extra values (e.g. the grid's sum and count) exactly;
          - mallocs per operation within an absolute tolerance;
          - speed: lockfree's instructions per operation (callgrind) where the baseline counted them
            (the deterministic, single-threaded benchmarks), within instructionTolerance of the
            baseline's; elsewhere the p50 time ratio lockfree / apple of this run against the
            baseline's ratio, within timeRatioTolerance,
            with suspects re-measured with more samples before the verdict.
        Tolerances come from results/thresholds/<swift version>.json (committed; written with the
        defaults below when missing):
        \(Thresholds.defaultsJSON)

        Options:
          --baseline FILE         a baseline name (results/baselines/NAME.json), a JSON file or a results folder
        \(runOptions)

        \(exitCodes)

        """

    /// `bench --help`.
    static let overview = """
        USAGE: bench [subcommand] [options]

        Measures the observation contenders and reports time, allocations and invalidations per operation.

        Subcommands:
          run                     measure the suite (the default when no subcommand is given)
          list                    print benchmark names
          report                  regenerate report.md, its pages and charts, or an export, from a results.json
          baseline save NAME      keep a results.json as a named baseline
          compare A B             compare two result sets (results folders, baseline names or JSON files)
          check --baseline FILE   run and gate against a baseline

        Run options (bench run / bench check):
        \(runOptions)

        See 'bench <subcommand> --help' for more.

        \(exitCodes)

        """

    public static func text(for topic: String?) -> String {
        switch topic {
        case "run":
            return
                "USAGE: bench run [options]\n\nMeasures the suite and writes results.csv, results.json, report.md (with a page per benchmark group) and SVG charts.\n\nOptions:\n\(runOptions)\n\n\(exitCodes)\n"
        case "list":
            return
                "USAGE: bench list [--filter REGEX]\n\nPrints every benchmark's full name once, e.g. books/toggle-available/n=100000/visible=50.\n"
        case "report": return report
        case "baseline":
            return
                "USAGE: bench baseline save NAME [--input FILE] [--allow-dirty]\n\nKeeps what check reads of a results.json (default results/latest/results.json) as\nresults/baselines/NAME.json: one line per benchmark and contender, summaries only. Refuses results\nmeasured with uncommitted changes unless --allow-dirty.\n"
        case "compare":
            return
                "USAGE: bench compare A B\n\nCompares two result sets: results folders (as run --output writes them), baseline names or\nJSON files. First where each comes from (interrupted, resumed, another machine) and what\nchanged; then each kind of figure by its own rule, largest change first: counts exactly,\nmallocs and memory within tolerances, instructions beyond the gate's factor, times by a noise\nmodel of the timing processes' medians (Bonferroni over the times, at least 5%); failures that\nappeared or disappeared, results on one side only; what this comparison could detect; then a\nMarkdown table of every figure both have. Documentation/RunningBenchmarks.md, \"Comparing two\nruns\", states the rule.\n"
        case "check": return check
        default: return overview
        }
    }
}
