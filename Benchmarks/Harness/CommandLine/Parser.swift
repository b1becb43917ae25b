/// The command-line parser: small, strict, one-line errors. `--flag value` and `--flag=value` are
/// both accepted.
public enum Parser {
    public static let subcommands = ["run", "list", "report", "baseline", "compare", "check", "help"]

    public static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        guard let first = arguments.first else { return .run(RunOptions()) }
        if first == ChildProcessExecutor.subcommand {
            guard arguments.count == 2 else { throw UsageError("\(first) takes one request") }
            return .measure(request: arguments[1])
        }
        if first == "--help" || first == "-h" { return .help(nil) }
        if first == "help" {
            guard arguments.count <= 2 else { throw UsageError("help takes at most one subcommand") }
            if arguments.count == 2, !subcommands.contains(arguments[1]) {
                throw UsageError("unknown subcommand '\(arguments[1])'; try 'bench --help'")
            }
            return .help(arguments.dropFirst().first)
        }
        if first.hasPrefix("-") { return .run(try runOptions(arguments[...]).options) }
        guard subcommands.contains(first) else { throw UsageError("unknown subcommand '\(first)'; try 'bench --help'") }
        let rest = arguments.dropFirst()
        if rest.contains("--help") || rest.contains("-h") { return .help(first) }

        switch first {
        case "run":
            return .run(try runOptions(rest).options)
        case "list": return try list(rest)
        case "report": return try report(rest)
        case "baseline": return try baselineSave(rest)
        case "compare":
            guard rest.count == 2, !rest.contains(where: { $0.hasPrefix("-") }) else {
                throw UsageError("usage: bench compare A B (results folders, baseline names or JSON files)")
            }
            return .compare(rest[rest.startIndex], rest[rest.startIndex + 1])
        case "check":
            let (options, baseline) = try runOptions(rest, acceptBaseline: true)
            guard let baseline else { throw UsageError("check needs --baseline FILE") }
            return .check(baseline: baseline, options)
        default:  // "help" is handled above
            return .help(nil)
        }
    }

    /// `bench list [--filter REGEX]`.
    static func list(_ rest: ArraySlice<String>) throws(UsageError) -> Command {
        var tokens = Tokens(rest)
        var filter: String?
        while let flag = try tokens.nextFlag() {
            guard flag == "--filter" else { throw UsageError("unknown option '\(flag)' for list") }
            filter = try tokens.value(for: flag)
        }
        return .list(filter: filter)
    }

    /// `bench report [--input FILE] [--output DIR] [--format ...]`.
    static func report(_ rest: ArraySlice<String>) throws(UsageError) -> Command {
        var tokens = Tokens(rest)
        var input = "results/latest/results.json"
        var output: String?
        var formats: Set<RunOptions.Format> = [.markdown]
        while let flag = try tokens.nextFlag() {
            switch flag {
            case "--input": input = try tokens.value(for: flag)
            case "--output": output = try tokens.value(for: flag)
            case "--format": formats = try Self.formats(try tokens.value(for: flag))
            default: throw UsageError("unknown option '\(flag)' for report")
            }
        }
        return .report(input: input, output: output, formats: formats)
    }

    /// `bench baseline save NAME [--input FILE] [--allow-dirty]`.
    static func baselineSave(_ rest: ArraySlice<String>) throws(UsageError) -> Command {
        guard rest.first == "save" else {
            throw UsageError("usage: bench baseline save NAME [--input FILE] [--allow-dirty]")
        }
        let rest = rest.dropFirst()
        guard let name = rest.first, !name.hasPrefix("-") else { throw UsageError("baseline save needs a NAME") }
        guard !name.contains("/"), name != ".", name != ".." else {
            throw UsageError("baseline name '\(name)' must not contain '/'")
        }
        var tokens = Tokens(rest.dropFirst())
        var input = "results/latest/results.json"
        var allowDirty = false
        while let flag = try tokens.nextFlag() {
            switch flag {
            case "--input": input = try tokens.value(for: flag)
            case "--allow-dirty":
                try tokens.noValue(for: flag)
                allowDirty = true
            default: throw UsageError("unknown option '\(flag)' for baseline save")
            }
        }
        return .baselineSave(name: name, input: input, allowDirty: allowDirty)
    }

    static func runOptions(_ arguments: ArraySlice<String>, acceptBaseline: Bool = false) throws(UsageError) -> (
        options: RunOptions, baseline: String?
    ) {
        var options = RunOptions()
        var baseline: String?
        var tokens = Tokens(arguments)
        var measuring: [String] = []  // the flags that choose what and how to measure
        var outputGiven = false
        while let flag = try tokens.nextFlag() {
            if !["--output", "--quiet", "--baseline", "--resume"].contains(flag) { measuring.append(flag) }
            switch flag {
            case "--filter": options.filter = try tokens.value(for: flag)
            case "--contender", "--contenders":
                let names = try tokens.value(for: flag).split(separator: ",").map(String.init)
                guard !names.isEmpty else { throw UsageError("\(flag) needs a name") }
                options.contenders = (options.contenders ?? []) + names
            case "--quick":
                try tokens.noValue(for: flag)
                options.quick = true
            case "--full":
                try tokens.noValue(for: flag)
                options.full = true
            case "--samples":
                let text = try tokens.value(for: flag)
                guard let n = Int(text), n > 0 else {
                    throw UsageError("--samples wants a positive integer, not '\(text)'")
                }
                options.samples = n
            case "--param":
                let text = try tokens.value(for: flag)
                guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
                    throw UsageError("--param wants key=value, not '\(text)'")
                }
                options.parameters.entries.append(
                    ParameterEntry(key: String(text[..<eq]), value: String(text[text.index(after: eq)...])))
            case "--output":
                options.output = try tokens.value(for: flag)
                outputGiven = true
            case "--resume": options.resume = try tokens.value(for: flag)
            case "--format": options.formats = try formats(try tokens.value(for: flag))
            case "--metrics":
                var groups = Set<MetricGroup>()
                for name in try tokens.value(for: flag).split(separator: ",") {
                    guard let group = MetricGroup(rawValue: String(name)) else {
                        throw UsageError("unknown metric group '\(name)' (time, allocations, instructions, counts)")
                    }
                    groups.insert(group)
                }
                guard !groups.isEmpty else {
                    throw UsageError("--metrics needs time, allocations, instructions or counts")
                }
                options.metrics = groups
            case "--quiet":
                try tokens.noValue(for: flag)
                options.quiet = true
            case "--keep-samples":
                try tokens.noValue(for: flag)
                options.keepSamples = true
            case "--baseline" where acceptBaseline: baseline = try tokens.value(for: flag)
            default: throw UsageError("unknown option '\(flag)'; try 'bench --help'")
            }
        }
        if options.quick && options.full { throw UsageError("--quick and --full exclude each other") }
        if let folder = options.resume {
            if let flag = measuring.first {
                throw UsageError("--resume measures with the options of the run it completes; leave out \(flag)")
            }
            if !outputGiven { options.output = folder }
        }
        return (options, baseline)
    }
}

extension Parser {
    /// `csv,json,markdown,github-action-benchmark` (`md` for short).
    static func formats(_ text: String) throws(UsageError) -> Set<RunOptions.Format> {
        let names = RunOptions.Format.allCases.map(\.rawValue).joined(separator: ", ")
        var formats = Set<RunOptions.Format>()
        for name in text.split(separator: ",") {
            guard let f = RunOptions.Format(rawValue: name == "md" ? "markdown" : String(name)) else {
                throw UsageError("unknown format '\(name)' (\(names))")
            }
            formats.insert(f)
        }
        guard !formats.isEmpty else { throw UsageError("--format needs one of \(names)") }
        return formats
    }
}

/// Walks `--flag value` / `--flag=value` tokens.
struct Tokens {
    var rest: ArraySlice<String>
    var pending: String?

    init(_ arguments: ArraySlice<String>) { rest = arguments }

    /// The next flag, or `nil` at the end. A bare word where a flag belongs is an error.
    mutating func nextFlag() throws(UsageError) -> String? {
        guard let token = rest.popFirst() else { return nil }
        guard token.hasPrefix("--") else { throw UsageError("unexpected argument '\(token)'") }
        if let eq = token.firstIndex(of: "=") {
            pending = String(token[token.index(after: eq)...])
            return String(token[..<eq])
        }
        pending = nil
        return token
    }

    func noValue(for flag: String) throws(UsageError) {
        if pending != nil { throw UsageError("\(flag) takes no value") }
    }

    mutating func value(for flag: String) throws(UsageError) -> String {
        if let p = pending {
            pending = nil
            return p
        }
        guard let v = rest.popFirst(), !v.hasPrefix("--") else { throw UsageError("\(flag) needs a value") }
        return v
    }
}
