import Foundation

extension Bench {
    /// `bench report`: regenerate report.md and the charts from a results.json.
    func report(input: String, output: String?) -> Int32 {
        let set: ResultSet
        do { set = try Baseline.load(input, role: "results file") } catch {
            console.err("bench: \(error.message)\n")
            return ExitCode.baselineUnusable
        }
        let folder = output ?? ResultsWriter.parent(of: input)
        do throws(WriteError) {
            for file in Self.reportFiles(set) { try ResultsWriter.writeFile(file.contents, to: folder + "/" + file.name) }
        } catch {
            console.err("bench: \(error.message)\n")
            return ExitCode.cannotWrite
        }
        console.out("wrote \(folder)/report.md\n")
        return ExitCode.success
    }

    /// `bench baseline save NAME`: keep a results.json as `results/baselines/NAME.json`.
    func saveBaseline(name: String, input: String) -> Int32 {
        let set: ResultSet
        do { set = try Baseline.load(input, role: "results file") } catch {
            console.err("bench: \(error.message)\n")
            return ExitCode.baselineUnusable
        }
        let path = Baseline.path(for: name)
        do { try ResultsWriter.writeFile(JSONFormat.encode(set.withoutSamples), to: path) } catch {
            console.err("bench: \(error.message)\n")
            return ExitCode.cannotWrite
        }
        console.out("saved \(path)\n")
        return ExitCode.success
    }

    /// `bench compare A B`.
    func compare(_ a: String, _ b: String) -> Int32 {
        do throws(BaselineError) {
            let old = try Baseline.load(a), new = try Baseline.load(b)
            console.out(Comparison.format(old: old, new: new))
            return ExitCode.success
        } catch {
            console.err("bench: \(error.message)\n")
            return ExitCode.baselineUnusable
        }
    }
}
