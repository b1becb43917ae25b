// swift-tools-version: 6.1
import PackageDescription

// Dependencies point one way:
//   bench -> Harness + Workloads -> Contenders -> LockFreeObservation -> CTrackingSupport
//   Harness -> CJemalloc (allocation counts), CCallgrind (instruction counts)
// jemalloc is behind the default-on `Jemalloc` trait so that sanitizer builds can drop it:
//   swift test --sanitize=thread --disable-default-traits
// `SchedulePoints` (off by default) widens the registrar's race windows for its stress tests:
//   swift test --traits SchedulePoints --filter Adversarial
let package = Package(
    name: "ObservationBench",
    products: [
        .library(name: "LockFreeObservation", targets: ["LockFreeObservation"]),
        .executable(name: "bench", targets: ["bench"]),
    ],
    traits: [
        .trait(name: "Jemalloc", description: "Link jemalloc to count allocations (libjemalloc-dev)."),
        .trait(
            name: "SchedulePoints",
            description: "Widen the registrar's race windows with yields, for its stress tests; bench refuses such a build."),
        .default(enabledTraits: ["Jemalloc"]),
    ],
    targets: [
        // The registrar.
        .target(name: "CTrackingSupport"),
        .target(
            name: "LockFreeObservation", dependencies: ["CTrackingSupport"],
            swiftSettings: [.define("REGISTRAR_SCHEDULE_POINTS", .when(traits: ["SchedulePoints"]))]
        ),

        // The contenders: the same app models, one file per observation system.
        .target(name: "Contenders", dependencies: ["LockFreeObservation"]),

        // The benchmark suite.
        .systemLibrary(
            name: "CJemalloc",
            path: "Benchmarks/CJemalloc",
            pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"])]
        ),
        // Callgrind client requests for the instruction pass (no-ops without valgrind's header).
        .target(name: "CCallgrind", path: "Benchmarks/CCallgrind"),
        .target(
            name: "Harness",
            dependencies: ["CCallgrind", .target(name: "CJemalloc", condition: .when(traits: ["Jemalloc"]))],
            path: "Benchmarks/Harness"
        ),
        // The workloads are the app code every contender runs (renderer, steps): measured release
        // builds leave out its dynamic exclusivity checks, so that the renderer's bookkeeping
        // does not dilute what the steps measure; debug builds (the tests) keep them. The models,
        // the contenders and the registrar keep Swift's defaults.
        .target(
            name: "Workloads", dependencies: ["Contenders", "Harness"], path: "Benchmarks/Workloads",
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
        ),
        .executableTarget(
            name: "bench", dependencies: ["Harness", "Workloads", "Contenders", "LockFreeObservation"],
            path: "Benchmarks/bench"),

        .testTarget(name: "LockFreeObservationTests", dependencies: ["LockFreeObservation"]),
        .testTarget(name: "ContendersTests", dependencies: ["Contenders"]),
        .testTarget(name: "HarnessTests", dependencies: ["Harness"]),
        .testTarget(name: "WorkloadsTests", dependencies: ["Workloads", "Contenders"]),
    ],
    swiftLanguageModes: [.v6]
)
