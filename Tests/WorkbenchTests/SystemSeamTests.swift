import Foundation
import TestSupport
import Testing

@testable import Workbench

/// Systems plug in through `WorkbenchSystem` alone: no file of `Sources/Workbench` outside `Systems/` names one (its
/// name or an actor kind's, as a word) but `Catalog.swift`, whose list of systems has one entry each, so a system comes
/// and goes with its folder and that entry. The timeline report (`Sources/Reports`) names none either: the events it
/// draws specially are the libraries', and each system declares how its own are drawn.
@Suite struct SystemSeamTests {
    static let names: Set<String> = Set(Catalog.systems.map { $0.name.lowercased() } + Catalog.actorKinds.map(\.name))

    @Test func genericFilesNameNoSystem() throws {
        let files = try Self.files(under: "Sources/Workbench", endingIn: [".swift"]).filter { !$0.hasPrefix("Systems/") && $0 != "Catalog.swift" }
        #expect(files.contains("Bench/LoadBench.swift"), "the generic files were not found")
        for file in files { try Self.expectNoSystemNamed(in: "Sources/Workbench/\(file)") }
    }

    @Test func theTimelineReportNamesNoSystem() throws {
        let files = try Self.files(under: "Sources/Reports", endingIn: [".swift", ".js", ".css"])
        #expect(Set(["timeline.js", "timeline.css", "TimelineReport.swift"]).isSubset(of: files), "the report's files were not found: \(files)")
        for file in files { try Self.expectNoSystemNamed(in: "Sources/Reports/\(file)") }
    }

    /// Every event the page's script looks for by name is a library's (`http-request`, `connect`, `fault-fired`…) or
    /// one every system records (`started`), never one of some systems only.
    @Test func theTimelineScriptDrawsOnlyTheLibrariesEvents() throws {
        let systems = Catalog.systems.map { Set($0.traceEvents.map(\.name)) }
        let everySystems = systems.dropFirst().reduce(systems.first ?? []) { $0.intersection($1) }
        let shared = Set(Catalog.libraryTraceEvents.map(\.name)).union(everySystems)
        let drawn = try TraceEventRegistryTests.timelineScriptEvents()
        #expect(drawn.count > 20, "the scan found only \(drawn.count) events the script draws")
        for event in drawn { #expect(shared.contains(event), "timeline.js draws '\(event)', which only some systems record") }
    }

    /// The files under `folder` (relative to it) whose names end in one of `suffixes`.
    static func files(under folder: String, endingIn suffixes: [String]) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: Repository.root.appendingPathComponent(folder).path)
            .filter { file in suffixes.contains(where: file.hasSuffix) }
    }

    static func expectNoSystemNamed(in path: String) throws {
        let text = try String(contentsOf: Repository.root.appendingPathComponent(path), encoding: .utf8).lowercased()
        // `mig-proxy` as itself, `mig-print-job` by its parts.
        let tokens = text.split { !($0.isLetter || $0.isNumber || $0 == "-") }
        let words = Set(tokens.map(String.init) + tokens.flatMap { $0.split(separator: "-").map(String.init) })
        #expect(words.isDisjoint(with: names), "\(path) names \(words.intersection(names).sorted())")
    }
}
