import Foundation
import Kernel
import LineEditor
import Scenario
import SystemKit
import Wire

// MARK: - Help, `show` and completion

extension ConsoleSession {
    /// The words the language reads in front of a directive (they are not directives themselves), with their help.
    static let prefixes: [(name: String, usage: String, summary: String)] = [
        ("spawn", "spawn NAME DIRECTIVE…", "run a directive in the background; 'join NAME' waits for it and publishes its results"),
        (
            "later", "later DURATION DIRECTIVE…",
            "run a change to the world (partition, heal, hold, release, reset, link, clock, fault, crash) that much "
                + "virtual time later, in the middle of whatever runs then"
        ),
    ]

    /// The console's own commands (not scenario words), with their help.
    static let consoleCommands: [(name: String, usage: String, summary: String)] = [
        (
            "show", "show trace [N] | vars | connections | faults | actors | reached",
            "the last N trace events (numbered), the variables, the open connections, the fault points, the started actors "
                + "(name, kind, host), the reach points"
        ),
        ("digest", "digest", "the SHA-256 of the canonical trace so far, its event count and the virtual time"),
        ("history", "history", "the lines that acted on the world, with their virtual times and trace events: what rewind replays"),
        (
            "rewind", "rewind N | rewind to DURATION",
            "go back to trace event #N (lines run whole: an event inside a line goes back to just before it) or to a "
                + "virtual time, by replaying the lines so far under the same seed; what you type next branches from there"
        ),
        ("quit", "quit", "leave the console (also 'exit' or Ctrl-D)"),
    ]

    /// Commands of the `workbench` tool that take the same lines elsewhere, with their help (`help attach`).
    static let relatedCommands: [(name: String, usage: String, summary: String)] = [
        (
            "attach", "workbench attach [--state-dir DIR]",
            "this console on a running 'workbench serve': fault, link, partition, heal, hold, release, reset, clock, advance, "
                + "restart, stop, expect and wait until trace act on the served actors and real connections (a client is the node named by its "
                + "address, phone every client, each actor the node named by its kind); client lines, digest and rewind are refused "
                + "as they are read; show faults | links | connections | actors | trace | requests. docs/control-api.md has the HTTP API."
        )
    ]

    /// The directives that look for a trace event (`expect [no] trace EVENT`, `wait until trace EVENT`, `sometimes trace EVENT`).
    static let tracePatternDirectives: Set<String> = ["expect", "wait", "sometimes"]

    /// `help` lists the language; `help WORD` shows one directive (or `spawn`, `later`, an actor kind); an unknown
    /// word is an error with the nearest known one.
    func help(_ word: String?) -> Result<String, WorkbenchError> {
        guard let word else {
            var lines = ["Scenario language (the same words work in .scn files):"]
            let entries = language.directives.map { ($0.name, $0.summary) } + Self.prefixes.map { ($0.name, $0.summary) }
            let width = (entries.map(\.0.count).max() ?? 8) + 2
            for (name, summary) in entries {
                lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + summary)
            }
            lines.append(
                "Console only: show trace [N] | vars | connections | faults | actors | reached, digest, history, rewind N | rewind to DURATION, "
                    + "help WORD, quit")
            lines.append("Variables: ${name}; ${now} is the virtual time; results land in ${NAME.field} (see 'help http').")
            lines.append("On a running serve: workbench attach runs the lines that act on the live wire (see 'help attach').")
            return .success(lines.joined(separator: "\n"))
        }
        if let directive = language.directive(named: word) {
            var text = "\(directive.usage)\n  \(directive.summary)"
            if !directive.defaults.isEmpty { text += "\n  defaults: \(directive.defaults)" }
            switch directive.live {
            case .runs: text += "\n  live: runs on the live wire too (workbench run --live, workbench attach)"
            case .ownClients: text += "\n  live: runs in workbench run --live; not in workbench attach: \(LiveSupport.attachedRefusal)"
            case .refused(let why): text += "\n  not on the live wire: \(why)"
            }
            if directive.name == "start" {
                text +=
                    "\n  actor kinds:"
                    + Catalog.actorKinds.map { kind in
                        "\n    \(kind.name) — \(kind.summary) (host \(kind.defaultHost))"
                            + kind.options.map { "\n      \($0.name)=…  \($0.meaning)" }.joined()
                    }.joined()
            }
            if directive.name == "fault" {
                text +=
                    "\n  fault points:"
                    + Catalog.actorKinds.filter { !$0.faultPoints.isEmpty }.map { kind in
                        "\n    \(kind.name): \(kind.faultPoints.joined(separator: ", "))"
                    }.joined()
                    + "\n    every node's simulated disk (not live): \(Kernel.diskFaultPoints.joined(separator: ", "))"
            }
            if Self.tracePatternDirectives.contains(directive.name) {
                // What `trace EVENT KEY=VALUE` may name: a misspelt event, key or value of a closed field is refused, so the
                // list is worth having at hand.
                var line = "\n   "
                text += "\n  trace events and their fields, with the values of closed ones (what 'trace EVENT FIELD=VALUE' may name):"
                for (event, entry) in Catalog.traceVocabulary.entries.sorted(by: { $0.key < $1.key }) {
                    // A value with a space is quoted, so the list still reads as words.
                    let keys = entry.fields.sorted().map { key in
                        entry.values[key].map { "\(key)=\($0.sorted().map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: "|"))" } ?? key
                    }
                    let item = keys.isEmpty ? event : "\(event)(\(keys.joined(separator: " ")))"
                    if line.count + item.count > 110 {
                        text += line
                        line = "\n   "
                    }
                    line += " " + item
                }
                text += line
            }
            return .success(text)
        }
        if let prefix = Self.prefixes.first(where: { $0.name == word }) { return .success("\(prefix.usage)\n  \(prefix.summary)") }
        if let command = (Self.consoleCommands + Self.relatedCommands).first(where: { $0.name == word }) {
            return .success("\(command.usage)\n  \(command.summary)")
        }
        if let kind = Catalog.actorKinds.first(where: { $0.name == word }) {
            return .success(
                "start \(kind.name) [as NAME] [on HOST] [OPTION=VALUE]…\n  \(kind.summary) (host \(kind.defaultHost))"
                    + kind.options.map { "\n    \($0.name)=…  \($0.meaning)" }.joined())
        }
        let topics =
            language.directives.map(\.name) + Self.prefixes.map(\.name) + Catalog.actorKinds.map(\.name) + Self.commands
            + Self.relatedCommands.map(\.name)
        return .failure(WorkbenchError("no help for '\(word)'\(didYouMean(word, among: topics)); 'help' lists the directives"))
    }

    func show(_ words: [String]) -> String {
        switch words.first ?? "" {
        case "trace":
            let text = words.dropFirst().first ?? "20"
            guard let count = Int(text), (1...1_000_000).contains(count) else {
                return "show trace N: expected a number of events from 1 to 1000000, found '\(text)'"
            }
            // Numbered as `rewind N` takes them.
            let events = kernel.trace.all
            return events.indices.suffix(count).map { "#\($0 + 1) \(events[$0].canonicalLine)" }.joined(separator: "\n")
        case "vars":
            return context.variables.sorted { $0.key < $1.key }.map { "\($0.key) = \(preview($0.value))" }.joined(separator: "\n")
        case "connections":
            let lines = kernel.network.connectionSummaries
            return lines.isEmpty ? "no open connections" : lines.joined(separator: "\n")
        case "faults":
            let points = kernel.faults.all
            return points.isEmpty
                ? "no fault points declared yet (start an actor)"
                : points.map { "\($0.name): \($0.mode) (checked \($0.checks), fired \($0.fired))" }.joined(separator: "\n")
        case "actors":
            let started = context.startedActors.map { started in
                let placement = context.placement(ofActor: started.name)
                return (started.name, placement?.kind ?? "?", placement?.host ?? "?")
            }
            guard !started.isEmpty else { return "no actor started yet ('start KIND' starts one; 'help start' lists the kinds)" }
            let widths = (started.map(\.0.count).max() ?? 0, started.map(\.1.count).max() ?? 0)
            return started.map { name, kind, host in
                name.padding(toLength: max(widths.0, 4) + 2, withPad: " ", startingAt: 0)
                    + kind.padding(toLength: max(widths.1, 4) + 2, withPad: " ", startingAt: 0) + "on \(host)"
            }.joined(separator: "\n")
        case "reached":
            // Every reach point, reached or not yet, as a swarm's reach table lists them.
            let points = Set(Catalog.reachPoints.map(\.name)).union(context.reached).sorted()
            return points.map { "\(context.reached.contains($0) ? "reached    " : "not yet    ")\($0)" }.joined(separator: "\n")
        default:
            return "show what? trace [N] | vars | connections | faults | actors | reached"
        }
    }

    /// Tab completion: directive names first, then the directive's keywords, actor kinds, fault points,
    /// connection names and variables.
    func complete(line: String, cursor: Int) -> Completion {
        let before = String(line.prefix(cursor))
        let words = before.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let startingWord = before.isEmpty || before.hasSuffix(" ")
        let isFirst = words.isEmpty || (words.count == 1 && !startingWord)
        var vocabulary: [String]
        if isFirst {
            vocabulary = language.directives.map(\.name) + ["spawn"] + Self.commands
        } else {
            // `spawn NAME DIRECTIVE…` and `later DURATION DIRECTIVE…`: the directive is the third word.
            let directive = ["spawn", "later"].contains(words[0]) && words.count > 2 ? words[2] : words[0]
            vocabulary = language.directive(named: directive)?.keywords ?? []
            switch directive {
            case "start", "help": vocabulary += Catalog.actorKinds.map(\.name) + language.directives.map(\.name) + Self.prefixes.map(\.name)
            case "fault": vocabulary += Catalog.actorKinds.flatMap(\.faultPoints) + Kernel.diskFaultPoints
            case let word where Self.tracePatternDirectives.contains(word) && words.contains("trace"):
                // The event right after `trace`, then its fields' keys once the event is written, and a closed field's
                // values after its `KEY=`.
                let after = words.drop { $0 != "trace" }.dropFirst()
                let event = after.count > 1 || (after.count == 1 && startingWord) ? after.first : nil
                // (A value with a space would need the whole word quoted, so it is left out.)
                let current = startingWord ? "" : words.last ?? ""
                if let event, let entry = Catalog.traceVocabulary.entries[event] {
                    let key = current.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                    if current.contains("="), let values = entry.values[key] {
                        vocabulary += values.filter { !$0.contains(" ") }.map { "\(key)=\($0)" }
                    } else {
                        vocabulary += entry.fields.map { "\($0)=" }
                    }
                } else if event == nil {
                    vocabulary += Catalog.traceEvents
                }
            case "partition", "heal", "hold", "release", "reset", "link", "clock", "address":
                vocabulary += knownNodes
            case "show": vocabulary += ["trace", "vars", "connections", "faults", "actors", "reached"]
            default: break
            }
            vocabulary += context.variables.keys.map { "${\($0)}" }
        }
        return Completion.words(Set(vocabulary).sorted(), line: line, cursor: cursor)
    }
}
