import Foundation
import TestSupport
import Testing

@testable import Workbench

/// Systems plug in through `WorkbenchSystem` alone. Each is a target of its own under `Sources/Systems/` that depends
/// on no other system (the manifest says so, and the compiler holds it to that); no file of `Sources/Workbench`,
/// `Sources/SystemKit` or `Sources/Recordings` names one (its name or an actor kind's, as a word) but `Catalog.swift`,
/// whose list of systems has one entry each, so a system comes and goes with its folder, its target and that entry.
/// The timeline report (`Sources/Reports`) names none either: the events it draws specially are the libraries', and
/// each system declares how its own are drawn.
@Suite struct SystemSeamTests {
    static let names: Set<String> = Set(Catalog.systems.map { $0.name.lowercased() } + Catalog.actorKinds.map(\.name))

    @Test func genericFilesNameNoSystem() throws {
        let files = try Self.files(under: "Sources/Workbench", endingIn: [".swift"]).filter { $0 != "Catalog.swift" }
        #expect(files.contains("Bench/LoadBench.swift"), "the generic files were not found")
        for file in files { try Self.expectNoSystemNamed(in: "Sources/Workbench/\(file)") }
        for folder in ["Sources/SystemKit", "Sources/Recordings"] {
            let files = try Self.files(under: folder, endingIn: [".swift"])
            #expect(!files.isEmpty, "no files under \(folder)")
            for file in files { try Self.expectNoSystemNamed(in: "\(folder)/\(file)") }
        }
    }

    /// Every folder under `Sources/Systems/` is the target `NAMESystem` in the manifest, one per system of the Catalog,
    /// and none of them depends on another system or on the workbench command.
    @Test func eachSystemIsATargetThatDependsOnNoOtherSystem() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Repository.root.appendingPathComponent("Sources/Systems").path)
            .filter { !$0.hasPrefix(".") }.sorted()
        #expect(folders == Catalog.systems.map(\.name).sorted(), "folders \(folders), systems \(Catalog.systems.map(\.name))")
        let targets = try Self.systemTargets()
        #expect(targets.keys.sorted() == folders.map { $0 + "System" }, "system targets in Package.swift: \(targets.keys.sorted())")
        for (target, dependencies) in targets {
            let named = dependencies.filter { $0.hasSuffix("System") || $0 == "Workbench" || $0 == "WorkbenchKit" }
            #expect(named.isEmpty, "\(target) depends on \(named)")
            #expect(dependencies.contains("SystemKit"), "\(target) does not build on SystemKit: \(dependencies)")
        }
    }

    /// The targets of Package.swift whose names end in `System`, with the names of the targets and products they depend on.
    static func systemTargets() throws -> [String: [String]] {
        let manifest = try String(contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let target = try Regex(#"\.target\(\s*name: "(\w+System)",\s*dependencies: \[([^\]]*)\]"#)
        var targets: [String: [String]] = [:]
        for match in manifest.matches(of: target) {
            guard let name = match.output[1].substring, let list = match.output[2].substring else { continue }
            // Quoted names: targets, and products with their packages (swift-nio…), which never end in System.
            targets[String(name)] = list.matches(of: try Regex(#""([\w-]+)""#)).compactMap { $0.output[1].substring.map(String.init) }
        }
        return targets
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
