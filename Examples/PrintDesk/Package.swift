// swift-tools-version:6.0
import PackageDescription

// An app team's package: its print feature, its SCPms registration and its reports to the team's own backend (PrintDesk)
// and the tests that run it in the workbench's simulated world (the backend too, on NodeHTTP's server).
// It names only the workbench's public library products; the workbench's root package also compiles these folders
// (docs/library.md), so its `swift test` runs these tests too.
let package = Package(
    name: "PrintDesk",
    platforms: [.macOS(.v15)],
    // Named, so the products below name it the same whatever the checkout's folder is called (a path dependency's
    // identity is otherwise its folder's name).
    dependencies: [.package(name: "Workbench", path: "../..")],
    targets: [
        .target(
            name: "PrintDesk",
            dependencies: [
                .product(name: "MiGClient", package: "Workbench"), .product(name: "Wire", package: "Workbench"),
                .product(name: "NodeHTTP", package: "Workbench"),
            ]),
        .testTarget(
            name: "PrintDeskTests",
            dependencies: [
                "PrintDesk", .product(name: "MiGClient", package: "Workbench"), .product(name: "NodeHTTP", package: "Workbench"),
                .product(name: "WorkbenchKit", package: "Workbench"), .product(name: "WorkbenchTesting", package: "Workbench"),
            ]),
    ]
)
