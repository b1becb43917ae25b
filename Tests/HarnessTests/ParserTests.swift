import Testing

@testable import Harness

@Suite struct ParserTests {
    func usageError(_ arguments: [String]) -> String? {
        do {
            _ = try Parser.parse(arguments)
            return nil
        } catch { return error.message }
    }

    @Test func noArgumentsRunsTheDefaultSuite() throws {
        #expect(try Parser.parse([]) == .run(RunOptions()))
    }

    @Test func runOptions() throws {
        var expected = RunOptions()
        expected.filter = "books/.*"
        expected.contenders = ["lockfree", "apple", "naive"]
        expected.quick = true
        expected.samples = 50
        expected.parameters = Parameters([("n", "100"), ("mode", "a=b")])
        expected.output = "/tmp/out"
        expected.formats = [.csv, .markdown]
        let parsed = try Parser.parse([
            "run", "--filter", "books/.*", "--contender", "lockfree,apple", "--contender=naive", "--quick", "--samples",
            "50",
            "--param", "n=100", "--param=mode=a=b", "--output", "/tmp/out", "--format", "csv,md",
        ])
        #expect(parsed == .run(expected))
        #expect(
            try Parser.parse(["--quick"])
                == .run(
                    {
                        var o = RunOptions()
                        o.quick = true
                        return o
                    }()))
        // --resume writes back to the folder it completes, unless --output says otherwise.
        var resume = RunOptions()
        resume.resume = "results/partial"
        resume.output = "results/partial"
        resume.quiet = true
        #expect(try Parser.parse(["run", "--resume", "results/partial", "--quiet"]) == .run(resume))
        resume.output = "elsewhere"
        #expect(
            try Parser.parse(["run", "--output", "elsewhere", "--resume=results/partial", "--quiet"]) == .run(resume))
    }

    @Test func otherSubcommands() throws {
        #expect(try Parser.parse(["list"]) == .list(filter: nil))
        #expect(try Parser.parse(["list", "--filter", "prim"]) == .list(filter: "prim"))
        #expect(try Parser.parse(["report"]) == .report(input: "results/latest/results.json", output: nil))
        #expect(
            try Parser.parse(["report", "--input", "a.json", "--output", "d"]) == .report(input: "a.json", output: "d"))
        #expect(
            try Parser.parse(["baseline", "save", "main"])
                == .baselineSave(name: "main", input: "results/latest/results.json"))
        #expect(
            try Parser.parse(["report", "--format", "json,csv"])
                == .report(input: "results/latest/results.json", output: nil, formats: [.json, .csv]))
        #expect(
            try Parser.parse(["report", "--format", "github-action-benchmark"])
                == .report(input: "results/latest/results.json", output: nil, formats: [.githubActionBenchmark]))
        #expect(RunOptions().formats == [.csv, .json, .markdown])
        #expect(
            try Parser.parse(["baseline", "save", "main", "--allow-dirty"])
                == .baselineSave(name: "main", input: "results/latest/results.json", allowDirty: true))
        var chosen = RunOptions()
        chosen.metrics = [.time, .counts]
        chosen.quiet = true
        chosen.keepSamples = true
        #expect(try Parser.parse(["run", "--metrics", "time,counts", "--quiet", "--keep-samples"]) == .run(chosen))
        #expect(try Parser.parse(["compare", "a", "b.json"]) == .compare("a", "b.json"))
        var quick = RunOptions()
        quick.quick = true
        #expect(try Parser.parse(["check", "--baseline", "main", "--quick"]) == .check(baseline: "main", quick))
        #expect(try Parser.parse(["__measure", "{}"]) == .measure(request: "{}"))
    }

    @Test func help() throws {
        #expect(try Parser.parse(["--help"]) == .help(nil))
        #expect(try Parser.parse(["-h"]) == .help(nil))
        #expect(try Parser.parse(["help", "run"]) == .help("run"))
        #expect(try Parser.parse(["check", "--help"]) == .help("check"))
        #expect(Usage.text(for: nil).contains("64  usage error"))
        #expect(Usage.text(for: "run").contains("73  the results folder cannot be written"))
        #expect(
            Usage.text(for: "check").contains("5   baseline (or report/compare/--resume input) missing or unreadable"))
        #expect(Usage.text(for: "run").contains("130 interrupted (SIGINT, SIGTERM, SIGHUP)"))
    }

    @Test func usageErrors() {
        #expect(usageError(["--no-such-flag"]) == "unknown option '--no-such-flag'; try 'bench --help'")
        #expect(usageError(["frobnicate"]) == "unknown subcommand 'frobnicate'; try 'bench --help'")
        #expect(usageError(["help", "frobnicate"]) == "unknown subcommand 'frobnicate'; try 'bench --help'")
        #expect(usageError(["run", "--samples", "banana"]) == "--samples wants a positive integer, not 'banana'")
        #expect(usageError(["run", "--samples", "0"]) == "--samples wants a positive integer, not '0'")
        #expect(usageError(["run", "--samples"]) == "--samples needs a value")
        #expect(usageError(["run", "--filter", "--quick"]) == "--filter needs a value")
        #expect(usageError(["run", "--param", "n"]) == "--param wants key=value, not 'n'")
        #expect(usageError(["run", "--param", "=3"]) == "--param wants key=value, not '=3'")
        #expect(
            usageError(["run", "--format", "pdf"])
                == "unknown format 'pdf' (csv, json, markdown, github-action-benchmark)")
        #expect(usageError(["run", "--quick", "--full"]) == "--quick and --full exclude each other")
        #expect(usageError(["run", "--quick=yes"]) == "--quick takes no value")
        #expect(usageError(["run", "stray"]) == "unexpected argument 'stray'")
        #expect(usageError(["run", "--baseline", "x"]) == "unknown option '--baseline'; try 'bench --help'")
        #expect(usageError(["list", "--quick"]) == "unknown option '--quick' for list")
        #expect(usageError(["check", "--quick"]) == "check needs --baseline FILE")
        #expect(usageError(["baseline"]) == "usage: bench baseline save NAME [--input FILE] [--allow-dirty]")
        #expect(usageError(["baseline", "save"]) == "baseline save needs a NAME")
        #expect(usageError(["baseline", "save", "a/b"]) == "baseline name 'a/b' must not contain '/'")
        #expect(
            usageError(["compare", "a"]) == "usage: bench compare A B (results folders, baseline names or JSON files)")
        #expect(usageError(["run", "--resume"]) == "--resume needs a value")
        for flag in [["--samples", "3"], ["--contender", "apple"], ["--metrics", "time"], ["--keep-samples"]] {
            #expect(
                usageError(["run", "--resume", "r"] + flag)
                    == "--resume measures with the options of the run it completes; leave out \(flag[0])")
        }
        #expect(usageError(["report", "--bogus"]) == "unknown option '--bogus' for report")
    }
}
