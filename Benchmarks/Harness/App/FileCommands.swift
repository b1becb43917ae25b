import Foundation

extension Bench {
    /// `bench report`: regenerate report.md and the charts from a results.json.
    func report(input: String, output: String?) throws(BenchError) {
        let set = try load(input, role: "results file")
        let folder = output ?? ResultsWriter.parent(of: input)
        do throws(WriteError) {
            for file in Self.reportFiles(set) { try ResultsWriter.writeFile(file.contents, to: folder + "/" + file.name) }
        } catch {
            throw BenchError(error)
        }
        console.out("wrote \(folder)/report.md\n")
    }

    /// `bench baseline save NAME`: keep a results.json as `results/baselines/NAME.json`.
    func saveBaseline(name: String, input: String) throws(BenchError) {
        let set = try load(input, role: "results file")
        let path = Baseline.path(for: name)
        do { try ResultsWriter.writeFile(JSONFormat.encode(set.withoutSamples), to: path) } catch { throw BenchError(error) }
        console.out("saved \(path)\n")
    }

    /// `bench compare A B`.
    func compare(_ a: String, _ b: String) throws(BenchError) {
        let old = try load(a), new = try load(b)
        console.out(Comparison.format(old: old, new: new))
    }

    /// A result set, or the reason it cannot be used (exit 5).
    func load(_ reference: String, role: String = "baseline") throws(BenchError) -> ResultSet {
        do { return try Baseline.load(reference, role: role) } catch { throw BenchError(error) }
    }
}
