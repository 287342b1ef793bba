import Base64URLEncoding
import Foundation
import JWT
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization
import Wire
import WireHTTP

/// The host app's back end that signs IMS token prototypes (original 004, "Example HTTP Signing Request").
///
/// It serves HTTPS, as the original example's `https://www.example.com/sign`, when given a TLS identity (plain HTTP
/// otherwise, for a TLS-terminating proxy in front or tools without TLS).
///
/// - `POST /sign`, `Content-Type: text/plain`, `Authorization: Bearer <app token>`, body the prototype
///   `header.payload`: checks it (RS256/JWT header; iss, sub, jti, nbf, exp present and well typed;
///   0 < exp − nbf ≤ 900 s; iss is this host's API key; sub is the enrolled user the app token belongs to)
///   and answers `200 text/plain` with the compact JWS, or a 4xx that says what was wrong.
/// - `POST /admin/users/<id>` with `Authorization: Bearer <admin token>` enrols a user and answers `201`
///   with the user's app token (what the host's login would give the app).
/// - `GET /certificate` answers the public certificate the host registers with IMS.
/// - Fault point `ims-signer.unavailable` answers 503 (the back end is down).
///
/// Enrolled users live in memory: this actor models the host's signing endpoint, not its user database.
public final class HostSigningBackend: Sendable {
    public struct Configuration: Sendable {
        /// The host's API key: every token's `iss`.
        public var apiKey: String
        /// Key id put in signed tokens' headers (`kid`), if any.
        public var keyID: String?
        /// The host's RSA-2048 private key (PEM).
        public var privateKeyPEM: String
        /// Its public certificate (PEM, SHA-256 with RSA).
        public var certificatePEM: String
        /// Bearer token for the admin endpoint.
        public var adminToken: String
        public var port: Int
        /// The server certificate and key of the HTTPS endpoint; nil serves plain HTTP.
        public var tls: TLSIdentity?

        public init(
            apiKey: String, keyID: String? = nil, privateKeyPEM: String, certificatePEM: String,
            adminToken: String, port: Int = 80, tls: TLSIdentity? = nil
        ) {
            self.apiKey = apiKey
            self.keyID = keyID
            self.privateKeyPEM = privateKeyPEM
            self.certificatePEM = certificatePEM
            self.adminToken = adminToken
            self.port = port
            self.tls = tls
        }
    }

    /// The web server's certificate chain and key (PEM files): what HTTPS clients see, unrelated to the JWT
    /// signing key.
    public struct TLSIdentity: Sendable {
        public var certificateChainPath: String
        public var privateKeyPath: String

        public init(certificateChainPath: String, privateKeyPath: String) {
            self.certificateChainPath = certificateChainPath
            self.privateKeyPath = privateKeyPath
        }
    }

    /// The fault point that makes every answer 503.
    public static let unavailableFault = "ims-signer.unavailable"

    public let node: Node
    public let configuration: Configuration
    public let certificate: HostCertificate
    private let key: RSAPrivateKey
    private let server: Mutex<HTTPServer?>
    /// App token → enrolled user id.
    private let appTokens = Mutex<[String: String]>([:])

    private init(node: Node, configuration: Configuration, key: RSAPrivateKey, certificate: HostCertificate) {
        self.node = node
        self.configuration = configuration
        self.key = key
        self.certificate = certificate
        self.server = Mutex(nil)
    }

    /// Loads the key and certificate, then serves on `configuration.port`.
    /// - throws: ``JWTError`` when the key or certificate is unusable or they do not belong together.
    public static func start(on node: Node, configuration: Configuration) async throws -> HostSigningBackend {
        let key = try RSAPrivateKey(pem: configuration.privateKeyPEM)
        let certificate = try HostCertificate(pem: configuration.certificatePEM)
        guard key.publicKey.pem == certificate.publicKey.pem else {
            throw JWTError(.key, "the certificate does not hold the signing key's public key; expected the certificate made from this key pair")
        }
        let tls = try configuration.tls.map(Self.serverContext)
        node.faults.declare(unavailableFault)
        let backend = HostSigningBackend(node: node, configuration: configuration, key: key, certificate: certificate)
        let server = try await HTTPServer.start(
            on: node, port: configuration.port, limits: HTTPServer.Limits(maxBodyBytes: JWTLimits.maxTokenBytes),
            setup: { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addTLSServerHandler(NIOSSLServerHandler(context: tls), node: node) }
                }
            },
            // Each request on its connection's loop: its state is behind locks, and the RSA signature (the costly
            // part) then runs on every loop, as the TLS handshakes in front of it do, rather than all on one.
            handlerLoop: .connection, handler: { request in backend.handle(request) }
        ).get()
        backend.server.withLock { $0 = server }
        node.trace("started", [("port", "\(server.listener.port)"), ("scheme", backend.scheme)])
        return backend
    }

    /// - throws: ``JWTError`` naming the file that could not be used.
    private static func serverContext(_ identity: TLSIdentity) throws -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do { chain = try NIOSSLCertificate.fromPEMFile(identity.certificateChainPath) } catch {
            throw JWTError(.key, "TLS certificate \(identity.certificateChainPath): \(error); expected a PEM certificate chain")
        }
        do { key = try NIOSSLPrivateKey(file: identity.privateKeyPath, format: .pem) } catch {
            throw JWTError(.key, "TLS key \(identity.privateKeyPath): \(error); expected a PEM private key")
        }
        do {
            return try NIOSSLContext(
                configuration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
        } catch {
            throw JWTError(
                .key, "TLS certificate \(identity.certificateChainPath) and key \(identity.privateKeyPath) are unusable together: \(error)")
        }
    }

    /// Where it listens (nil once stopped before it started).
    public var listener: (any Listener)? { server.withLock { $0?.listener } }

    /// `https` or `http`.
    public var scheme: String { configuration.tls == nil ? "http" : "https" }

    /// `https://host:port/` of the back end (`http://` without TLS).
    public var baseURL: String {
        guard let listener else { return "\(scheme)://\(node.name)/" }
        return "\(scheme)://\(listener.host):\(listener.port)/"
    }

    public func stop() async throws {
        try await server.withLock { $0 }?.stop().get()
        node.trace("stopped")
    }

    /// Enrols `user` and returns the app token that authenticates them to this back end. Enrolling again
    /// issues a new token; earlier ones stay valid.
    public func enrol(user: String) -> String {
        let token = "app-" + Base64URL.encode(node.secrets.bytes(18))
        appTokens.withLock { $0[token] = user }
        node.trace("user-enrolled", [("user", user)])
        return token
    }

    /// Enrols `user` with an app token the host's login already issued (the original example request carries
    /// `CLIENT_AUTHORIZATION_TOKEN`), so a recorded request can be replayed as it was sent.
    /// - throws: ``JWTError`` (`malformed`) when the token could not travel as `Authorization: Bearer <token>`
    ///   (1…256 visible ASCII characters) or already belongs to another user.
    public func enrol(user: String, appToken token: String) throws(JWTError) {
        guard (1...256).contains(token.utf8.count), token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw JWTError(.malformed, "app token: expected 1…256 visible ASCII characters (it travels as Authorization: Bearer <token>)")
        }
        let owner = appTokens.withLock { tokens in
            if tokens[token] == nil { tokens[token] = user }
            return tokens[token]
        }
        guard owner == user else { throw JWTError(.malformed, "app token: it already belongs to another user; expected a token of its own") }
        node.trace("user-enrolled", [("user", user)])
    }

    // MARK: Requests

    func handle(_ request: HTTPServerRequest) -> HTTPResponse {
        if node.fault(Self.unavailableFault) {
            return .text(.serviceUnavailable, "the signing back end is unavailable; try again later")
        }
        switch (request.method, request.path) {
        case (.POST, "/sign"): return sign(request)
        // What a person who opens the URL serve prints finds: where the back end's resources are.
        case (.GET, "/"):
            return .text(
                .ok,
                "the host's IMS signing back end: POST \(baseURL)sign signs a token prototype (Authorization: Bearer <app token>, "
                    + "the prototype as the body); GET \(baseURL)certificate gives its certificate (PEM); POST \(baseURL)admin/users/<id> "
                    + "enrols a user (the admin token)\n")
        case (.GET, "/certificate"):
            return HTTPResponse(status: .ok, headers: ["Content-Type": "application/x-pem-file"], body: ByteBuffer(string: certificate.pem))
        case (.POST, let path) where path.hasPrefix("/admin/users/"):
            return enrol(request, user: String(path.dropFirst("/admin/users/".count)))
        case (_, "/sign"):
            return .text(.methodNotAllowed, "\(request.method) /sign: expected POST", headers: ["Allow": "POST"])
        default:
            return .text(.notFound, "no resource \(request.path); expected POST /sign, GET /certificate or POST /admin/users/<id>")
        }
    }

    private func sign(_ request: HTTPServerRequest) -> HTTPResponse {
        func refuse(_ status: HTTPResponseStatus, _ reason: String, _ code: String) -> HTTPResponse {
            node.trace("sign-refused", [("reason", code), ("status", "\(status.code)")])
            return .text(status, reason, headers: status == .unauthorized ? ["WWW-Authenticate": "Bearer realm=\"signing\""] : [:])
        }
        let user: String
        switch bearer(request) {
        case .failure(let why): return refuse(.unauthorized, why.description, "bearer")
        case .success(let token):
            guard let known = appTokens.withLock({ $0[token] }) else {
                return refuse(
                    .unauthorized, "the bearer token is not a valid app token; expected the token the host gave the signed-in user", "bearer")
            }
            user = known
        }
        let contentType = request.headers.first(name: "Content-Type")?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard contentType == "text/plain" else {
            return refuse(
                .unsupportedMediaType, "Content-Type is \(contentType ?? "missing"); expected text/plain with the JWT prototype", "content-type")
        }
        let prototype: JWTPrototype
        do {
            prototype = try JWTPrototype(compact: request.text.trimmingCharacters(in: .whitespacesAndNewlines))
            try JWTVerifier().checkLifetime(prototype.claims)
        } catch {
            return refuse(.badRequest, "the prototype is refused: \(error.message)", error.code.rawValue)
        }
        let claims = prototype.claims
        guard claims.issuer == configuration.apiKey else {
            return refuse(.badRequest, "iss is \(claims.issuer); expected this host's API key \(configuration.apiKey)", "issuer")
        }
        guard claims.subject == user else {
            return refuse(.forbidden, "sub \(claims.subject) is not the enrolled user this app token belongs to; expected sub \(user)", "subject")
        }
        do {
            let signed = try JWTPrototype(header: JWTHeader(keyID: configuration.keyID), claims: claims).signed(with: key)
            node.trace("token-signed", [("exp", "\(claims.expires)"), ("jti", claims.id), ("sub", claims.subject)])
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"],
                body: ByteBuffer(string: signed))
        } catch {
            return refuse(.internalServerError, "signing failed: \(error.message)", "key")
        }
    }

    private func enrol(_ request: HTTPServerRequest, user: String) -> HTTPResponse {
        guard case .success(let token) = bearer(request), secretsMatch(token, configuration.adminToken) else {
            return .text(
                .unauthorized, "the admin endpoint needs Authorization: Bearer <admin token>",
                headers: ["WWW-Authenticate": "Bearer realm=\"admin\""])
        }
        let decoded = user.removingPercentEncoding ?? user
        guard !decoded.isEmpty, decoded.utf8.count <= JWTLimits.maxClaimBytes, !decoded.contains("/") else {
            return .text(.badRequest, "user id '\(decoded)': expected 1…\(JWTLimits.maxClaimBytes) bytes without '/'")
        }
        return .text(.created, enrol(user: decoded))
    }

    private func bearer(_ request: HTTPServerRequest) -> Result<String, BearerToken.Problem> {
        BearerToken.parse(request.headers.first(name: "Authorization"))
    }
}
