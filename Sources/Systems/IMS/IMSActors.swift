import Foundation
import IMSSDK
import IMSSigningBackend
import IMSVerifier
import JWT
import NIOCore
import Scenario
import SystemKit
import Wire
import WireHTTP

/// IMS DriveSync token signing (original 004): the host's signing back end and IMS's verifier, `start ims-signer`
/// and `start ims` in scenarios, `listening ims-signer …`/`listening ims …` in serve.
extension ActorKind {
    /// The demo host's API key (the original example's `iss`).
    private static let imsDemoAPIKey = "63d9a389-4ddc-4df1-8dd1-af6a10c7226e"

    static let imsSigner = ActorKind(
        name: "ims-signer",
        summary: "the host app's back end that signs IMS token prototypes: POST /sign over HTTPS (port 443), POST /admin/users/<id>",
        defaultHost: "ims-signer",
        options: [
            .port("port", "port (default 443, or 80 with tls=false)"),
            .flag("tls", "true (default): HTTPS with Fixtures/tls/server.pem, as the original example's https://…/sign; false: plain HTTP"),
            .text("api-key", "the host API key, every token's iss (default the original example's)"),
            .existingFile("key", "PEM RSA-2048 private key (default Fixtures/ims/host.key)"),
            .existingFile("certificate", "PEM certificate of that key (default Fixtures/ims/host.pem)"),
            .text("kid", "key id to put in signed tokens (default none)"), .text("admin-token", "bearer token of the admin endpoint"),
            .text("enrol", "comma-separated users to enrol at start; their app tokens are shown as notes"),
        ],
        faultPoints: [HostSigningBackend.unavailableFault]
    ) { node, options in
        // Absent means HTTPS: the original signer posts to https://…/sign.
        let usesTLS = try options["tls"].map { try parseFlag($0, "tls") } ?? true
        var tls: HostSigningBackend.TLSIdentity?
        if usesTLS {
            tls = HostSigningBackend.TLSIdentity(
                certificateChainPath: try Fixtures.path("tls/server.pem"), privateKeyPath: try Fixtures.path("tls/server.key"))
        }
        let configuration = HostSigningBackend.Configuration(
            apiKey: options["api-key"] ?? imsDemoAPIKey, keyID: options["kid"],
            privateKeyPEM: try readFixture(options["key"] ?? "Fixtures/ims/host.key", "key"),
            certificatePEM: try readFixture(options["certificate"] ?? "Fixtures/ims/host.pem", "certificate"),
            adminToken: options["admin-token"] ?? "signer-admin-demo", port: try parsePort(options["port"] ?? (usesTLS ? "443" : "80"), "port"),
            tls: tls)
        let backend = try await HostSigningBackend.start(on: node, configuration: configuration)
        var notes = ["api-key \(configuration.apiKey)", "admin-token \(configuration.adminToken)"]
        for user in (options["enrol"] ?? "").split(separator: ",").map(String.init) {
            notes.append("bearer-token \(backend.enrol(user: user)) user \(user)")
        }
        return RunningIMSSigner(backend: backend, notes: notes)
    }

    static let ims = ActorKind(
        name: "ims",
        summary: "IMS: verifies host-signed tokens and starts sessions (POST /v1/sessions, port 80); admin /admin/hosts/<iss>/…",
        defaultHost: "ims",
        targetSchemes: ["http": 80], targetExample: "http://admin:ims-admin-demo@127.0.0.1:8080",
        options: [
            .port("port", "HTTP port (default 80)"),
            .creatable("database", "SQLite file (default: in memory; simulated: on the node's simulated disk)"),
            .parsed("leeway", "clock skew tolerated on nbf/exp (default 60s)") { _ = try parseLeeway($0) },
            .text("admin-token", "bearer token of the admin endpoints"),
            .existingFile("host-certificate", "PEM certificate to register at start (with host-api-key)"),
            .text("host-api-key", "iss to register host-certificate for (default the original example's)"),
            .text("enrol", "comma-separated users of host-api-key to enrol at start"),
        ],
        faultPoints: [IMSVerifier.unavailableFault]
    ) { node, options in
        let leeway = try options["leeway"].map(parseLeeway) ?? 60
        if let path = options["database"], node.disk == nil { try createParentDirectory(of: path) }  // simulated: on the node's disk
        let configuration = IMSVerifier.Configuration(
            port: try parsePort(options["port"] ?? "80", "port"), databasePath: options["database"],
            leewaySeconds: leeway, adminToken: options["admin-token"] ?? "ims-admin-demo")
        let verifier = try await IMSVerifier.start(on: node, configuration: configuration)
        let issuer = options["host-api-key"] ?? imsDemoAPIKey
        if let path = options["host-certificate"] {
            try await verifier.registerCertificate(issuer: issuer, keyID: nil, pem: try readFixture(path, "host-certificate"))
        }
        for user in (options["enrol"] ?? "").split(separator: ",").map(String.init) {
            try await verifier.enrol(issuer: issuer, subject: user)
        }
        return RunningIMS(verifier: verifier, notes: ["admin-token \(configuration.adminToken)"])
    }

    /// `leeway=DURATION`: whole seconds from 0s to 24h.
    static func parseLeeway(_ text: String) throws -> Int64 {
        guard let duration = DurationParser.parse(text), duration >= .zero, duration <= .seconds(86_400) else {
            throw WorkbenchError("option leeway=\(text): expected a duration from 0s to 24h, like 60s")
        }
        return duration.components.seconds
    }

    static func readFixture(_ path: String, _ option: String) throws -> String {
        let file = try readableFile(path, option)
        do { return try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw WorkbenchError("option \(option)=\(path): cannot read \(file): \(error.localizedDescription)")
        }
    }
}

struct RunningIMSSigner: RunningActor {
    let backend: HostSigningBackend
    let notes: [String]
    var endpoints: [(label: String, url: String)] { [(backend.scheme, backend.baseURL)] }
    func stop() async throws { try await backend.stop() }
}

struct RunningIMS: RunningActor {
    let verifier: IMSVerifier
    let notes: [String]
    var endpoints: [(label: String, url: String)] { [("http", verifier.baseURL)] }
    func stop() async throws { try await verifier.stop() }
    /// With a database, every certificate, enrolment and replay-cache entry is synced before the answer.
    var survivesCrash: Bool { verifier.configuration.databasePath != nil }
}
