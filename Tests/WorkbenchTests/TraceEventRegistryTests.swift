import Foundation
import Scenario
import TestSupport
import Testing
import Wire

@testable import Workbench

/// The trace events the systems and the libraries under them declare (``Catalog/traceEvents``) are what
/// `expect trace EVENT` is checked against, so the list must be the sources' own: every event a call records is on it,
/// every name on it is recorded somewhere, and every name the systems' invariants, reach points and timeline look for
/// is on it. (Each run checks the events it records too: ``ScenarioLanguage/undeclaredTrace(in:)``.)
@Suite struct TraceEventRegistryTests {
    /// The calls that only pass on an event and fields their callers give (scanned in their turn), so record no name or
    /// key of their own: `Node.trace`, the network's `trace`, the live request log and journal, a world's `record`, `BadRequestAnswer.trace(_:peer:)`,
    /// `UnixHost.event(_:_:)`, and Sunfire's reports of its host's and SFTP session's events.
    static let forwarders: [String: [String]] = [
        "Sources/Wire/Node.swift: event": [],
        "Sources/Kernel/SimulatedNetwork.swift: event": [],
        "Sources/Workbench/Serve/RequestLogSink.swift: event": [],
        "Sources/Scenario/LiveWorld.swift: event": [],
        "Sources/Scenario/World.swift: event": [],
        "Sources/WireHTTP/BadRequestAnswer.swift: node": [],
        "Sources/SunfireHost/UnixHost.swift: name": [],
        "Sources/Sunfire/SunfireCore.swift: event.name": [],
        "Sources/Sunfire/SFTP/SFTPChannel.swift: event.name": [],
    ]

    /// The calls that record an event whose name is no string literal, by file and name expression, with the names they
    /// can record; a forwarder (whose callers give literals, scanned in their turn) records none of its own. A new call
    /// of this kind fails ``everyRecordedEventIsDeclared()`` until it is listed here.
    static let computedNames: [String: [String]] = forwarders.merging([
        // The bus's answer to a scheme registration.
        "Sources/Wire/URLBus.swift: outcome": ["scheme-registered", "scheme-taken", "scheme-undeclared"],
        // A finished job: `job-` and the IPP state it finished in.
        "Sources/MiGServer/PrintEngine.swift: \"job-\\(state.keyword)\"": ["job-completed", "job-aborted"],
        // A document refused as it arrived: the job-state-reason it was aborted with.
        "Sources/MiGServer/MiGPrinter.swift: reason": ["document-format-error", "unsupported-document-format"],
        // What the bus tells an app of its place on screen.
        "Sources/Systems/Ivanti/IvantiDirectives.swift: event.rawValue": URLBus.LifecycleEvent.allCases.map(\.rawValue),
    ]) { $1 }

    /// The calls that record fields whose keys are not all written out (the field array is a variable, or a literal
    /// joined with another), by file and name expression as in ``computedNames``, with every key they can record; a
    /// forwarder records none of its own. A new call of this kind fails ``everyRecordedKeyIsDeclared()`` until it is
    /// listed here.
    static let computedFields: [String: [String]] = forwarders.merging([
        // The operation only when the request named one.
        "Sources/MiGServer/MiGHTTPHandler.swift: \"ipp-response\"": ["from", "operation", "status"],
        // One field per listener, keyed by its scheme.
        "Sources/MiGServer/MiGServer.swift: \"started\"": ["ipp", "ipps"],
        // What the body said it held, when it said.
        "Sources/EchoServer/EchoServer.swift: \"http-response\"": ["from", "status", "received", "reported"],
        // The invariants broken, when any was.
        "Sources/Scenario/ScenarioRunner.swift: \"end\"": ["expectations", "failed", "invariants-broken"],
    ]) { $1 }

    /// The calls that record a closed field (one whose declaration lists its values) with a value that is not written
    /// out as literals, by file, event and key, with the expression: most derive their values from an enum whose cases the
    /// declaration derives its list from too (or a `Bool`), and the run checks each value recorded. A new call of this
    /// kind fails ``everyClosedValueIsDeclaredAndRecorded()`` until it is listed here.
    static let computedValues: [String: String] = [
        "Sources/Sunfire/SunfireAdministration.swift: quota-set kind": "kind.rawValue",
        "Sources/SOCPrint/Upload.swift: upload via": "transport.rawValue",
        "Sources/SOCPrint/PrintOperation.swift: print-finished status": "outcome.rawValue",
        // `running` or `done`, by the row's state.
        "Sources/SOCPrint/PrintOperation.swift: print-step state": "name",
        // The printer-state-reasons keyword of the device fault that stopped it.
        "Sources/MiGServer/PrintEngine.swift: printer-stopped reason": "fault.reason",
        // The converter's name, which each converter command passes.
        "Sources/SunfireHost/Commands/ConverterCommands.swift: conversion tool": "tool",
        // A token's refusal: the JWT code, or the verifier's own.
        "Sources/IMSVerifier/IMSVerifier.swift: token-rejected reason": "error.code.rawValue",
        // How close a session came to being refused: one of `IMSVerifier.margins`.
        "Sources/IMSVerifier/IMSVerifier.swift: session-checked margin": "Self.margin(seconds: left)",
        // The code each refusal passes to `refuse(_:_:_:)`: its own literal, or the JWT code.
        "Sources/IMSSigningBackend/HostSigningBackend.swift: sign-refused reason": "code",
        // A refused URL's or credential's problem code.
        "Sources/IvantiClient/IvantiClient+Requests.swift: url-rejected problem": "error.code.rawValue",
        "Sources/IvantiClient/IvantiClient+Requests.swift: credential-rejected problem": "error.code.rawValue",
        "Sources/AppConnect/AppConnect.swift: appconnect-error problem": "error.code.rawValue",
        // The literal each refusal passes to `refuse(_:_:)`.
        "Sources/SCPmsServer/Routes.swift: appcid-refused reason": "reason",
        "Sources/IvantiClient/IvantiClient.swift: started installation": "configuration.installation.rawValue",
        "Sources/IvantiClient/IvantiClient.swift: installation-changed from": "previous.rawValue",
        "Sources/IvantiClient/IvantiClient.swift: installation-changed to": "installation.rawValue",
        "Sources/IvantiClient/IvantiClient.swift: state-changed auth": "state.authState.word",
        "Sources/IvantiClient/IvantiClient.swift: state-changed policy": "state.managedPolicy.word",
        "Sources/IvantiClient/IvantiClient.swift: state-changed ready": "String(state.ready)",
        "Sources/IvantiClient/IvantiClient.swift: state-changed secure": "state.secureServices.word",
        "Sources/IvantiClient/IvantiClient+Requests.swift: certificate-granted tag": "tag.rawValue",
        "Sources/IvantiClient/IvantiClient+Requests.swift: certificate-denied tag": "tag.rawValue",
        "Sources/AppConnect/AppConnect.swift: appconnect-state auth": "status.authState.word",
        "Sources/AppConnect/AppConnect.swift: appconnect-state policy": "status.managedPolicy.word",
        "Sources/AppConnect/AppConnect.swift: appconnect-state ready": "String(status.ready)",
        "Sources/AppConnect/AppConnect.swift: appconnect-state secure": "status.secureServices.word",
        "Sources/AppConnect/AppConnect.swift: secure-services-changed availability": "status.secureServices.word",
        "Sources/AppConnect/DerivedCredentialService.swift: credential-send-failed code": "String(error.code.rawValue)",
        "Sources/MiGClient/MiGClient.swift: mig-client-job-state state": "status.state.map { \"\\($0)\" } ?? \"unknown\"",
        "Sources/SCPmsServer/SCPmsServer.swift: registration-deleted found": "\"\\(deleted)\"",
        "Sources/SCPmsClient/SCPmsSessionManager.swift: scpms-logger-attached level": "configuration.logLevel.rawValue",
    ]

    /// One call that records a trace event: where, its name expression, the literal names in it, and the keys of its
    /// fields (nil when they are not all written out), with the expression of each value.
    struct RecordingCall {
        let file: String
        let expression: String
        let literals: [String]
        let fields: [(key: String, value: String)]?
        var keys: [String]? { fields?.map(\.key) }
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
        // Inside a string literal (a message with a comma), and just after its backslash.
        var quoted = false
        var escaped = false
        for character in text[start...] {
            if quoted {
                if !escaped && character == "\"" { quoted = false }
                escaped = !escaped && character == "\\"
                current.append(character)
                continue
            }
            switch character {
            case "\"": quoted = true
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
                let fields: String? =
                    switch match.output.2 {
                    case "record": arguments.first { $0.hasPrefix("fields:") }.map { String($0.dropFirst(7)) }
                    case "Event": arguments.dropFirst().first.map { $0.hasPrefix("fields:") ? String($0.dropFirst(7)) : $0 }
                    default: arguments.dropFirst().first
                    }
                calls.append(RecordingCall(file: path, expression: expression, literals: literals(in: expression), fields: Self.fields(in: fields)))
            }
        }
        return calls
    }

    /// The keys and value expressions of a field array written out as `[("key", value), …]` (none when there are no
    /// fields), or nil.
    static func fields(in fields: String?) -> [(key: String, value: String)]? {
        guard let fields = fields?.trimmingCharacters(in: .whitespacesAndNewlines), !fields.isEmpty, fields != "[]" else { return [] }
        guard fields.hasPrefix("["), fields.hasSuffix("]") else { return nil }
        // One literal, not `[…] + […]`: the bracket that opens it closes at the end.
        var depth = 0
        for (offset, character) in fields.enumerated() {
            if "([{".contains(character) { depth += 1 }
            if ")]}".contains(character) { depth -= 1 }
            if depth == 0, offset < fields.count - 1 { return nil }
        }
        var pairs: [(key: String, value: String)] = []
        for element in arguments(fields, from: fields.index(after: fields.startIndex)) where !element.isEmpty {
            guard let key = element.firstMatch(of: /^\(\s*"([^"\\]*)"\s*,/) else { return nil }
            let parts = arguments(element, from: element.index(after: element.startIndex))
            pairs.append((String(key.output.1), parts.dropFirst().first ?? ""))
        }
        return pairs
    }

    /// Every value of a closed field a call writes out (a literal, or either literal of `condition ? "a" : "b"`) is
    /// declared; the values a declaration lists are those the calls write out, unless some call computes them (from an
    /// enum or a `Bool`), which ``computedValues`` must list; and a field some call records with a computed value that
    /// is not listed there fails, so a new one is looked at (the run checks each value it records).
    @Test func everyClosedValueIsDeclaredAndRecorded() throws {
        let calls = try Self.recordingCalls()
        var written: [String: Set<String>] = [:]
        var computed: Set<String> = []
        var listed: Set<String> = []
        for call in calls {
            let names = call.isComputed ? Self.computedNames[call.key] ?? [] : call.literals
            for name in names {
                for (key, value) in call.fields ?? [] {
                    guard let values = Catalog.traceVocabulary.entries[name]?.values[key] else { continue }
                    let literals = Self.literals(in: value).filter { !$0.contains("\\(") }
                    written["\(name) \(key)", default: []].formUnion(literals)
                    for literal in literals {
                        #expect(values.contains(literal), "\(call.file) records \(name) \(key)=\(literal), which its declaration lacks")
                    }
                    let isLiterals = value.firstMatch(of: /^(?:[^"?]*\?\s*)?"[^"\\]*"(?:\s*:\s*"[^"\\]*")?$/) != nil
                    guard !isLiterals else { continue }
                    let entry = "\(call.file): \(name) \(key)"
                    #expect(Self.computedValues[entry] == value, "\(entry) records the closed field from `\(value)`: list it in computedValues")
                    computed.insert("\(name) \(key)")
                    listed.insert(entry)
                }
            }
        }
        var closed = 0
        for (name, entry) in Catalog.traceVocabulary.entries {
            for (key, values) in entry.values {
                closed += 1
                let recorded = written["\(name) \(key)", default: []]
                if !computed.contains("\(name) \(key)") {
                    #expect(values == recorded, "'\(name)' \(key) is declared with \(values.subtracting(recorded).sorted()), which no call records")
                }
            }
        }
        #expect(closed > 30, "the scan found only \(closed) closed fields")
        for entry in Self.computedValues.keys { #expect(listed.contains(entry), "computedValues lists \(entry), which no call records") }
    }

    /// Every key a call records is declared for its event, every key declared for an event is recorded by some call of
    /// it (or the declaration is stale), and the calls whose keys are computed are listed in ``computedFields``.
    @Test func everyRecordedKeyIsDeclared() throws {
        let calls = try Self.recordingCalls()
        #expect(calls.filter { $0.keys?.isEmpty == false }.count > 150, "the scan found only a few calls that record fields")
        var recorded: [String: Set<String>] = [:]
        for call in calls {
            let names = call.isComputed ? Self.computedNames[call.key] ?? [] : call.literals
            let keys =
                try call.keys ?? #require(
                    Self.computedFields[call.key], "\(call.key) records fields whose keys are computed: list them in computedFields")
            for name in names {
                recorded[name, default: []].formUnion(keys)
                for key in keys {
                    #expect(
                        Catalog.traceEventFields[name]?.contains(key) == true,
                        "\(call.file) records '\(name)' with '\(key)', which its declaration lacks")
                }
            }
        }
        for (name, declared) in Catalog.traceEventFields {
            let stale = declared.subtracting(recorded[name] ?? []).sorted()
            #expect(stale.isEmpty, "'\(name)' is declared with \(stale), which no call under Sources/ records")
        }
        let listed = Set(calls.filter { $0.keys == nil }.map(\.key))
        for key in Self.computedFields.keys { #expect(listed.contains(key), "computedFields lists \(key), whose keys are no longer computed") }
    }

    /// The lists of the open code types (structs of static codes, which modules may extend) hold every code their file
    /// defines, since the trace declarations of the events that carry a code derive their values from them.
    @Test func codeListsHoldEveryCode() throws {
        for file in ["Sources/JWT/JWTError.swift", "Sources/DerivedCredential/CredentialProblem.swift"] {
            let text = try String(contentsOf: Repository.root.appendingPathComponent(file), encoding: .utf8)
            let defined = Set(text.matches(of: /static let (\w+) = Code\(rawValue:/).map { String($0.output.1) })
            let list = try #require(text.firstMatch(of: /static let all: \[Code\] = \[([^\]]*)\]/)?.output.1)
            let listed = Set(list.matches(of: /\.(\w+)/).map { String($0.output.1) })
            #expect(defined.count > 10 && listed == defined, "\(file): all lacks \(defined.subtracting(listed).sorted())")
        }
    }

    /// The keys the systems' timeline drawings read of their event (`f.operation`, `f['request-id']`), and those their
    /// reach points and invariants read (`event["job"]`, `$0["status"]`): each of those is read in a declaration
    /// (from one `static let` or `static func` to the next) that names the events it looks at, and one of them must
    /// carry the key. (Which of them a read follows is the code's flow, which the scan does not follow.)
    @Test func everyKeyReadIsDeclared() throws {
        for drawing in Catalog.timelineEvents {
            let keys = drawing.draw.matches(of: /\bf\.([A-Za-z_]\w*)|\bf\['([^']+)'\]/).compactMap { ($0.output.1 ?? $0.output.2).map(String.init) }
            #expect(!keys.isEmpty || !drawing.draw.contains("f."), "the scan found none of the keys the drawing of '\(drawing.event)' reads")
            for key in keys {
                #expect(
                    Catalog.traceEventFields[drawing.event]?.contains(key) == true, "the timeline's '\(drawing.event)' reads '\(key)', which it lacks"
                )
            }
        }
        var reads = 0
        for (path, text) in try Self.sources() where path.hasPrefix("Sources/Systems/") {
            guard ["Reach.swift", "Invariants.swift", "Echo.swift"].contains(where: path.hasSuffix) else { continue }
            var declarations: [[Substring]] = []
            for line in text.split(separator: "\n") {
                if line.firstMatch(of: #/^ {4}(public )?static (let|func|var) /#) != nil || declarations.isEmpty { declarations.append([]) }
                declarations[declarations.count - 1].append(line)
            }
            for lines in declarations {
                let declaration = lines.joined(separator: "\n")
                let keys = declaration.matches(of: /(?:\bevent|\$0)\["([^"]+)"\]/).map { String($0.output.1) }
                guard !keys.isEmpty else { continue }
                let events = Self.literals(in: declaration).filter(Catalog.traceEvents.contains)
                #expect(!events.isEmpty, "\(path): \(lines[0]) reads \(keys) of events it does not name")
                for key in keys {
                    reads += 1
                    #expect(
                        events.contains { Catalog.traceEventFields[$0]?.contains(key) == true },
                        "\(path): \(lines[0].trimmingCharacters(in: .whitespaces)) reads '\(key)' of \(Set(events).sorted()), none of which declares it"
                    )
                }
            }
        }
        #expect(reads > 30, "the scan found only \(reads) keys read of events")
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
    /// name), its `e.event === '…'` tests and the keys of its table of messages.
    static func timelineScriptEvents() throws -> [String] {
        let text = try String(contentsOf: Repository.root.appendingPathComponent("Sources/Reports/timeline.js"), encoding: .utf8)
        let switches = text.matches(of: /switch \(([^)]*)\)/).map { String($0.output.1) }
        #expect(!switches.isEmpty && switches.allSatisfy { $0 == "e.event" }, "timeline.js switches on \(switches)")
        var names = text.matches(of: /case '([^']+)'/).map { String($0.output.1) }
        names += text.matches(of: /\.event === '([^']+)'/).map { String($0.output.1) }
        let messages = try #require(text.firstMatch(of: /var MESSAGES = \{([^}]*)\}/)?.output.1)
        names += messages.matches(of: /'([^']+)':/).map { String($0.output.1) }
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
