import MiGServer
import NIOCore
import Scenario
import SystemKit
import TLSProxy
import Wire

/// The MiG print gateway and its TLS proxy: `start mig` in scenarios, `listening mig …` in serve.
extension ActorKind {
    static let mig = ActorKind(
        name: "mig", summary: "Dispatcher Paragon MiG: IPPS on 8050, plain IPP on 631, Basic accounts, job spool, simulated printer",
        defaultHost: "mig",
        // A real MiG, a CUPS queue or any IPP Everywhere printer (ippeveprinter) can stand in for it.
        targetSchemes: ["ipp": 631, "ipps": 631, "http": 80, "https": 443], targetExample: "ipp://127.0.0.1:8631/ipp/print",
        options: [
            .port("tls-port", "IPPS port (default 8050; 'none' for no TLS)", orNone: true),
            .port("plain-port", "plain IPP port (default 631; 'none' for none)", orNone: true),
            .text("user", "account name (default demo)"), .text("password", "account password (default demo-password)"),
            .flag(
                "require-certificate",
                "true: the account needs a client certificate forwarded by a TLS proxy (account secure/secure-password always does)"),
            .number("ppm", "printer speed in pages per minute (default 60)", 1...100_000),
            .number(
                "bytes-per-page",
                "pages of a document MiG does not read whole (a PDF or PostScript beyond what its readers take): one per this many bytes (default 100000)",
                1...(1 << 30)),
            .creatable(
                "database", "SQLite file of the job spool (default in memory; simulated: on the node's simulated disk, which crash mig tests)"),
            .creatable(
                "spool", "directory for document files (default: digests only; simulated: on the node's simulated disk, which crash mig tests)"),
            .flag(
                "preserve-job-files",
                "true: keep a document in the spool after its job ended (cupsd's PreserveJobFiles Yes); default false: it is deleted once the job is completed, canceled or aborted"
            ),
            .number(
                "max-jobs",
                "jobs the spool keeps, finished ones included (default 500, as cupsd's MaxJobs; 0: no limit): beyond it the oldest finished job is forgotten, and a new job is refused with server-error-too-many-jobs while all are active",
                0...10_000_000),
            .flag(
                "sync-to-disk",
                "true: fsync documents, their directory and commits before answering, so acknowledged jobs survive a power loss (they always survive kill -9); default false, serve true"
            ),
            .flag(
                "anonymous-discovery",
                "true: Get-Printer-Attributes and Validate-Job are answered without credentials (CUPS asks so while it builds a driverless queue); every job operation still needs an account (default false: 401 without credentials)"
            ),
            .flag(
                "hold-by-default",
                "true: a print-release gateway: every job waits (pending-held, job-hold-until-default indefinite) until Release-Job, and no-hold is not offered (default false)"
            ),
            .secret(
                "proxy-secret",
                "believe a forwarded SSL_CLIENT_CERT only with this X-MiG-Proxy-Secret (default: never; give mig-proxy the same secret)"),
        ],
        faultPoints: MiGServer.faultPoints
    ) { node, options in
        var configuration = MiGServer.Configuration()
        configuration.tlsPort = try parseOptionalPort(options["tls-port"], "tls-port") ?? configuration.tlsPort
        configuration.plainPort = try parseOptionalPort(options["plain-port"], "plain-port") ?? configuration.plainPort
        if options["tls-port"] == "none" { configuration.tlsPort = nil }
        if options["plain-port"] == "none" { configuration.plainPort = nil }
        configuration.certificatePath = try Fixtures.path("tls/server.pem")
        configuration.privateKeyPath = try Fixtures.path("tls/server.key")
        configuration.clientCAPath = try Fixtures.path("tls/ca.pem")
        configuration.accounts = [
            MiGServer.AccountSetting(
                user: options["user"] ?? "demo", password: options["password"] ?? "demo-password",
                requiresClientCertificate: try parseFlag(options["require-certificate"], "require-certificate")),
            // The account of the original deployment's client-certificate set-up: only reachable through the TLS proxy.
            MiGServer.AccountSetting(user: "secure", password: "secure-password", requiresClientCertificate: true),
        ]
        if let ppm = options["ppm"] { configuration.printer.pagesPerMinute = Int32(try parseBounded(ppm, "ppm", 1...100_000)) }
        if let bytes = options["bytes-per-page"] {
            configuration.printer.bytesPerPage = Int64(try parseBounded(bytes, "bytes-per-page", 1...(1 << 30)))
        }
        configuration.databasePath = options["database"]
        configuration.spoolDirectory = options["spool"]
        configuration.syncToDisk = try parseFlag(options["sync-to-disk"], "sync-to-disk")
        configuration.preserveJobFiles = try parseFlag(options["preserve-job-files"], "preserve-job-files")
        if let limit = options["max-jobs"] { configuration.maxJobs = try parseBounded(limit, "max-jobs", 0...10_000_000) }
        configuration.anonymousDiscovery = try parseFlag(options["anonymous-discovery"], "anonymous-discovery")
        configuration.printer.holdByDefault = try parseFlag(options["hold-by-default"], "hold-by-default")
        configuration.proxySecret = try options["proxy-secret"].map { try parseSecret($0, "proxy-secret") }
        return RunningMiG(server: try await MiGServer.start(on: node, configuration: configuration).get())
    }

    static let migProxy = ActorKind(
        name: "mig-proxy",
        summary: "TLS proxy in front of MiG like the original deployment's nginx: verifies client certificates, forwards SSL_CLIENT_CERT",
        defaultHost: "proxy",
        options: [
            .port("port", "HTTPS port (default 443)"), .endpoint("upstream", "MiG's plain HTTP endpoint HOST:PORT (default mig:631)"),
            .secret("secret", "sent upstream as X-MiG-Proxy-Secret: mig's proxy-secret (default none)"),
        ]
    ) { node, options in
        let upstream = try parseEndpoint(options["upstream"] ?? "mig:631", "upstream")
        var configuration = TLSProxy.Configuration(
            certificatePath: try Fixtures.path("tls/server.pem"), privateKeyPath: try Fixtures.path("tls/server.key"),
            clientCAPath: try Fixtures.path("tls/ca.pem"), upstreamHost: upstream.host, upstreamPort: upstream.port)
        if let port = options["port"] { configuration.port = try parsePort(port, "port") }
        configuration.upstreamSecret = try options["secret"].map { try parseSecret($0, "secret") }
        return RunningProxy(proxy: try await TLSProxy.start(on: node, configuration: configuration).get())
    }
}

struct RunningProxy: RunningActor {
    let proxy: TLSProxy
    var endpoints: [(label: String, url: String)] { proxy.endpoints }
    var notes: [String] { ["client certificate: \(Fixtures.notePath("tls/client.p12")) (password workbench), account secure:secure-password"] }
    func stop() async throws { try await proxy.stop().get() }
}

struct RunningMiG: RunningActor {
    let server: MiGServer
    var endpoints: [(label: String, url: String)] { server.endpoints }
    var requests: [String] { MiGServer.operationNames }
    var notes: [String] {
        var notes: [String] = []
        if let secret = server.configuration.proxySecret {
            notes.append("proxy-secret \(secret) (a proxy in front of MiG sends it: nginx 'proxy_set_header X-MiG-Proxy-Secret \"\(secret)\";')")
        }
        if server.configuration.anonymousDiscovery, let url = server.endpoints.first?.url {
            // CUPS builds a driverless queue without the URI's credentials and prints with them.
            notes.append("anonymous-discovery on: a CUPS driverless queue works, e.g. lpadmin -p mig -E -v \(url) -m everywhere")
        }
        if server.configuration.printer.holdByDefault {
            notes.append("hold-by-default on: every job waits (pending-held) until its owner sends Release-Job")
        }
        return notes
    }
    func stop() async throws { try await server.stop().get() }
    func crash() async throws { try await server.crash().get() }
    /// With a database and sync-to-disk, every job MiG acknowledged is durable before the answer.
    var survivesCrash: Bool { server.configuration.databasePath != nil && server.configuration.syncToDisk }
}
