// swift-tools-version: 6.1
import Foundation
import PackageDescription

// An adopter of LockFreeObservation: a package of its own that depends on this one by path, as the
// README shows, and declares the models an app writes in a module of their own
// (`AdopterModels`), used from other modules (`AdopterTests`, `adopter-streams`). scripts/test.sh
// builds it and runs both. The dependency is this checkout, two folders up, whatever its folder is
// called (a path dependency's identity is its folder's name).
let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
    .standardizedFileURL
let library = Target.Dependency.product(name: "LockFreeObservation", package: checkout.lastPathComponent)

/// Models that must not compile (`Refused/`), with `ADOPTER_REFUSED=1` only: scripts/test.sh builds
/// them and expects `@TrackedModel`'s error.
let refused: [Target] =
    ProcessInfo.processInfo.environment["ADOPTER_REFUSED"] == "1"
    ? [.target(name: "RefusedModels", dependencies: ["AdopterModels", library], path: "Refused")] : []

let package = Package(
    name: "Adopter",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [.package(path: checkout.path)],
    targets: [
        .target(name: "AdopterModels", dependencies: [library]),
        // Streams consumed on a real main actor (the process's main thread), as an app's are.
        .executableTarget(name: "adopter-streams", dependencies: ["AdopterModels", library]),
        .testTarget(name: "AdopterTests", dependencies: ["AdopterModels", library]),
        // Observation's own tracking of bridged models, as an app sees it: built and run in every
        // configuration an app ships (debug, release, release with every read forwarded, a
        // statically linked standard library) by scripts/test.sh.
        .executableTarget(name: "bridge-check", dependencies: ["AdopterModels", library]),
    ] + refused,
    swiftLanguageModes: [.v6]
)
