import ArgumentParser
import Foundation
import Scenario
import SystemKit
import Wire

/// `workbench serve`: every actor on loopback for real tools and apps.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve every actor on loopback (live wire) until SIGINT or SIGTERM.",
        discussion: "Prints one line 'listening <actor> <url>' per endpoint; the URL works as-is with a real client. "
            + "Then one line per request: time (UTC), actor, peer, \"request\" (HTTP method and path, IPP operation or SSH command), "
            + "status (HTTP status, IPP status or exit-N) and duration in µs (--quiet: none).\n\nDefault ports: \(defaultPorts)."
    )

    /// Every actor's default ports, from the options serve passes: `KIND OPTION PORT, OPTION PORT; KIND …`.
    static var defaultPorts: String {
        Catalog.actorKinds.compactMap { kind in
            let ports = (Catalog.liveOptions[kind.name] ?? [:]).filter { $0.key.hasSuffix("port") && Int($0.value) != nil }.sorted { $0.key < $1.key }
            return ports.isEmpty ? nil : "\(kind.name) " + ports.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }.joined(separator: "; ")
    }

    @Option(name: .customLong("set"), help: "Override an actor option, e.g. --set \(overrideExample) (repeatable).")
    var overrides: [String] = []

    /// An example of `--set`: the first actor's first port, moved up by 1000.
    static var overrideExample: String {
        for kind in Catalog.actorKinds {
            let ports = (Catalog.liveOptions[kind.name] ?? [:]).compactMap { key, value in key.hasSuffix("port") ? Int(value).map { (key, $0) } : nil
            }
            if let (option, port) = ports.min(by: { $0.0 < $1.0 }) { return "\(kind.name).\(option)=\(port + 1000)" }
        }
        return "ACTOR.OPTION=VALUE"
    }

    @Option(
        help: ArgumentHelp(
            "Serve another deployment: "
                + Catalog.liveTopologies.map { "\($0.name) — \($0.summary)" }.joined(separator: "; ") + ". --set still overrides it.",
            valueName: "name"))
    var topology: String?

    @Option(help: "Address to listen on.")
    var bind = "127.0.0.1"

    @Option(help: "Address the control endpoint listens on (loopback unless asked: it steers every actor).")
    var controlBind = "127.0.0.1"

    @Option(help: "Port of the control endpoint (0: a free one; its URL and token are written to control.json in the state folder).")
    var controlPort = 0

    @Option(help: "How many trace events the journal keeps for 'show requests', 'show trace' and 'expect trace' (1…10000000).")
    var journal = 100_000

    @Option(help: "Run a scenario file's lines on the wall clock while serving (checked whole before anything listens).")
    var script: String?

    @Flag(help: "Log no requests (the 'listening' and 'note' lines stay).")
    var quiet = false

    @Option(name: .customLong("only"), help: "Serve only this actor (repeatable); default: all of them.")
    var only: [String] = []

    @Option(
        name: .customLong("start"),
        help: ArgumentHelp(
            "Also serve an actor as a scenario's start line starts one, e.g. --start '\(startExample)'; its ports not given are free ones, "
                + "its lines say 'listening NAME <url>' (repeatable). Kinds that need an option (\(kindsNeedingOptions)) are served only so.",
            valueName: "KIND [as NAME] [OPTION=VALUE]…"))
    var starts: [String] = []

    /// An example of `--start`: the first kind that needs options, with them.
    static var startExample: String {
        guard let kind = Catalog.actorKinds.first(where: { !$0.requiredOptions.isEmpty }) else { return "KIND as NAME OPTION=VALUE" }
        return "\(kind.name) as NAME " + kind.requiredOptions.map { "\($0)=…" }.joined(separator: " ")
    }

    static var kindsNeedingOptions: String {
        Catalog.actorKinds.filter { !$0.requiredOptions.isEmpty }.map { "\($0.name): \($0.requiredOptions.joined(separator: ", "))" }
            .joined(separator: "; ")
    }

    @OptionGroup var state: StateDirectoryOption

    var stateDirectory: String { state.directory }

    func validate() throws {
        guard (1...10_000_000).contains(journal) else { throw ValidationError("--journal \(journal): expected 1…10000000 events") }
        guard (0...65_535).contains(controlPort) else { throw ValidationError("--control-port \(controlPort): expected 0…65535") }
    }

    func run() async throws {
        let scriptText = try script.map { path in
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ValidationError("--script \(path): cannot read the file")
            }
            return text
        }
        let journal = LiveJournal(capacity: self.journal, next: quiet ? DiscardingTraceSink() : RequestLogSink())
        let wire = LiveWire(bindHost: bind, tracer: journal)
        var options = Catalog.liveOptions
        if let topology {
            guard let chosen = Catalog.liveTopologies.first(where: { $0.name == topology }) else {
                throw ValidationError("--topology \(topology): expected one of \(Catalog.liveTopologies.map(\.name).joined(separator: ", "))")
            }
            for (kind, values) in chosen.options { options[kind, default: [:]].merge(values) { _, chosen in chosen } }
        }
        for override in overrides {
            let parts = override.split(separator: "=", maxSplits: 1).map(String.init)
            let key = parts.first?.split(separator: ".", maxSplits: 1).map(String.init) ?? []
            guard parts.count == 2, key.count == 2, Catalog.actorKinds.contains(where: { $0.name == key[0] }) else {
                throw ValidationError(
                    "--set \(override): expected ACTOR.OPTION=VALUE with ACTOR one of \(Catalog.actorKinds.map(\.name).joined(separator: ", "))")
            }
            if let kind = Catalog.actorKinds.first(where: { $0.name == key[0] }), !kind.requiredOptions.isEmpty {
                throw ValidationError("--set \(override): \(kind.name) is served only with --start '\(kind.name) as NAME …'; give its options there")
            }
            if let kind = Catalog.actorKinds.first(where: { $0.name == key[0] }), kind.unknownOptionName(among: [key[1]]) != nil {
                throw ValidationError("--set \(override): \(kind.unknownOptionMessage(key[1]))")
            }
            // The value too, as a scenario's `start` line checks it, before anything listens.
            if let kind = Catalog.actorKinds.first(where: { $0.name == key[0] }), let (_, message) = kind.valueProblem(in: [key[1]: parts[1]]) {
                throw ValidationError("--set \(override): \(message)")
            }
            options[key[0], default: [:]][key[1]] = parts[1]
        }
        for system in Catalog.systems { system.completeLiveOptions(&options) }
        for name in only where !Catalog.servedKinds.contains(where: { $0.name == name }) {
            if let kind = Catalog.actorKinds.first(where: { $0.name == name }) {
                throw ValidationError(
                    "--only \(name): \(kind.missingOptionMessage(among: []) ?? "not served"); serve it with --start '\(name) as NAME …'")
            }
            throw ValidationError(
                "--only \(name): expected one of \(Catalog.servedKinds.map(\.name).joined(separator: ", "))\(didYouMean(name, among: Catalog.servedKinds.map(\.name)))"
            )
        }
        let extras = try starts.map { try ExtraActor($0, taken: Catalog.servedKinds.filter { only.isEmpty || only.contains($0.name) }.map(\.name)) }
        if let name = Dictionary(grouping: extras, by: \.name).first(where: { $0.value.count > 1 })?.key {
            throw ValidationError("--start: two actors named '\(name)'; give each its own with 'as NAME'")
        }
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        var running: [(actor: any RunningActor, launch: ScenarioContext.Launch)] = []
        for kind in Catalog.servedKinds where only.isEmpty || only.contains(kind.name) {
            // Persistent actors keep their state under the state folder unless told otherwise.
            if kind.options.contains(where: { $0.name == "database" }), options[kind.name]?["database"] == nil {
                options[kind.name, default: [:]]["database"] = "\(stateDirectory)/\(kind.name).sqlite"
            }
            if kind.options.contains(where: { $0.name == "spool" }), options[kind.name]?["spool"] == nil {
                options[kind.name, default: [:]]["spool"] = "\(stateDirectory)/\(kind.name)-spool"
            }
            if kind.options.contains(where: { $0.name == "homes" }), options[kind.name]?["homes"] == nil {
                options[kind.name, default: [:]]["homes"] = "\(stateDirectory)/\(kind.name)-homes"
            }
            // A port left to the system (0) is chosen now, once: a restarted actor comes back on the same URLs.
            var chosen = options[kind.name] ?? [:]
            for (option, value) in chosen where option.hasSuffix("port") && value == "0" {
                chosen[option] = String(try FreePort.pick(on: bind))
            }
            let actor: any RunningActor
            do {
                actor = try await kind.start(wire.node(kind.name), chosen)
            } catch {
                throw Self.portTaken(error, kind: kind.name, options: chosen) ?? error
            }
            running.append((actor, ScenarioContext.Launch(kind: kind, node: kind.name, options: chosen)))
            for endpoint in actor.endpoints where endpoint.url.contains("://") && !endpoint.url.hasSuffix("://") {
                print("listening \(kind.name) \(endpoint.url)")
            }
            for note in actor.notes { print("note \(kind.name) \(note)") }
        }
        for extra in extras {
            var chosen = extra.options
            for (option, value) in chosen where option.hasSuffix("port") && value == "0" { chosen[option] = String(try FreePort.pick(on: bind)) }
            let actor: any RunningActor
            do {
                actor = try await extra.kind.start(wire.node(extra.name), chosen)
            } catch {
                throw Self.portTaken(error, kind: extra.name, options: chosen) ?? WorkbenchError("--start \(extra.line): \(error)")
            }
            running.append((actor, ScenarioContext.Launch(kind: extra.kind, node: extra.name, options: chosen)))
            for endpoint in actor.endpoints where endpoint.url.contains("://") && !endpoint.url.hasSuffix("://") {
                print("listening \(extra.name) \(endpoint.url)")
            }
            for note in actor.notes { print("note \(extra.name) \(note)") }
        }
        let session = LiveSession(
            wire: wire, journal: journal, served: running
        ) { print("script: \($0)") }
        if let scriptText, let path = script {
            let lines = try session.check(script: scriptText, file: path)
            session.queue.async { session.play(lines) { print("script: \($0)") } }
        }
        let control = try await ControlServer.start(session: session, host: controlBind, port: controlPort, token: SecretRandom.system.hex())
        try ControlFile(url: control.url, token: control.token).write(to: stateDirectory)
        print("listening control \(control.url)")
        fflush(nil)
        let signal = await TerminationSignal.wait()
        printError("received \(signal), stopping")
        unlink(ControlFile.path(in: stateDirectory))
        await control.stop()
        // What runs now (a session may have stopped or restarted some), on the session's queue.
        let actors = await withCheckedContinuation { continuation in
            session.queue.async { continuation.resume(returning: session.runningActors) }
        }
        for actor in actors.reversed() { try? await actor.stop() }
        try await wire.shutdown()
    }

    /// A port another program holds, named by the actor and option that asked for it (`ACTOR.port=2024: address
    /// already in use`) with the `--set` that moves it; nil for any other error.
    static func portTaken(_ error: any Error, kind: String, options: [String: String]) -> WorkbenchError? {
        let text = "\(error)"
        guard let range = text.range(of: WireError.Kind.addressInUse.rawValue + ": ") else { return nil }
        let address = text[range.upperBound...].prefix { !$0.isWhitespace && $0 != ")" && $0 != ";" && $0 != "," }
        guard let port = address.split(separator: ":").last.map(String.init) else { return nil }
        let option = options.filter { $0.key.hasSuffix("port") && $0.value == port }.map(\.key).sorted().first
        guard let option else { return WorkbenchError("\(kind): address already in use (\(address))") }
        return WorkbenchError(
            "\(kind).\(option)=\(port): address already in use (\(address)); stop what listens there, or choose another port "
                + "with --set \(kind).\(option)=N")
    }
}

/// An actor `serve --start 'KIND [as NAME] [OPTION=VALUE]…'` serves besides the default ones, checked whole before
/// anything listens: the kind, its options' names and values, those it needs. Its ports not given are free ones.
struct ExtraActor {
    let line: String
    let kind: ActorKind
    /// The actor's name and its node's (`as NAME`, else the kind's).
    let name: String
    let options: [String: String]

    init(_ line: String, taken: [String]) throws {
        self.line = line
        var words = line.split(whereSeparator: \.isWhitespace).map(String.init)[...]
        let kinds = Catalog.actorKinds.map(\.name)
        guard let kindName = words.popFirst() else { throw ValidationError("--start '': expected 'KIND [as NAME] [OPTION=VALUE]…'") }
        guard let kind = Catalog.actorKinds.first(where: { $0.name == kindName }) else {
            throw ValidationError(
                "--start \(line): no actor kind '\(kindName)'\(didYouMean(kindName, among: kinds)); expected one of \(kinds.joined(separator: ", "))")
        }
        var name = kindName
        var options: [String: String] = [:]
        while let word = words.popFirst() {
            if word == "as" {
                guard let given = words.popFirst(), !given.contains("=") else { throw ValidationError("--start \(line): expected a name after 'as'") }
                name = given
                continue
            }
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("--start \(line): expected 'as NAME' or OPTION=VALUE, found '\(word)'")
            }
            if kind.unknownOptionName(among: [parts[0]]) != nil { throw ValidationError("--start \(line): \(kind.unknownOptionMessage(parts[0]))") }
            options[parts[0]] = parts[1]
        }
        if let missing = kind.missingOptionMessage(among: options.keys) { throw ValidationError("--start \(line): \(missing)") }
        if let (_, message) = kind.valueProblem(in: options) { throw ValidationError("--start \(line): \(message)") }
        guard !taken.contains(name) else {
            throw ValidationError("--start \(line): an actor named '\(name)' is served already; name this one with 'as NAME'")
        }
        for option in kind.options where option.name.hasSuffix("port") && options[option.name] == nil { options[option.name] = "0" }
        self.kind = kind
        self.name = name
        self.options = (Catalog.liveOptions[kind.name] ?? [:]).merging(options) { _, given in given }
    }
}
