import ArgumentParser
import Foundation
import NIOCore
import Recordings
import Scenario
import SystemKit
import Wire

/// `workbench record`: a recording proxy in front of a real server, or (`--to-scenario`) a recording turned into a
/// scenario; docs/record.md.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a real server's HTTP traffic through a proxy, or turn a recording into a scenario.",
        discussion: """
            workbench record --upstream URL --listen PORT --out DIR: a proxy on PORT (loopback unless --bind) that sends each \
            request to URL (http:// or https://) and answers with what it answered, keeping each exchange whole in DIR \
            (0001.json, …, and index.json at the end; docs/record.md has the format). Credentials (Authorization, \
            Proxy-Authorization, Cookie, Set-Cookie, --redact HEADER), password-like JSON, form and query fields and IPP \
            attributes are redacted before anything is written, unless --no-redact. An upstream that cannot be reached gets \
            the client 502, one too slow 504. SIGINT or SIGTERM ends it: it writes index.json, prints a summary and exits 0.

            workbench record --to-scenario DIR --actor KIND --out FILE.scn: one 'http' line per exchange, sent to KIND's \
            actor, and an 'expect' per part of the recorded answer (status, Content-Type, JSON fields; ids, dates and tokens \
            by their shape), so `workbench run FILE.scn` replays the recording against the workbench's own actor.
            """
    )

    @Option(help: ArgumentHelp("The server to record (http://HOST[:PORT][/PATH] or https://…).", valueName: "url"))
    var upstream: String?

    @Option(help: ArgumentHelp("The port the proxy listens on (0: a free one, printed).", valueName: "port"))
    var listen: Int?

    @Option(help: ArgumentHelp("Recording: the folder to record into. --to-scenario: the scenario file to write.", valueName: "path"))
    var out: String?

    @Option(help: ArgumentHelp("The address the proxy listens on.", valueName: "address"))
    var bind = "127.0.0.1"

    @Flag(help: "Listen HTTPS, with the workbench's test certificate (Fixtures/tls/server.pem) unless --cert and --key.")
    var tls = false

    @Option(help: ArgumentHelp("With --tls: the certificate chain to listen with (PEM).", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("With --tls: the certificate's private key (PEM).", valueName: "file"))
    var key: String?

    @Option(
        name: .customLong("upstream-ca"),
        help: ArgumentHelp("A CA (PEM) an https:// upstream's certificate may chain to, beside the system's roots.", valueName: "file"))
    var upstreamCA: String?

    @Option(name: .customLong("redact"), help: ArgumentHelp("Redact this header's values too (repeatable).", valueName: "header"))
    var redactedHeaders: [String] = []

    @Flag(
        name: .customLong("no-redact"),
        help: "Write every secret as it was sent (passwords, tokens, cookies): for recordings that never leave the machine.")
    var noRedact = false

    @Option(
        name: .customLong("max-body"),
        help: ArgumentHelp(
            "The largest request or answer body held, in bytes (1…1073741824): a larger request gets 413, a larger answer 502.",
            valueName: "bytes"))
    var maxBody = 64 << 20

    @Option(name: .customLong("upstream-timeout"), help: ArgumentHelp("Seconds the upstream may take for one answer (1…3600).", valueName: "seconds"))
    var upstreamTimeout = 60

    @Option(name: .customLong("to-scenario"), help: ArgumentHelp("Turn this recording into a scenario (with --actor and --out).", valueName: "dir"))
    var toScenario: String?

    @Option(help: ArgumentHelp("With --to-scenario: the actor kind the requests go to (\(Self.kindNames)).", valueName: "kind"))
    var actor: String?

    @OptionGroup var signIn: SignInOption

    @OptionGroup var paths: PathMapOption

    func validate() throws {
        if toScenario != nil {
            let recordingOnly = [
                ("--upstream", upstream != nil), ("--listen", listen != nil), ("--tls", tls), ("--cert", cert != nil), ("--key", key != nil),
                ("--upstream-ca", upstreamCA != nil), ("--redact", !redactedHeaders.isEmpty), ("--no-redact", noRedact),
            ]
            if let (name, _) = recordingOnly.first(where: \.1) { throw ValidationError("\(name) is for recording; --to-scenario reads a recording") }
            guard out != nil else { throw ValidationError("--to-scenario needs --out FILE.scn: the scenario to write") }
            guard let actor else {
                throw ValidationError("--to-scenario needs --actor KIND: the actor the requests go to (\(Self.kindNames))")
            }
            guard Catalog.servedKinds.contains(where: { $0.name == actor }) else {
                throw ValidationError(
                    "--actor \(actor): expected one of \(Self.kindNames)\(didYouMean(actor, among: Catalog.servedKinds.map(\.name)))")
            }
            return
        }
        guard actor == nil else { throw ValidationError("--actor is for --to-scenario") }
        guard !signIn.signIn else { throw ValidationError("--sign-in is for --to-scenario") }
        guard paths.texts.isEmpty else { throw ValidationError("--map-path is for --to-scenario") }
        guard let upstream, listen != nil, out != nil else {
            throw ValidationError("record needs --upstream URL --listen PORT --out DIR (or --to-scenario DIR --actor KIND --out FILE.scn)")
        }
        _ = try Self.upstreamParts(upstream)
        if let listen, !(0...65_535).contains(listen) { throw ValidationError("--listen \(listen): expected a port 0…65535") }
        if (cert != nil || key != nil) && !tls { throw ValidationError("--cert and --key are for --tls") }
        if (cert == nil) != (key == nil) { throw ValidationError("--cert and --key go together") }
        for file in [cert, key, upstreamCA].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("\(file): cannot read the file")
        }
        guard (1...(1 << 30)).contains(maxBody) else { throw ValidationError("--max-body \(maxBody): expected 1…1073741824 bytes") }
        guard (1...3600).contains(upstreamTimeout) else { throw ValidationError("--upstream-timeout \(upstreamTimeout): expected 1…3600 seconds") }
    }

    static var kindNames: String { Catalog.servedKinds.map(\.name).joined(separator: ", ") }

    /// Scheme, host, port and path prefix of `--upstream`.
    static func upstreamParts(_ text: String) throws -> (scheme: String, host: String, port: Int, path: String) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = components.host, !host.isEmpty, components.query == nil
        else {
            throw ValidationError("--upstream \(text): expected http://HOST[:PORT][/PATH] or https://HOST[:PORT][/PATH]")
        }
        guard components.user == nil else {
            throw ValidationError("--upstream \(text): the client sends its own credentials; give the URL without USER:PASSWORD@")
        }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65_535).contains(port) else { throw ValidationError("--upstream \(text): the port must be 1…65535") }
        let path = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        return (scheme, host, port, path)
    }

    func run() async throws {
        if let toScenario, let out, let actor {
            return try Self.writeScenario(from: toScenario, kind: actor, to: out, signIn: signIn.signIn, paths: paths)
        }
        guard let upstream, let listen, let out else { return }
        let parts = try Self.upstreamParts(upstream)
        var redaction = Redaction()
        redaction.enabled = !noRedact
        redaction.headers.formUnion(redactedHeaders.map { $0.lowercased() })
        let configuration = RecordingProxy.Configuration(
            upstreamScheme: parts.scheme, upstreamHost: parts.host, upstreamPort: parts.port, upstreamPathPrefix: parts.path,
            upstreamCAPath: upstreamCA, listenPort: listen,
            tls: tls ? (try cert ?? Fixtures.path("tls/server.pem"), try key ?? Fixtures.path("tls/server.key")) : nil,
            folder: out, redaction: redaction, maxBodyBytes: maxBody, upstreamTimeout: .seconds(Int64(upstreamTimeout)))
        let wire = LiveWire(bindHost: bind)
        let proxy: RecordingProxy
        do {
            proxy = try await RecordingProxy.start(configuration, on: wire) { line in
                print(line)
                fflush(nil)
            }
        } catch {
            try? await wire.shutdown()
            throw WorkbenchError("record: cannot listen on \(bind):\(listen): \(error)")
        }
        if noRedact {
            printError("WARNING: --no-redact: passwords, tokens and cookies are written to \(out) as they were sent; keep the recording private")
        }
        print("listening record \(proxy.url) -> \(configuration.upstreamURL), recording into \(out)")
        fflush(nil)
        let signal = await TerminationSignal.wait()
        printError("received \(signal), stopping")
        let summary = try await proxy.finish()
        try await wire.shutdown()
        for failure in summary.failedWrites { printError("error: could not write \(failure)") }
        print(
            "recorded \(summary.exchanges) exchange\(summary.exchanges == 1 ? "" : "s") in \(out)"
                + (summary.proxyErrors > 0 ? " (\(summary.proxyErrors) answered by the proxy: the upstream failed them)" : "")
                + (noRedact ? ", NOT redacted" : ", secrets redacted"))
        if !summary.failedWrites.isEmpty { throw ExitStatus.checkFailed }
    }

    /// `--to-scenario`: writes the scenario, checked by the language before it is written.
    static func writeScenario(
        from folder: String, kind name: String, to file: String, signIn: Bool, paths: PathMapOption
    ) throws {
        let recording: Recording
        do { recording = try Recording(folder: folder) } catch { throw ExitStatus.inputWrong("\(error)") }
        guard let kind = Catalog.servedKinds.first(where: { $0.name == name }) else { return }
        let title = "\(URL(fileURLWithPath: folder).lastPathComponent) replayed against \(name)"
        let known: KnownDifferences
        do { known = try KnownDifferences(path: "\(folder)/known.differences") } catch { throw ExitStatus.inputWrong("\(error)") }
        let scenario = RecordingScenario(
            recording, kind: kind, account: Catalog.demoAccounts[name], signIn: signIn, known: known,
            paths: try paths.mappings(for: recording), title: title)
        let (_, errors) = Catalog.language.parse(file: file, text: scenario.text)
        guard errors.isEmpty else {
            for error in errors { printError("\(error.file):\(error.line):\(error.column): error: \(error.message)") }
            throw ExitStatus.inputWrong("the scenario made of \(folder) does not parse (a bug of record --to-scenario); nothing was written")
        }
        do { try scenario.text.write(toFile: file, atomically: true, encoding: .utf8) } catch {
            throw ExitStatus.inputWrong("cannot write \(file): \((error as NSError).localizedDescription)")
        }
        for (number, why) in scenario.leftOut { print("left out \(Recording.fileName(of: number)): \(why)") }
        print(
            "wrote \(file): \(scenario.steps.count) of \(recording.exchanges.count) exchanges as http lines against \(name)"
                + "; run it with: workbench run \(file)")
    }
}
