import Foundation
import Scenario
import TestSupport
import Testing
import Wire

@testable import Workbench

/// The trace events the systems and the libraries under them declare (``Catalog/traceEvents``) are what
/// `expect trace EVENT` is checked against, so the list must be the sources' own: every event a call records is on it,
/// every name on it is recorded somewhere, and every name the systems' invariants, reach points and timeline look for
/// is on it. (Each run checks the events it records too: ``ScenarioLanguage/undeclaredTraceEvent(in:)``.)
@Suite struct TraceEventRegistryTests {
    /// The calls that record an event whose name is no string literal, by file and name expression, with the names they
    /// can record; a forwarder (whose callers give literals, scanned in their turn) records none of its own. A new call
    /// of this kind fails ``everyRecordedEventIsDeclared()`` until it is listed here.
    static let computedNames: [String: [String]] = [
        // Forwarders: `Node.trace`, the network's `trace`, the live request log, `BadRequestAnswer.trace(_:peer:)`,
        // `UnixHost.event(_:_:)`, and Sunfire's reports of its host's and SFTP session's events.
        "Sources/Wire/Node.swift: event": [],
        "Sources/Kernel/SimulatedNetwork.swift: event": [],
        "Sources/Workbench/Serve/RequestLog.swift: event": [],
        "Sources/WireHTTP/BadRequestAnswer.swift: node": [],
        "Sources/SunfireHost/UnixHost.swift: name": [],
        "Sources/Sunfire/SunfireCore.swift: event.name": [],
        "Sources/Sunfire/SFTP/SFTPChannel.swift: event.name": [],
        // The bus's answer to a scheme registration.
        "Sources/Wire/URLBus.swift: outcome": ["scheme-registered", "scheme-taken", "scheme-undeclared"],
        // A finished job: `job-` and the IPP state it finished in.
        "Sources/MiGServer/PrintEngine.swift: \"job-\\(state.keyword)\"": ["job-completed", "job-aborted"],
        // What the bus tells an app of its place on screen.
        "Sources/Workbench/Systems/Ivanti/IvantiDirectives.swift: event.rawValue": URLBus.LifecycleEvent.allCases.map(\.rawValue),
    ]

    /// One call that records a trace event: where, its name expression, and the literal names in it.
    struct RecordingCall {
        let file: String
        let expression: String
        let literals: [String]
        var key: String { "\(file): \(expression)" }
        /// A name built at run time (a variable, an interpolation) rather than written out.
        var isComputed: Bool { literals.isEmpty || literals.contains { $0.contains("\\(") } }
    }

    /// Every Swift file under `Sources/`, by its path from the repository root, with its `//` comment lines blanked.
    static func sources() throws -> [(path: String, text: String)] {
        let folder = Repository.root.appendingPathComponent("Sources")
        return try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted().map { file in
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            return ("Sources/" + file, lines.map { $0.drop { $0 == " " }.hasPrefix("//") ? "" : String($0) }.joined(separator: "\n"))
        }
    }

    /// The top-level arguments of the call whose `(` ends just before `start`, each trimmed.
    static func arguments(_ text: String, from start: String.Index) -> [String] {
        var arguments: [String] = []
        var current = ""
        var depth = 0
        for character in text[start...] {
            switch character {
            case "(", "[", "{": depth += 1
            case ")", "]", "}":
                if depth == 0 { return arguments + [current.trimmingCharacters(in: .whitespacesAndNewlines)] }
                depth -= 1
            case "," where depth == 0:
                arguments.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        return arguments
    }

    static func literals(in text: String) -> [String] {
        text.matches(of: /"((?:[^"\\]|\\.)*)"/).map { String($0.output.1) }
    }

    /// Every call under `Sources/` that records a trace event: `trace(EVENT…)` on a node (not `Invariant.trace`),
    /// `record(actor:event:…)` on a trace sink, and the events Sunfire's host (`HostEvent(EVENT…)`, `event(EVENT…)`)
    /// and SFTP session (`Event(name: EVENT…)`) hand it to record.
    static func recordingCalls() throws -> [RecordingCall] {
        var calls: [RecordingCall] = []
        for (path, text) in try sources() {
            // Simple word boundaries: Unicode's join `node.trace` into one word.
            for match in text.matches(of: /(?:(\w+)\s*\.\s*)?\b(trace|record|HostEvent|Event|event)\(/.wordBoundaryKind(.simple)) {
                guard !text[..<match.range.lowerBound].hasSuffix("func "), match.output.1 != "Invariant" else { continue }
                let arguments = Self.arguments(text, from: match.range.upperBound)
                let expression: String?
                switch match.output.2 {
                case "record": expression = arguments.first { $0.hasPrefix("event:") }.map { String($0.dropFirst(6)) }
                case "Event": expression = arguments.first.flatMap { $0.hasPrefix("name:") ? String($0.dropFirst(5)) : nil }
                case "event": expression = path.hasPrefix("Sources/SunfireHost/") ? arguments.first : nil
                default: expression = arguments.first
                }
                guard let expression = expression?.trimmingCharacters(in: .whitespacesAndNewlines), !expression.isEmpty else { continue }
                calls.append(RecordingCall(file: path, expression: expression, literals: literals(in: expression)))
            }
        }
        return calls
    }

    @Test func everyRecordedEventIsDeclared() throws {
        let calls = try Self.recordingCalls()
        #expect(calls.count > 150, "the scan found only \(calls.count) calls that record an event")
        for call in calls where !call.isComputed {
            for name in call.literals {
                #expect(Catalog.traceEvents.contains(name), "\(call.file) records '\(name)', which no system or library declares")
            }
        }
        for call in calls where call.isComputed {
            let names = try #require(
                Self.computedNames[call.key],
                "\(call.key) records an event whose name is computed: list it in computedNames with the names it can record")
            for name in names { #expect(Catalog.traceEvents.contains(name), "\(call.key) records '\(name)', which nothing declares") }
        }
        let listed = Set(calls.map(\.key))
        for key in Self.computedNames.keys { #expect(listed.contains(key), "computedNames lists \(key), which no longer records") }
    }

    @Test func everyDeclaredEventIsRecordedSomewhere() throws {
        let calls = try Self.recordingCalls()
        let recorded = Set(calls.filter { !$0.isComputed }.flatMap(\.literals) + Self.computedNames.values.joined())
        let stale = Catalog.traceEvents.subtracting(recorded).sorted()
        #expect(stale.isEmpty, "declared, but no call under Sources/ records them: \(stale)")
    }

    /// The events the timeline report's script draws by name: its `case`s (every `switch` in it is on the event's
    /// name), its `e.event === '…'` tests and the keys of its tables of job landmarks and messages.
    static func timelineScriptEvents() throws -> [String] {
        let text = try String(contentsOf: Repository.root.appendingPathComponent("Sources/Reports/timeline.js"), encoding: .utf8)
        let switches = text.matches(of: /switch \(([^)]*)\)/).map { String($0.output.1) }
        #expect(!switches.isEmpty && switches.allSatisfy { $0 == "e.event" }, "timeline.js switches on \(switches)")
        var names = text.matches(of: /case '([^']+)'/).map { String($0.output.1) }
        names += text.matches(of: /\.event === '([^']+)'/).map { String($0.output.1) }
        for table in ["LANDMARKS", "MESSAGES"] {
            let body = try #require(text.firstMatch(of: try Regex("var \(table) = \\{([^}]*)\\}"))?.output[1].substring)
            names += body.matches(of: /'([^']+)':/).map { String($0.output.1) }
        }
        return names
    }

    /// The events the systems' reach points and timeline drawings wait for, the names invariants and directives compare
    /// an event's name with (`event.event == "…"`, `case "…"` in a `switch` on it), and those the timeline report's
    /// script draws.
    @Test func everyEventLookedForIsDeclared() throws {
        for point in Catalog.reachPoints {
            for event in point.events.sorted() { #expect(Catalog.traceEvents.contains(event), "reach point \(point.name) waits for '\(event)'") }
        }
        for drawing in Catalog.timelineEvents {
            #expect(Catalog.traceEvents.contains(drawing.event), "the timeline draws '\(drawing.event)'")
        }
        var compared: [(file: String, name: String)] = []
        for (path, text) in try Self.sources() {
            compared += text.matches(of: /\.event\s*[!=]=\s*"([^"]+)"/).map { (path, String($0.output.1)) }
            var switchOnEvent = false
            var depth = 0
            for line in text.split(separator: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if !switchOnEvent, trimmed.hasPrefix("switch "), trimmed.contains(".event"), trimmed.hasSuffix("{") {
                    switchOnEvent = true
                    depth = 0
                }
                guard switchOnEvent else { continue }
                if trimmed.hasPrefix("case ") {
                    // The pattern ends at the first `:` outside a string, or at its `where`.
                    var quoted = false
                    let pattern = trimmed.dropFirst(5).prefix { character in
                        if character == "\"" { quoted.toggle() }
                        return quoted || character != ":"
                    }
                    compared += Self.literals(in: String(pattern.split(separator: " where ").first ?? "")).map { (path, $0) }
                }
                depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
                if depth <= 0 { switchOnEvent = false }
            }
        }
        compared += try Self.timelineScriptEvents().map { ("Sources/Reports/timeline.js", $0) }
        #expect(compared.count > 50, "the scan found only \(compared.count) event names compared")
        for (file, name) in compared {
            #expect(Catalog.traceEvents.contains(name), "\(file) looks for the event '\(name)', which nothing declares")
        }
    }
}
