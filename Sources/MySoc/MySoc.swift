import NIOCore
import NIOHTTP1
import NIOSSL
import Wire
import WireHTTP

/// mysoc, the School of Computing's web site, as far as the SOC Print app uses it: the login form that leads to the
/// print-quota page (`POST /images/LOGIN` with `destination=/~eprint/forms/quota.php`), over HTTPS.
///
/// Credentials are checked by the SoC account directory that Sunfire serves (``QuotaDirectory``), in two realms:
/// Unix accounts and NUSNET accounts. NUSNET credentials get the quota page but not an SSH login — the app's
/// "Can get quota but cannot print? You probably used your NUSNET credential".
public final class MySoc: Sendable {
    public struct Configuration: Sendable {
        /// HTTPS port (443 on the simulated wire).
        public var port = 443
        /// PEM certificate and key of the site (the test CA's server certificate names `mysoc`).
        public var certificatePath: String
        public var privateKeyPath: String
        /// Where the account directory answers (Sunfire's directory port) and the token it expects from this site.
        public var directoryHost = "sunfire"
        public var directoryPort = 8389
        public var directoryToken: String

        public init(certificatePath: String, privateKeyPath: String, directoryToken: String) {
            self.certificatePath = certificatePath
            self.privateKeyPath = privateKeyPath
            self.directoryToken = directoryToken
        }
    }

    /// Fault point: the site answers 503, as during maintenance.
    public static let unavailableFault = "mysoc.unavailable"
    /// The form's path, and the quota page it leads to.
    public static let loginPath = "/images/LOGIN"
    public static let quotaDestination = "/~eprint/forms/quota.php"

    public let node: Node
    public let configuration: Configuration
    private let http: HTTPServer

    private init(node: Node, configuration: Configuration, http: HTTPServer) {
        self.node = node
        self.configuration = configuration
        self.http = http
    }

    /// Starts serving HTTPS on the node.
    public static func start(on node: Node, configuration: Configuration) async throws -> MySoc {
        node.faults.declare(unavailableFault)
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(configuration.certificatePath).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: configuration.privateKeyPath, format: .pem)))
        let context = try NIOSSLContext(configuration: tls)
        let pages = MySocPages(node: node, configuration: configuration)
        let http = try await HTTPServer.start(
            on: node, port: configuration.port, limits: HTTPServer.Limits(maxBodyBytes: 16_384),
            setup: { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addTLSServerHandler(NIOSSLServerHandler(context: context), node: node)
                }
            },
            handler: { request in await pages.answer(request) }
        ).get()
        node.trace("started", [("port", String(http.listener.port))])
        return MySoc(node: node, configuration: configuration, http: http)
    }

    /// `https://host:port/images/LOGIN`.
    public var loginURL: String { "https://\(http.listener.host):\(http.listener.port)\(Self.loginPath)" }

    public func stop() async throws {
        try await http.stop().get()
        node.trace("stopped")
    }
}
