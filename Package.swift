// swift-tools-version: 6.1
import CompilerPluginSupport
import Foundation
import PackageDescription

// Dependencies point one way:
//   bench -> Harness + Workloads -> LockFreeObservation -> CTrackingSupport, LockFreeObservationMacros
//   Workloads -> LockedObservation -> LockFreeObservation (its `ChangeObserver`, `TrackedValues`),
//   CLockedTracking -> CTrackingSupport; LockedObservation compiles LockFreeObservation's `Design/`
//   (the scopes) again, through a link, against its own objects
//   Workloads -> Harness -> CJemalloc (allocation counts), CCallgrind (instruction counts),
//   CProcess (a measuring child dies with its parent)
// Every contender's models (Benchmarks/Workloads/Contenders, one file each) are compiled in the
// module that runs them, under the same settings: no contender pays a module boundary another
// does not (Documentation/Methodology.md, "Fair comparisons").
// jemalloc is behind the default-on `Jemalloc` trait so that sanitizer builds can drop it:
//   swift test --sanitize=thread --disable-default-traits
// `SchedulePoints` (off by default) widens the registrar's race windows for its stress tests:
//   swift test --traits SchedulePoints --filter Adversarial (--traits replaces the defaults)
// `@TrackedModel` is a macro. No package can be fetched on the machines this suite is developed on,
// so by default its target builds on the SwiftSyntax modules the toolchain itself ships
// (`<toolchain>/usr/lib/swift/host`, found from the `swift` on PATH, or given by
// `SWIFT_SYNTAX_HOST`), through unsafe flags. A package with unsafe flags cannot be depended on by
// version: `LOCKFREE_OBSERVATION_SWIFT_SYNTAX_PACKAGE=1` builds the macro on the swift-syntax
// package instead, as a published release would.
let environment = ProcessInfo.processInfo.environment
let useSwiftSyntaxPackage = environment["LOCKFREE_OBSERVATION_SWIFT_SYNTAX_PACKAGE"] == "1"

/// The toolchain's host modules: beside the `swift` found on PATH, symlinks resolved.
func toolchainHostModules() -> String {
    if let path = environment["SWIFT_SYNTAX_HOST"] { return path }
    for directory in (environment["PATH"] ?? "").split(separator: ":") {
        let swift = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
        guard FileManager.default.isExecutableFile(atPath: swift.path) else { continue }
        let bin = swift.resolvingSymlinksInPath().deletingLastPathComponent()
        return bin.deletingLastPathComponent().appendingPathComponent("lib/swift/host").path
    }
    return "/usr/lib/swift/host"
}

/// The flags that build a target on the toolchain's SwiftSyntax modules (`libraries`, with what
/// they need).
func hostModuleSettings(_ libraries: [String]) -> (swift: [SwiftSetting], linker: [LinkerSetting]) {
    let host = toolchainHostModules()
    return (
        [.unsafeFlags(["-I", host])],
        [.unsafeFlags(["-L", host] + libraries.map { "-l" + $0 } + ["-Xlinker", "-rpath", "-Xlinker", host])]
    )
}

let syntaxLibraries = [
    "SwiftSyntax", "SwiftSyntaxMacros", "SwiftCompilerPluginMessageHandling", "SwiftSyntaxMacroExpansion",
    "SwiftDiagnostics", "SwiftOperators", "SwiftParser", "SwiftSyntaxBuilder", "SwiftBasicFormat",
    "SwiftParserDiagnostics", "SwiftIfConfig",
]

/// The macro's expansion tests (golden sources, diagnostics), on the same modules.
let macroTestTarget: Target = {
    if useSwiftSyntaxPackage {
        return .testTarget(
            name: "LockFreeObservationMacrosTests",
            dependencies: [
                "LockFreeObservationMacros",
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftIDEUtils", package: "swift-syntax"),
            ])
    }
    // SwiftIDEUtils applies the diagnostics' fix-its.
    let settings = hostModuleSettings(syntaxLibraries + ["SwiftIDEUtils"])
    return .testTarget(
        name: "LockFreeObservationMacrosTests", dependencies: ["LockFreeObservationMacros"],
        swiftSettings: settings.swift, linkerSettings: settings.linker)
}()

let macroTarget: Target = {
    if useSwiftSyntaxPackage {
        return .macro(
            name: "LockFreeObservationMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ])
    }
    let settings = hostModuleSettings(syntaxLibraries)
    return .macro(name: "LockFreeObservationMacros", swiftSettings: settings.swift, linkerSettings: settings.linker)
}()

let package = Package(
    name: "ObservationBench",
    // `Synchronization`'s `Atomic` sets the floor on Apple platforms; Linux is the tested platform.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LockFreeObservation", targets: ["LockFreeObservation"]),
        .executable(name: "bench", targets: ["bench"]),
    ],
    traits: [
        .trait(name: "Jemalloc", description: "Link jemalloc to count allocations (libjemalloc-dev)."),
        .trait(
            name: "SchedulePoints",
            description:
                "Widen the registrar's race windows with yields, for its stress tests; bench refuses such a build."),
        .default(enabledTraits: ["Jemalloc"]),
    ],
    dependencies: useSwiftSyntaxPackage
        ? [.package(url: "https://github.com/swiftlang/swift-syntax.git", from: "602.0.0")] : [],
    targets: [
        // The registrar.
        // `dlopen` and `dlinfo` (the Observation bridge) are in libdl before glibc 2.34 (an empty
        // library after).
        .target(
            name: "CTrackingSupport", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux, .android]))]),
        macroTarget,
        .target(
            name: "LockFreeObservation", dependencies: ["CTrackingSupport", "LockFreeObservationMacros"],
            swiftSettings: [
                .define("REGISTRAR_SCHEDULE_POINTS", .when(traits: ["SchedulePoints"]))
            ]
        ),
        // The ablation (the `locked` contender): the lock-free registrar's design, the same source
        // (`Sources/LockedObservation/Design` is a link to `Sources/LockFreeObservation/Design`,
        // compiled here against `LockedObject`), with each object's observer state behind a lock.
        // Its C target holds its own thread-local, scope table and count of writes in flight; their
        // types and operations are CTrackingSupport's.
        .target(name: "CLockedTracking", dependencies: ["CTrackingSupport"]),
        .target(
            name: "LockedObservation", dependencies: ["CLockedTracking", "CTrackingSupport", "LockFreeObservation"],
            swiftSettings: [
                .define("REGISTRAR_SCHEDULE_POINTS", .when(traits: ["SchedulePoints"]))
            ]
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
        // A measuring child's request to die with its parent (Linux's parent-death signal).
        .target(name: "CProcess", path: "Benchmarks/CProcess"),
        .target(
            name: "Harness",
            dependencies: [
                "CCallgrind", "CProcess", .target(name: "CJemalloc", condition: .when(traits: ["Jemalloc"])),
            ],
            path: "Benchmarks/Harness"
        ),
        // The workloads are the app code every contender runs: the contenders' models, the renderer,
        // the steps, in one module, as an app's models and views would be. Measured release builds
        // leave out dynamic exclusivity checks for all of it (every contender alike; debug builds,
        // the tests, keep them). The registrar keeps Swift's defaults. Function merging is off
        // here: it folds two contenders' specialisations that differ only in a few constants
        // (lockfree's and locked's, which share the registrar's design) into one function taking
        // those constants, their getters, as arguments, a call through a pointer that no app using
        // one registrar makes (Documentation/Methodology.md; scripts/gate.sh fails on a fold).
        .target(
            name: "Workloads", dependencies: ["LockFreeObservation", "LockedObservation", "Harness"],
            path: "Benchmarks/Workloads",
            swiftSettings: [
                .unsafeFlags(
                    ["-enforce-exclusivity=unchecked", "-Xfrontend", "-disable-llvm-merge-functions-pass"],
                    .when(configuration: .release))
            ]
        ),
        .executableTarget(
            name: "bench", dependencies: ["Harness", "Workloads", "LockFreeObservation", "probe"],
            path: "Benchmarks/bench"),
        // An outside measurement of Apple's registrar, from nothing but Observation
        // (Documentation/Methodology.md, "Checked from outside"); bench depends on it so that it is
        // built beside.
        .executableTarget(
            name: "probe",
            dependencies: ["CProcess", .target(name: "CJemalloc", condition: .when(traits: ["Jemalloc"]))],
            path: "Benchmarks/probe"),

        // The registrars' tests. What both registrars promise is one suite run against each
        // (RegistrarContractTests); each registrar's own target keeps what is its own (the lock-free
        // registrar's lanes, pool and install-at-read; the locked one's lock). Their fixtures are
        // named once, in a library target that is no product.
        .target(
            name: "RegistrarTestSupport",
            dependencies: ["LockFreeObservation", "LockedObservation", "CTrackingSupport"],
            path: "Tests/RegistrarTestSupport"),
        .testTarget(name: "LockFreeObservationTests", dependencies: ["LockFreeObservation", "RegistrarTestSupport"]),
        macroTestTarget,
        .testTarget(name: "LockedObservationTests", dependencies: ["LockedObservation", "RegistrarTestSupport"]),
        .testTarget(
            name: "RegistrarContractTests",
            dependencies: [
                "LockFreeObservation", "LockedObservation", "CTrackingSupport", "CLockedTracking",
                "RegistrarTestSupport",
            ]),
        .testTarget(name: "ContendersTests", dependencies: ["Workloads"]),
        // `Recorded/`: two real runs that `compare`'s tests read by path (not resources).
        .testTarget(name: "HarnessTests", dependencies: ["Harness"], exclude: ["Recorded"]),
        .testTarget(name: "WorkloadsTests", dependencies: ["Workloads"]),
    ],
    swiftLanguageModes: [.v6]
)
