import NIOCore
import NIOHTTP1
import NIOSSL
import Wire
import WireHTTP

/// The quota screen (`QuotaViewController`): logs into mysoc with the app's form POST and reads the quota table.
public struct QuotaClient: Sendable {
    /// mysoc, the SoC site whose quota page the app reads.
    public static let defaultHost = "mysoc.nus.edu.sg"
    /// The form, **not URL-encoded**, exactly as the app sends it (a password with `&` or `=` breaks it there too).
    public static func form(user: String, password: String) -> String {
        "destination=/~eprint/forms/quota.php&credential_0=\(user)&credential_1=\(password)&AuthType=AuthDBICookieHandler&AuthName=mysoc"
    }

    /// How to trust the site's certificate: the system's roots (as the app), or a CA (the workbench's test CA).
    public enum Trust: Sendable {
        /// The system's trust roots, as the app.
        case systemDefault
        /// Only certificates issued by this CA, given as PEM bytes (e.g. the workbench's test CA).
        case caPEM([UInt8])
    }

    /// What the quota screen shows after a refresh: its text, and the rows it was made from (none on a failure).
    public struct Report: Sendable {
        /// The screen's text: `type : value\n\n` per row, or the message instead of rows.
        public let text: String
        /// The table's rows (type without tags, value).
        public let rows: [(type: String, value: String)]
    }

    /// The quota site's host name or address; a name is also sent as the TLS server name (SNI).
    public let host: String
    /// The HTTPS port of the quota site (443 unless a test or a live run moves it).
    public let port: Int
    /// The node the HTTPS request leaves from: the phone, on the simulated or the live wire.
    public let node: Node
    private let tls: NIOSSLContext

    /// A client for the quota site; throws when `trust` holds no PEM certificate or the TLS context cannot be made.
    public init(host: String = defaultHost, port: Int = 443, node: Node, trust: Trust = .systemDefault) throws {
        self.host = host
        self.port = port
        self.node = node
        var configuration = TLSConfiguration.makeClientConfiguration()
        if case .caPEM(let pem) = trust { configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(pem)) }
        tls = try NIOSSLContext(configuration: configuration)
    }

    /// One refresh: "Username/Password not set" without credentials, "Server unreachable…" when the site cannot be
    /// reached, "Username/Password incorrect" when the page has no quota rows.
    public func refresh(user: String?, password: String?) async -> Report {
        guard let user, !user.isEmpty, let password, !password.isEmpty else {
            return Report(text: Alert.credentialsMissing.message, rows: [])
        }
        var headers = HTTPHeaders()
        // The app's header name is misspelt ("Current-Type"), so the body goes without a Content-Type.
        headers.add(name: "Current-Type", value: "application/x-www-form-urlencoded")
        let request = HTTPRequest(
            method: .POST, target: "/images/LOGIN", headers: headers,
            body: ByteBuffer(string: Self.form(user: user, password: password)))
        // SNI carries names only; an address literal goes without one.
        let (tls, host) = (self.tls, self.host)
        let serverName = host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
        let response: HTTPResponse
        do {
            response = try await HTTPClient.send(request, host: host, port: port, on: node, timeout: .seconds(30)) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                }
            }
        } catch {
            node.trace("quota", [("user", user), ("outcome", "unreachable")])
            return Report(text: Alert.serverUnreachable.message, rows: [])
        }
        let rows = Self.rows(in: response.text)
        node.trace("quota", [("user", user), ("outcome", rows.isEmpty ? "refused" : "ok"), ("rows", String(rows.count))])
        guard !rows.isEmpty else { return Report(text: Alert.credentialsWrong.message, rows: []) }
        return Report(text: rows.map { "\($0.type) : \($0.value)\n\n" }.joined(), rows: rows)
    }

    /// The app's pattern, case-insensitive, tags stripped from each cell.
    ///
    /// The original ran it on every chunk the connection delivered, so a row split across two chunks was lost; this
    /// runs it once over the whole page.
    public static func rows(in page: String) -> [(type: String, value: String)] {
        guard let pattern = try? Regex("<tr><td bgcolor=.*?>(.*?)</td><td bgcolor=.*?>(.*?)</td></tr>").ignoresCase() else { return [] }
        return page.matches(of: pattern).compactMap { match in
            guard match.output.count == 3, let type = match.output[1].substring, let value = match.output[2].substring else { return nil }
            return (stripTags(String(type)), stripTags(String(value)))
        }
    }

    /// `<[^>]+>` removed.
    static func stripTags(_ text: String) -> String {
        guard let tag = try? Regex("<[^>]+>") else { return text }
        return text.replacing(tag, with: "")
    }
}
