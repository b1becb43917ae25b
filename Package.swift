// swift-tools-version: 6.1
import PackageDescription

// Dependencies point one way:
//   bench -> Harness + Workloads -> LockFreeObservation -> CTrackingSupport
//   Workloads -> LockedObservation -> LockFreeObservation (its `ChangeObserver`), CLockedTracking
//   Workloads -> Harness -> CJemalloc (allocation counts), CCallgrind (instruction counts)
// Every contender's models (Benchmarks/Workloads/Contenders, one file each) are compiled in the
// module that runs them, under the same settings: no contender pays a module boundary another
// does not (README, "Fair comparisons").
// jemalloc is behind the default-on `Jemalloc` trait so that sanitizer builds can drop it:
//   swift test --sanitize=thread --disable-default-traits
// `SchedulePoints` (off by default) widens the registrar's race windows for its stress tests:
//   swift test --traits SchedulePoints --filter Adversarial (--traits replaces the defaults)
let package = Package(
    name: "ObservationBench",
    products: [
        .library(name: "LockFreeObservation", targets: ["LockFreeObservation"]),
        .library(name: "LockedObservation", targets: ["LockedObservation"]),
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
            swiftSettings: [
                .define("REGISTRAR_SCHEDULE_POINTS", .when(traits: ["SchedulePoints"])),
            ]
        ),
        // The ablation: the same registrar design with each object's observer state behind a lock
        // (the `locked` contender), with its own thread-local.
        .target(name: "CLockedTracking"),
        .target(
            name: "LockedObservation", dependencies: ["CLockedTracking", "LockFreeObservation"]
        ),

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
        // The workloads are the app code every contender runs: the contenders' models, the renderer,
        // the steps, in one module, as an app's models and views would be. Measured release builds
        // leave out dynamic exclusivity checks for all of it (every contender alike; debug builds,
        // the tests, keep them). The registrar keeps Swift's defaults.
        .target(
            name: "Workloads", dependencies: ["LockFreeObservation", "LockedObservation", "Harness"], path: "Benchmarks/Workloads",
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
        ),
        .executableTarget(
            name: "bench", dependencies: ["Harness", "Workloads", "LockFreeObservation", "probe"],
            path: "Benchmarks/bench"),
        // An outside measurement of Apple's registrar, from nothing but Observation (README,
        // "Agreement with an outside measurement"); bench depends on it so that it is built beside.
        .executableTarget(
            name: "probe", dependencies: [.target(name: "CJemalloc", condition: .when(traits: ["Jemalloc"]))],
            path: "Benchmarks/probe"),

        .testTarget(name: "LockFreeObservationTests", dependencies: ["LockFreeObservation"]),
        .testTarget(name: "LockedObservationTests", dependencies: ["LockedObservation"]),
        .testTarget(name: "ContendersTests", dependencies: ["Workloads"]),
        .testTarget(name: "HarnessTests", dependencies: ["Harness"]),
        .testTarget(name: "WorkloadsTests", dependencies: ["Workloads"]),
    ],
    swiftLanguageModes: [.v6]
)
