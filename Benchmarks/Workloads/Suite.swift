import Harness

/// Every benchmark the suite knows, for every contender.
public enum Suite {
    public static func all() -> [Benchmark] {
        withFaultInjections(
            Primitives.benchmarks() + ViewTrees.benchmarks() + Grid.benchmarks() + Books.benchmarks()
                + SettingsWorkloads.benchmarks() + RenderCosts.benchmarks() + Streams.benchmarks())
    }
}
