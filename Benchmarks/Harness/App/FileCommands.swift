import Foundation

extension Bench {
    /// `bench report`: regenerate report.md, its group pages and the charts (and, with `--format`,
    /// results.csv, the compact results.json, github-action-benchmark.json) from a results file,
    /// in either form. Each file is written atomically, report.md last.
    func report(input: String, output: String?, formats: Set<RunOptions.Format> = [.markdown]) throws(BenchError) {
        let set = try load(input, role: "results file")
        let folder = output ?? ResultsWriter.parent(of: input)
        let files = Self.files(set, formats: formats)
        do throws(WriteError) {
            for file in files { try ResultsWriter.writeFile(file.contents, to: folder + "/" + file.name) }
        } catch {
            throw BenchError(error)
        }
        console.out(
            "wrote "
                + files.map(\.name).filter { !$0.hasSuffix(".svg") }.map { "\(folder)/\($0)" }.joined(separator: ", ")
                + "\n")
    }

    /// `bench baseline save NAME`: keep what the gate and `compare` read of a results.json as
    /// `results/baselines/NAME.json`, in the compact form (`SummaryJSON`, `Baseline.gatedMetrics`).
    /// Results measured on a tree with uncommitted changes (their commit ends in `-dirty`) are
    /// refused unless `allowDirty`: a baseline should name the code it measured.
    func saveBaseline(name: String, input: String, allowDirty: Bool = false) throws(BenchError) {
        let set = try load(input, role: "results file")
        if set.metadata.interrupted != nil {
            throw BenchError(
                .usage, "'\(input)' is from an interrupted run; complete it with 'bench run --resume FOLDER' first")
        }
        if set.metadata.gitCommit.hasSuffix("-dirty") && !allowDirty {
            throw BenchError(
                .usage,
                "'\(input)' was measured at \(set.metadata.gitCommit), with uncommitted changes; commit and re-measure, or pass --allow-dirty"
            )
        }
        let path = Baseline.path(for: name)
        let text = SummaryJSON.encode(set, detail: .gated, keep: Baseline.gated(in: set))
        do { try ResultsWriter.writeFile(text, to: path) } catch { throw BenchError(error) }
        console.out("saved \(path) (measured at commit \(set.metadata.gitCommit))\n")
    }

    /// `bench compare A B`, judged with the gate's tolerances: the thresholds file of B's toolchain
    /// where there is one (never written here), and what the suite's benchmarks declare of their
    /// threads.
    func compare(_ a: String, _ b: String, thresholdsFolder: String = "results/thresholds") throws(BenchError) {
        let old = try load(a, role: "results")
        let new = try load(b, role: "results")
        let path = Thresholds.path(in: thresholdsFolder, toolchain: new.metadata.toolchain)
        var thresholds = Thresholds()
        if FileManager.default.fileExists(atPath: path) {
            do { thresholds = try Thresholds.loadOrCreate(path) } catch { throw BenchError(error) }
        }
        let runs = (try? Selection(full: true).plan(suite)) ?? []
        console.out(
            Comparison.format(old: old, new: new, oldName: a, newName: b, thresholds: thresholds.declaring(runs)))
    }

    /// A result set, or the reason it cannot be used (exit 5).
    func load(_ reference: String, role: String = "baseline") throws(BenchError) -> ResultSet {
        do { return try Baseline.load(reference, role: role) } catch { throw BenchError(error) }
    }
}
