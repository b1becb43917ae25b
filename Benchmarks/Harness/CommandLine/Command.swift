/// Options shared by `bench run` and `bench check`.
public struct RunOptions: Sendable, Equatable {
    /// The files a run or `bench report` writes: `results.csv`, the compact `results.json`,
    /// `report.md` with its group pages and charts, `github-action-benchmark.json`.
    public enum Format: String, Sendable, CaseIterable {
        case csv, json, markdown
        case githubActionBenchmark = "github-action-benchmark"

        /// What a run writes unless `--format` says otherwise.
        public static let runDefault: Set<Format> = [.csv, .json, .markdown]
    }

    public var filter: String?
    public var contenders: [String]?
    public var quick = false
    public var full = false
    public var samples: Int?
    public var parameters = Parameters()
    public var output = "results/latest"
    public var formats: Set<Format> = Format.runDefault
    /// The passes to run (`--metrics`); all by default.
    public var metrics: Set<MetricGroup> = Set(MetricGroup.allCases)
    /// Only the summary: no progress, no child diagnostics (`--quiet`).
    public var quiet = false
    /// Also write `samples.json`: the full result set with every raw sample (`--keep-samples`).
    public var keepSamples = false
    /// An interrupted run's results folder to complete (`--resume DIR`): its own options are used.
    public var resume: String?

    public init() {}

    public var mode: RunMode { quick ? .quick : full ? .full : .standard }

    public var selection: Selection {
        var selection = Selection(filter: filter, contenders: contenders, full: full, overrides: parameters)
        selection.quick = quick
        return selection
    }
}

/// A parsed command line.
public enum Command: Sendable, Equatable {
    /// `--help`; the topic is a subcommand name, or `nil` for the overview.
    case help(String?)
    case list(filter: String?)
    case run(RunOptions)
    case report(input: String, output: String?, formats: Set<RunOptions.Format> = [.markdown])
    case baselineSave(name: String, input: String, allowDirty: Bool = false)
    case compare(String, String)
    case check(baseline: String, RunOptions)
    /// The hidden child-process entry point.
    case measure(request: String)

    /// Whether the command measures (run, check, a measuring child): a build `bench` refuses to
    /// measure stops these.
    public var measures: Bool {
        switch self {
        case .run, .check, .measure: true
        default: false
        }
    }
}
