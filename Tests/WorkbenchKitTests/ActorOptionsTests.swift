import Foundation
import Scenario
import TestSupport
import Testing
import Workbench
import WorkbenchKit

/// The typed options: one struct a kind, generated from the catalog, checked and refused as the line is.
@Suite struct ActorOptionsTests {
    static let generated = "Sources/WorkbenchKit/ActorOptions+Catalog.swift"

    /// The generated file is what the catalog makes now: a system's new option is a property, a removed one is gone.
    /// With `WORKBENCH_WRITE_ACTOR_OPTIONS=1`, the test writes it instead.
    @Test func theGeneratedOptionsAreTheCatalogs() throws {
        let file = Repository.root.appendingPathComponent(Self.generated)
        let source = Self.render(Catalog.actorKinds)
        if ProcessInfo.processInfo.environment["WORKBENCH_WRITE_ACTOR_OPTIONS"] == "1" {
            try source.write(to: file, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOf: file, encoding: .utf8)
        #expect(
            committed == source,
            "\(Self.generated) is not what the catalog makes: WORKBENCH_WRITE_ACTOR_OPTIONS=1 swift test --filter ActorOptionsTests writes it")
    }

    @Test func aTypedStartIsTheLine() throws {
        let typed = Simulation(seed: 4)
        let mig = try typed.start(MigOptions(tlsPort: .off, plainPort: 6310, user: "ann", ppm: 120, syncToDisk: true), as: "printer")
        #expect(mig.name == "printer" && mig.host == "mig")
        let words = Simulation(seed: 4)
        try words.start(
            "mig", as: "printer", options: ["tls-port": "none", "plain-port": "6310", "ppm": "120", "user": "ann", "sync-to-disk": "true"])
        #expect(typed.digest == words.digest)
        #expect(StubOptions(from: "Fixtures/x").words == ["from": "Fixtures/x"])
    }

    /// A value the option refuses is refused in the words of the line `start KIND OPTION=VALUE`.
    @Test func aBadValueIsRefusedAsTheLineRefusesIt() throws {
        let lineMessage: String
        do {
            try Simulation(seed: 1).run("start mig ppm=0")
            Issue.record("the line started mig at ppm=0")
            return
        } catch { lineMessage = error.message }
        do {
            try Simulation(seed: 1).start(MigOptions(ppm: 0))
            Issue.record("the typed options started mig at ppm=0")
        } catch {
            // The same message after the place: the line's is this file's, the typed call's the world's own.
            #expect(error.message.drop { $0 != " " } == lineMessage.drop { $0 != " " })
            #expect(error.message.contains("option ppm=0: expected"), "\(error.message)")
        }
    }

    /// `ActorOptions+Catalog.swift` as the catalog makes it: a struct for each kind, a property for each option.
    static func render(_ kinds: [ActorKind]) -> String {
        var lines = [
            "// Generated from the catalog's actor kinds by ActorOptionsTests (Tests/WorkbenchKitTests); do not edit. When a system's",
            "// options change, WORKBENCH_WRITE_ACTOR_OPTIONS=1 swift test --filter ActorOptionsTests writes it again.",
        ]
        for kind in kinds {
            let type = camel(kind.name, upper: true) + "Options"
            let options = kind.options.map { (option: $0, property: camel($0.name, upper: false)) }
            lines.append("")
            lines += comment("The options of `start \(kind.name)`: \(kind.summary).", indent: "")
            lines.append("public struct \(type): ActorStartOptions {")
            lines.append("    /// The actor kind they are for.")
            lines.append("    public static let kind = \"\(kind.name)\"")
            for (option, property) in options {
                lines += comment("`\(option.name)`: \(option.meaning)\(option.required ? " (required)" : "").", indent: "    ")
                lines.append("    public var \(property): \(swiftType(option.value))\(option.required ? "" : "?")")
            }
            lines.append("")
            lines.append("    /// The options of `start \(kind.name)`: those left nil keep their defaults.")
            if options.isEmpty {
                lines.append("    public init() {}")
            } else {
                lines.append("    public init(")
                lines += options.enumerated().map { index, option in
                    "        \(option.property): \(swiftType(option.option.value))\(option.option.required ? "" : "? = nil")\(index == options.count - 1 ? "" : ",")"
                }
                lines.append("    ) {")
                lines += options.map { "        self.\($0.property) = \($0.property)" }
                lines.append("    }")
            }
            lines.append("")
            lines.append("    /// The options given, as the line's `OPTION=VALUE` words.")
            lines.append("    public var words: [String: String] {")
            if options.isEmpty {
                lines.append("        [:]")
            } else {
                lines.append("        let words: [String: String?] = [")
                lines += options.map { "            \"\($0.option.name)\": \(word($0.property, $0.option.value, optional: !$0.option.required))," }
                lines.append("        ]")
                lines.append("        return words.compactMapValues { $0 }")
            }
            lines.append("    }")
            lines.append("}")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The Swift type that stands for an option's values.
    static func swiftType(_ value: ActorOptionValue) -> String {
        switch value {
        case .text: "String"
        case .integer, .port(orNone: false): "Int"
        case .flag: "Bool"
        case .port(orNone: true): "ListenerPort"
        }
    }

    /// The expression that makes the line's word of `property`.
    static func word(_ property: String, _ value: ActorOptionValue, optional: Bool) -> String {
        let convert: String? =
            switch value {
            case .text: nil
            case .integer, .port(orNone: false): "String($0)"
            case .flag: "$0 ? \"true\" : \"false\""
            case .port(orNone: true): "$0.word"
            }
        guard let convert else { return property }
        return optional ? "\(property).map { \(convert) }" : "{ \(convert) }(\(property))"
    }

    /// `tls-port` as `tlsPort`, `mig-proxy` as `MigProxy`.
    static func camel(_ name: String, upper: Bool) -> String {
        let parts = name.split(separator: "-").map(String.init)
        return parts.enumerated().map { index, part in
            index == 0 && !upper ? part : part.prefix(1).uppercased() + part.dropFirst()
        }.joined()
    }

    /// `text` as `///` lines of at most 120 characters.
    static func comment(_ text: String, indent: String) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, indent.count + 4 + line.count + 1 + word.count > 120 {
                lines.append(indent + "/// " + line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return lines + [indent + "/// " + line]
    }
}
