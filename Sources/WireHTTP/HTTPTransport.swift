import NIOCore
import NIOHTTP1
import Wire

/// Which HTTP implementation a client sends its requests through, chosen when the client is made.
public enum HTTPStack: String, Sendable, CaseIterable {
    /// The project's HTTP/1.1 client over the node's network (``NIOHTTPTransport``): both wirings. The only stack
    /// the simulated wire carries.
    case nio
    /// Foundation's `URLSession` (FoundationNetworking, on libcurl on Linux): real sockets, so the live wire only.
    /// It resolves host names itself (the live wire's node names do not apply) and trusts only the system's
    /// roots for `https://` (docs/urlsession.md).
    case urlsession
}

/// Where a transport sends requests: the scheme, host and port of one server.
public struct HTTPOrigin: Sendable, Equatable {
    public let usesTLS: Bool
    public let host: String
    public let port: Int

    public init(usesTLS: Bool, host: String, port: Int) {
        self.usesTLS = usesTLS
        self.host = host
        self.port = port
    }

    /// The same origin where a socket of this machine reaches it (``Network/machineAddress(host:port:)``): what a
    /// client that opens its own sockets (URLSession) must be given, as it knows no node names. Itself where the
    /// network has no machine addresses (the simulated one).
    public func onMachine(of node: Node) -> HTTPOrigin {
        guard let address = node.network.machineAddress(host: host, port: port) else { return self }
        return HTTPOrigin(usesTLS: usesTLS, host: address.host, port: address.port)
    }

    /// `https://host:port` (an IPv6 literal in brackets), the port always spelled out.
    public var text: String { "\(usesTLS ? "https" : "http")://\(bracketedHost):\(port)" }

    /// Whether `host` is an address literal (no SNI, no host-name check against it).
    public var hostIsIPAddress: Bool { host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." } }

    private var bracketedHost: String { host.contains(":") ? "[\(host)]" : host }
}

/// Answers a server's Basic challenge (`401` with `WWW-Authenticate: Basic`): the credentials to send, or nil to
/// hand the `401` back to the caller.
public typealias BasicChallengeAnswer = @Sendable () -> BasicCredentials?

/// What a client sends its HTTP requests through: the seam between a client and its HTTP stack
/// (``HTTPStack``). A transport talks to one origin and answers at most one Basic challenge per request.
public protocol HTTPTransport: Sendable {
    /// The server requests go to.
    var origin: HTTPOrigin { get }

    /// Sends `request` (origin-form target) and waits for the whole final response.
    ///
    /// - parameters:
    ///   - request: the request; the transport writes the body's length or chunking, and `Host` when the request has
    ///     none (URLSession always writes its own).
    ///   - challenge: asked once when the server answers `401` with a Basic challenge; the request is sent again
    ///     with the credentials it gives, and that answer is the result. Nil (or a nil answer) hands the `401` back.
    /// - throws: ``HTTPClientError``, ``WireError`` or the stack's own error when no complete response arrived.
    func send(_ request: HTTPRequest, answering challenge: BasicChallengeAnswer?) async throws -> HTTPResponse
}

extension HTTPTransport {
    /// Sends `request`; every `401` comes back to the caller.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, answering: nil)
    }
}

extension HTTPResponse {
    /// Whether this answer is a Basic challenge: `401` with `WWW-Authenticate: Basic …`.
    public var isBasicChallenge: Bool {
        status == .unauthorized && headers.first(name: "WWW-Authenticate")?.lowercased().hasPrefix("basic") == true
    }
}
