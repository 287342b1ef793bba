import ArgumentParser
import Foundation
import LineEditor
import NIOCore
import NIOHTTP1
import Scenario
import SystemKit
import Wire
import WireHTTP

/// `workbench attach`: the console, on a running serve. Each line goes to serve's control endpoint and runs there,
/// through the same executor as `run` and the console; lines that cannot act on the live wire are refused as they are
/// read. Piped input is a script: it stops at the first line that fails, with that line's exit status.
struct AttachCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Steer a running serve from a console: faults, links, partitions, clocks, advance, expect trace.",
        discussion: discussion
    )

    /// The help text, its examples drawn from the catalogue (the first actor kind with a fault point).
    static var discussion: String {
        let kind = Catalog.actorKinds.first { !$0.faultPoints.isEmpty }
        let (node, point) = (kind?.name ?? "ACTOR", kind?.faultPoints.first ?? "ACTOR.POINT")
        return "Reads the URL and token serve wrote to control.json in its state folder. The same line editor, Tab "
            + "completion, help and exit statuses as the console (0 all held, 1 a check failed, 2 a line was wrong). "
            + "Clients are nodes named by their address (127.0.0.1), 'phone' is every client, and each served actor is the "
            + "node named by its kind: 'fault \(point) on', 'link 127.0.0.1 <-> \(node) latency 400ms', 'partition phone <-> \(node)', "
            + "'clock \(node) skew +5m', 'advance 15m', 'restart \(node)', 'show requests', 'expect trace EVENT by \(node)'."
    }

    @OptionGroup var state: StateDirectoryOption

    @Option(help: "History file (default: the console's).")
    var history: String?

    func run() async throws {
        let control = try ControlFile.read(from: state.directory)
        guard let components = URLComponents(string: control.url), let host = components.host, let port = components.port else {
            throw WorkbenchError("\(ControlFile.path(in: state.directory)): '\(control.url)' is no http://HOST:PORT/ URL")
        }
        let wire = LiveWire(threads: 1)
        defer { Task { try? await wire.shutdown() } }
        let client = ControlClient(node: wire.node("attach"), host: host, port: port, token: control.token)
        let interactive = isatty(STDIN_FILENO) == 1
        let actors = (try? await client.send(line: "show actors"))?.output ?? ""
        let completer = AttachCompletion(actors: actors)
        let store = History()
        if interactive {
            try? store.load(from: history ?? History.defaultPath())
            print("Workbench attached to \(control.url) — the live wire. 'help' lists the language; 'quit' leaves.")
        }
        let editor = LineEditor(prompt: "live> ", history: store) { line, cursor in completer.complete(line: line, cursor: cursor) }
        var lineNumber = 0
        var failedChecks = 0
        while let line = editor.readLine() {
            lineNumber += 1
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "quit" || trimmed == "exit" { break }
            let reply: LiveSession.Reply
            if trimmed == "help" || trimmed.hasPrefix("help ") {
                reply = completer.help(String(trimmed.dropFirst(4)).trimmingCharacters(in: .whitespaces))
            } else {
                do { reply = try await client.send(line: line) } catch {
                    printError("error: \(control.url) did not answer: \(error) (is serve still running?)")
                    throw ExitStatus.checkFailed
                }
            }
            if !reply.output.isEmpty { print(reply.output) }
            if let error = reply.error, reply.exit != 0 || !reply.ok { print("error: \(error)") }
            if reply.exit == ExitStatus.checkFailed.rawValue { failedChecks += 1 }
            if reply.exit != 0, !interactive {
                printError("stopped at line \(lineNumber) of the input (exit \(reply.exit))")
                throw ExitCode(reply.exit)
            }
        }
        if failedChecks > 0 { throw ExitStatus.checkFailed }
    }
}

/// Posts lines to serve's control endpoint.
struct ControlClient: Sendable {
    let node: Node
    let host: String
    let port: Int
    let token: String

    func send(line: String) async throws -> LiveSession.Reply {
        var headers = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Authorization", "Bearer \(token)")])
        headers.add(name: "Connection", value: "close")
        let request = HTTPRequest(method: .POST, target: "/lines", headers: headers, body: ByteBuffer(string: line))
        // A line may wait (`wait until trace … within 10m`): the exchange gets a day.
        let response = try await HTTPClient.send(request, host: host, port: port, on: node, timeout: .hours(24))
        guard response.status == .ok,
            let object = try? JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any]
        else {
            return LiveSession.Reply(ok: false, output: "", error: "the control endpoint answered \(response.status.code): \(response.text)", exit: 1)
        }
        return LiveSession.Reply(
            ok: object["ok"] as? Bool ?? false, output: object["output"] as? String ?? "", error: object["error"] as? String,
            exit: Int32(clamping: object["exit"] as? Int ?? 1))
    }
}

/// Tab completion and help for `attach`, from the language and the actors serve runs (no round trip per key).
struct AttachCompletion: Sendable {
    let language = Catalog.language
    let nodes: [String]

    init(actors: String) {
        // `show actors` lists `NAME — summary` lines, endpoints indented under them.
        nodes =
            actors.split(separator: "\n").filter { !$0.hasPrefix(" ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
            + [LiveLinks.everyClient, "127.0.0.1"]
    }

    /// The directives that run on the live wire.
    var liveDirectives: [Directive] { language.directives.filter { $0.live == .runs } }

    func complete(line: String, cursor: Int) -> Completion {
        let before = String(line.prefix(cursor))
        let words = before.split(separator: " ").map(String.init)
        let first = words.isEmpty || (words.count == 1 && !before.hasSuffix(" "))
        var vocabulary: [String]
        if first {
            vocabulary = liveDirectives.map(\.name) + ["later", "show", "help", "quit"]
        } else {
            let directive = words[0] == "later" && words.count > 2 ? words[2] : words[0]
            vocabulary = language.directive(named: directive)?.keywords ?? []
            switch directive {
            case "fault": vocabulary += Catalog.actorKinds.filter { nodes.contains($0.name) }.flatMap(\.faultPoints)
            case "partition", "heal", "hold", "release", "reset", "link", "clock": vocabulary += nodes
            case "show": vocabulary += ["faults", "links", "connections", "actors", "trace", "requests", "misses"]
            case "help": vocabulary += liveDirectives.map(\.name)
            default: break
            }
        }
        return Completion.words(Set(vocabulary).sorted(), line: line, cursor: cursor)
    }

    func help(_ word: String) -> LiveSession.Reply {
        if word.isEmpty {
            let width = (liveDirectives.map(\.name.count).max() ?? 8) + 2
            let lines =
                ["On the live wire (the rest of the language runs in 'workbench run' and the console):"]
                + liveDirectives.map { "  " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + $0.summary }
                + [
                    "  later D LINE  run a change to the world D from now, on the wall clock",
                    "Also: show faults | links | connections | actors | trace [N] | requests [ACTOR] | misses [ACTOR], help WORD, quit",
                    "Nodes: \(nodes.joined(separator: ", ")) (a client is named by its address; phone is every client)",
                ]
            return LiveSession.Reply(ok: true, output: lines.joined(separator: "\n"), error: nil, exit: 0)
        }
        guard let directive = language.directive(named: word) else {
            let names = language.directives.map(\.name)
            return LiveSession.Reply(ok: false, output: "", error: "no help for '\(word)'\(didYouMean(word, among: names))", exit: 2)
        }
        var text = "\(directive.usage)\n  \(directive.summary)"
        if let why = directive.live.refusal(in: .attached) { text += "\n  not on the live wire: \(why)" }
        if directive.name == "fault" {
            text +=
                "\n  fault points of the served actors: "
                + Catalog.actorKinds.filter { nodes.contains($0.name) }.flatMap(\.faultPoints).joined(separator: ", ")
        }
        return LiveSession.Reply(ok: true, output: text, error: nil, exit: 0)
    }
}
