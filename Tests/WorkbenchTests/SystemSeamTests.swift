import Foundation
import TestSupport
import Testing

@testable import Workbench

/// Systems plug in through `WorkbenchSystem` alone: no file of `Sources/Workbench` outside `Systems/` names one (its
/// name or an actor kind's, as a word) but `Catalog.swift`, whose list of systems has one entry each, so a system comes
/// and goes with its folder and that entry.
@Suite struct SystemSeamTests {
    static let names: Set<String> = Set(Catalog.systems.map { $0.name.lowercased() } + Catalog.actorKinds.map(\.name))

    @Test func genericFilesNameNoSystem() throws {
        let folder = Repository.root.appendingPathComponent("Sources/Workbench")
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("Systems/") && $0 != "Catalog.swift" }
        #expect(files.contains("Bench/LoadBench.swift"), "the generic files were not found under \(folder.path)")
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).lowercased()
            // `mig-proxy` as itself, `mig-print-job` by its parts.
            let tokens = text.split { !($0.isLetter || $0.isNumber || $0 == "-") }
            let words = Set(tokens.map(String.init) + tokens.flatMap { $0.split(separator: "-").map(String.init) })
            #expect(words.isDisjoint(with: Self.names), "\(file) names \(words.intersection(Self.names).sorted())")
        }
    }
}
