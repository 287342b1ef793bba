// swift-tools-version:6.0
import PackageDescription

// An app team's package: its print feature (PrintDesk) and the tests that run it in the workbench's simulated world.
// It names only the workbench's public library products; the workbench's root package also compiles these folders
// (docs/library.md), so its `swift test` runs these tests too.
let package = Package(
    name: "PrintDesk",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../..")],
    targets: [
        .target(name: "PrintDesk", dependencies: ["MiGClient", "Wire"]),
        .testTarget(name: "PrintDeskTests", dependencies: ["PrintDesk", "MiGClient", "WorkbenchKit", "WorkbenchTesting"]),
    ]
)
