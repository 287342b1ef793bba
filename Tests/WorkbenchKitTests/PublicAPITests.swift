import Foundation
import TestSupport
import Testing

/// The library's promises about itself: every public symbol is documented, and the example uses only what is public.
@Suite struct PublicAPITests {
    /// The modules of the library products a team's tests and code use (Package.swift's WorkbenchKit, WorkbenchTesting
    /// and NodeHTTP).
    static let libraryFolders = ["Sources/WorkbenchKit", "Sources/WorkbenchTesting", "Sources/NodeHTTP"]

    static func swiftFiles(under folder: String) -> [URL] {
        let root = Repository.root.appendingPathComponent(folder)
        // Hidden folders left out: a build of the example by itself leaves its `.build` (checkouts, sources of others) there.
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    }

    /// A public declaration without a `///` comment right above it (attributes between them allowed) is a defect.
    @Test func everyPublicSymbolHasADocComment() throws {
        var declarations = 0
        for file in Self.libraryFolders.flatMap(Self.swiftFiles) {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where line.trimmingCharacters(in: .whitespaces).hasPrefix("public ") {
                declarations += 1
                var above = index - 1
                while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
                let documented = above >= 0 && lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("///")
                #expect(documented, "\(file.lastPathComponent):\(index + 1): `\(line.trimmingCharacters(in: .whitespaces))` has no doc comment")
            }
        }
        #expect(declarations > 30, "the scan found the public declarations")
    }

    /// The example package is what an app team writes: it imports the workbench's library products (and the toolchain's
    /// modules), never a target that is not one, and never `@testable`.
    @Test func theExampleImportsOnlyPublicProducts() throws {
        let manifest = try String(contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let products = Set(
            manifest.split(separator: "\n").compactMap { line -> String? in
                guard let start = line.range(of: ".library(name: \"") else { return nil }
                return line[start.upperBound...].split(separator: "\"").first.map(String.init)
            })
        #expect(
            products.isSuperset(of: ["WorkbenchKit", "WorkbenchTesting", "NodeHTTP", "MiGClient", "SCPmsClient", "IMSSDK", "AppConnect", "SOCPrint"]))
        let own: Set = ["PrintDesk"]
        // FoundationNetworking: URLRequest and URLSession on Linux (behind `#if canImport`).
        let toolchain: Set = ["Foundation", "FoundationNetworking", "Testing", "Synchronization", "PackageDescription"]
        let files = Self.swiftFiles(under: "Examples")
        #expect(!files.isEmpty)
        for file in files {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                #expect(!words.contains("@testable"), "\(file.lastPathComponent): \(line)")
                guard words.first == "import", words.count == 2 else { continue }
                let module = words[1]
                #expect(
                    products.contains(module) || own.contains(module) || toolchain.contains(module),
                    "\(file.lastPathComponent) imports \(module), which is not a library product of the workbench")
            }
        }
    }
}
