import Foundation
import JSONEscaping
import JWT
import NIOCore
import NIOHTTP1
import Synchronization
import Wire
import WireHTTP

/// IMS's side of DriveSync token signing: it holds each host's certificate (registered per `iss`, and
/// `kid` when the host uses several keys) and the users enrolled per host, and lets the SDK start a session
/// with a signed token.
///
/// - `POST /v1/sessions` with `Authorization: Bearer <signed JWT>`: verifies header (RS256 only), claims,
///   signature against the registered certificate, the window (exp − nbf ≤ 900 s, nbf and exp against this
///   node's clock with a leeway), the user's enrolment, and that the `jti` was not used before; answers
///   `201` with `{"session":…,"sub":…,"exp":…}`, or `401` and the reason (`WWW-Authenticate` too).
/// - `GET /v1/drivesync/status` with `X-IMS-Session: <id>`: 200 while the session's token is valid, 401 after.
/// - Admin (`Authorization: Bearer <admin token>`): `POST /admin/hosts/<iss>/certificates[?kid=K]` with a
///   PEM certificate; `POST /admin/hosts/<iss>/users/<sub>`.
/// - Fault point `ims.unavailable` answers 503.
public final class IMSVerifier: Sendable {
    public struct Configuration: Sendable {
        public var port: Int
        /// SQLite file for certificates, users and the replay cache; nil = in memory.
        public var databasePath: String?
        /// Clock disagreement tolerated on nbf and exp, in seconds. IMS does not publish its own; 60 s here.
        public var leewaySeconds: Int64
        /// Bearer token for the admin endpoints.
        public var adminToken: String

        public init(port: Int = 80, databasePath: String? = nil, leewaySeconds: Int64 = 60, adminToken: String) {
            self.port = port
            self.databasePath = databasePath
            self.leewaySeconds = leewaySeconds
            self.adminToken = adminToken
        }
    }

    public static let unavailableFault = "ims.unavailable"

    public let node: Node
    public let configuration: Configuration
    private let store: IMSStore
    private let verifier: JWTVerifier
    /// Parsed certificates by issuer, then key id ("" when registered without one); mirrors the store.
    private let certificates: Mutex<[String: [String: HostCertificate]]>
    /// Signs session ids, which carry their session (see ``SessionTicket``): IMS keeps nothing per session.
    private let sessionKey: SessionTicket.Key
    private let server = Mutex<HTTPServer?>(nil)

    private init(node: Node, configuration: Configuration, store: IMSStore, certificates: [String: [String: HostCertificate]]) {
        self.node = node
        sessionKey = SessionTicket.Key(node.secrets.bytes(32))
        self.configuration = configuration
        self.store = store
        self.verifier = JWTVerifier(leeway: configuration.leewaySeconds)
        self.certificates = Mutex(certificates)
    }

    /// Opens the store, loads the registered certificates and serves.
    public static func start(on node: Node, configuration: Configuration) async throws -> IMSVerifier {
        let store = try IMSStore(path: configuration.databasePath, node: node)
        var loaded: [String: [String: HostCertificate]] = [:]
        for row in try store.certificates() {
            loaded[row.issuer, default: [:]][row.keyID] = try HostCertificate(pem: row.pem)
        }
        node.faults.declare(unavailableFault)
        let ims = IMSVerifier(node: node, configuration: configuration, store: store, certificates: loaded)
        let server = try await HTTPServer.start(
            on: node, port: configuration.port,
            limits: HTTPServer.Limits(maxBodyBytes: 64 * 1024),
            // Each request on its connection's loop: the state is the store and values behind locks.
            handlerLoop: .connection
        ) { request in
            await ims.handle(request)
        }.get()
        ims.server.withLock { $0 = server }
        node.trace(
            "started",
            [
                ("certificates", "\(loaded.values.map(\.count).reduce(0, +))"), ("leeway", "\(configuration.leewaySeconds)"),
                ("port", "\(server.listener.port)"),
            ])
        return ims
    }

    public var baseURL: String { (server.withLock { $0?.baseURL } ?? "http://\(node.name)") + "/" }

    public nonisolated(nonsending) func stop() async throws {
        try await server.withLock { $0 }?.stop().get()
        node.trace("stopped")
    }

    // MARK: Enrolment

    /// Registers a host's certificate for tokens with `iss` = `issuer` (and `kid` = `keyID`, if given), on the
    /// calling thread (start-up, an operator's command).
    /// - throws: ``JWTError`` when the certificate is not an acceptable X.509 SHA-256-with-RSA one.
    @discardableResult
    public func registerCertificate(issuer: String, keyID: String?, pem: String) throws -> HostCertificate {
        let certificate = try Self.certificate(issuer: issuer, pem: pem)
        try store.register(issuer: issuer, keyID: keyID ?? "", pem: pem, fingerprint: certificate.fingerprint)
        registered(certificate, issuer: issuer, keyID: keyID)
        return certificate
    }

    /// The same for a request (the admin endpoint): the store's write leaves the loop live.
    @discardableResult
    public nonisolated(nonsending) func registerCertificate(issuer: String, keyID: String?, pem: String) async throws -> HostCertificate {
        let certificate = try Self.certificate(issuer: issuer, pem: pem)
        try await store.register(issuer: issuer, keyID: keyID ?? "", pem: pem, fingerprint: certificate.fingerprint)
        registered(certificate, issuer: issuer, keyID: keyID)
        return certificate
    }

    private static func certificate(issuer: String, pem: String) throws -> HostCertificate {
        guard !issuer.isEmpty, issuer.utf8.count <= JWTLimits.maxClaimBytes else {
            throw JWTError(.invalidClaim, "issuer '\(issuer)': expected the host API key, 1…\(JWTLimits.maxClaimBytes) bytes")
        }
        return try HostCertificate(pem: pem)
    }

    private func registered(_ certificate: HostCertificate, issuer: String, keyID: String?) {
        certificates.withLock { $0[issuer, default: [:]][keyID ?? ""] = certificate }
        node.trace("certificate-registered", [("fingerprint", String(certificate.fingerprint.prefix(16))), ("iss", issuer), ("kid", keyID ?? "")])
    }

    /// Records `subject` as an enrolled, active user of the host `issuer`, on the calling thread.
    public func enrol(issuer: String, subject: String) throws {
        try store.enrol(issuer: issuer, subject: subject)
        node.trace("user-enrolled", [("iss", issuer), ("sub", subject)])
    }

    /// The same for a request (the admin endpoint).
    public nonisolated(nonsending) func enrol(issuer: String, subject: String) async throws {
        try await store.enrol(issuer: issuer, subject: subject)
        node.trace("user-enrolled", [("iss", issuer), ("sub", subject)])
    }

    // MARK: Requests

    nonisolated(nonsending) func handle(_ request: HTTPServerRequest) async -> HTTPResponse {
        if node.fault(Self.unavailableFault) { return .text(.serviceUnavailable, "IMS is unavailable; try again later") }
        let path = request.path
        switch (request.method, path) {
        case (.POST, "/v1/sessions"): return await startSession(request)
        case (.GET, "/v1/drivesync/status"): return status(request)
        case (.POST, _) where path.hasPrefix("/admin/hosts/"): return await admin(request)
        // The URL serve prints: say what is here rather than 404.
        case (.GET, "/"):
            return .text(
                .ok,
                "IMS: POST /v1/sessions starts a session (a token the host signed); GET /v1/drivesync/status checks one; "
                    + "POST /admin/hosts/<iss>/certificates and /admin/hosts/<iss>/users/<sub> register a host's certificate and users "
                    + "(the admin token)\n")
        default:
            return .text(.notFound, "no resource \(request.method) \(path); expected POST /v1/sessions or GET /v1/drivesync/status")
        }
    }

    /// Checks a signed token; on success the claims, otherwise the error to answer with.
    public nonisolated(nonsending) func verify(_ token: String) async -> Result<JWTClaims, JWTError> {
        let now = node.clock.unixSeconds
        do {
            let claims = try verifiedClaims(token, now: now)
            guard try await store.isEnrolled(issuer: claims.issuer, subject: claims.subject) else {
                throw JWTError(
                    .invalidClaim, "sub \(claims.subject) is not an enrolled, active user of host \(claims.issuer); expected an enrolled user's id")
            }
            let fresh = try await store.recordUse(
                issuer: claims.issuer, jti: claims.id, expires: claims.expires,
                forgetBefore: now - configuration.leewaySeconds)
            guard fresh else {
                throw JWTError(Self.replayed, "jti \(claims.id) was already used; expected a new token (unique jti) for every session")
            }
            return .success(claims)
        } catch let error as JWTError {
            return .failure(error)
        } catch {
            return .failure(JWTError(.key, "the IMS store failed: \(error)"))
        }
    }

    /// A token id seen before.
    public static let replayed = JWTError.Code(rawValue: "replayed-jti")

    /// The claims of a token whose signature and window hold at `now`.
    private func verifiedClaims(_ token: String, now: Int64) throws(JWTError) -> JWTClaims {
        let key = { (issuer: String, keyID: String?) throws(JWTError) -> any RS256Verifying in try self.key(issuer: issuer, keyID: keyID) }
        do {
            return try verifier.verify(token, now: now, key: key).claims
        } catch let error where error.code == .notYetValid && node.planted(.imsNotBeforeIgnored) {
            // Planted bug: only exp is checked; the signature was (it is checked before the window).
            return try SignedJWT(compact: token).claims
        }
    }

    private func key(issuer: String, keyID: String?) throws(JWTError) -> RSAPublicKey {
        guard let byKeyID = certificates.withLock({ $0[issuer] }), !byKeyID.isEmpty else {
            throw JWTError(.unknownIssuer, "no certificate is registered for iss \(issuer); expected the API key of a registered host")
        }
        if let keyID {
            guard let certificate = byKeyID[keyID] else {
                throw JWTError(
                    .unknownKeyID,
                    "host \(issuer) has no certificate with kid \(keyID); expected one of: \(byKeyID.keys.filter { !$0.isEmpty }.sorted().joined(separator: ", "))"
                )
            }
            return certificate.publicKey
        }
        if let certificate = byKeyID[""] ?? (byKeyID.count == 1 ? byKeyID.first!.value : nil) { return certificate.publicKey }
        throw JWTError(.unknownKeyID, "host \(issuer) has several certificates; expected a kid in the token header")
    }

    private nonisolated(nonsending) func startSession(_ request: HTTPServerRequest) async -> HTTPResponse {
        let token: String
        switch BearerToken.parse(request.headers.first(name: "Authorization")) {
        case .failure(let problem):
            node.trace("token-rejected", [("reason", "bearer")])
            return unauthorized(problem.description)
        case .success(let value): token = value
        }
        switch await verify(token) {
        case .failure(let error):
            node.trace("token-rejected", [("reason", error.code.rawValue)])
            return unauthorized("invalid token: \(error.message)")
        case .success(let claims):
            let id = sessionKey.issue(SessionTicket(subject: claims.subject, expires: claims.expires), unique: node.secrets.uuid())
            node.trace(
                "session-started", [("exp", "\(claims.expires)"), ("jti", claims.id), ("nbf", "\(claims.notBefore)"), ("sub", claims.subject)])
            return HTTPResponse(
                status: .created, headers: ["Content-Type": "application/json"],
                body: ByteBuffer(string: #"{"session":"\#(id)","sub":\#(JSONString.quoted(claims.subject)),"exp":\#(claims.expires)}"#))
        }
    }

    private func status(_ request: HTTPServerRequest) -> HTTPResponse {
        guard let id = request.headers.first(name: "X-IMS-Session"), let session = sessionKey.open(id) else {
            return unauthorized("unknown session; expected X-IMS-Session with the id from POST /v1/sessions")
        }
        let now = node.clock.unixSeconds
        let left = session.expires + configuration.leewaySeconds - now
        guard left > 0 else {
            node.trace("session-expired", [("sub", session.subject)])
            return unauthorized("the session expired with its token at \(session.expires) (now \(now)); expected a new session with a fresh token")
        }
        node.trace("session-checked", [("margin", Self.margin(seconds: left)), ("sub", session.subject)])
        return HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/json"],
            body: ByteBuffer(string: #"{"sub":\#(JSONString.quoted(session.subject)),"state":"active","exp":\#(session.expires)}"#))
    }

    /// How close a session came to being refused, in buckets finer near the end (a fuzzer's value profile: a run whose
    /// session had a minute left is one a small change of clock turns into a refusal, and guided exploration mutates
    /// such runs first).
    public static let margins = ["over-14m", "10-14m", "5-10m", "1-5m", "under-1m"]

    /// The bucket of ``margins`` that `seconds` left fall in.
    static func margin(seconds: Int64) -> String {
        switch seconds {
        case 841...: margins[0]
        case 601...840: margins[1]
        case 301...600: margins[2]
        case 61...300: margins[3]
        default: margins[4]
        }
    }

    private nonisolated(nonsending) func admin(_ request: HTTPServerRequest) async -> HTTPResponse {
        guard case .success(let token) = BearerToken.parse(request.headers.first(name: "Authorization")),
            secretsMatch(token, configuration.adminToken)
        else {
            return .text(
                .unauthorized, "the admin endpoints need Authorization: Bearer <admin token>", headers: ["WWW-Authenticate": "Bearer realm=\"admin\""]
            )
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map { String($0).removingPercentEncoding ?? String($0) }
        // "", "admin", "hosts", iss, "certificates" | "users", [sub]
        guard parts.count >= 5, !parts[3].isEmpty else {
            return .text(.notFound, "expected POST /admin/hosts/<iss>/certificates or /admin/hosts/<iss>/users/<sub>")
        }
        let issuer = parts[3]
        do {
            switch (parts[4], parts.count) {
            case ("certificates", 5):
                let certificate = try await registerCertificate(issuer: issuer, keyID: request.queryValue("kid"), pem: request.text)
                return .text(.created, "registered \(certificate.subject) for iss \(issuer), SHA-256 \(certificate.fingerprint)")
            case ("users", 6) where !parts[5].isEmpty:
                try await enrol(issuer: issuer, subject: parts[5])
                return .text(.created, "enrolled \(parts[5]) for iss \(issuer)")
            default:
                return .text(.notFound, "expected POST /admin/hosts/<iss>/certificates or /admin/hosts/<iss>/users/<sub>")
            }
        } catch let error as JWTError {
            return .text(.badRequest, error.message)
        } catch {
            return .text(.internalServerError, "the IMS store failed: \(error)")
        }
    }

    private func unauthorized(_ reason: String) -> HTTPResponse {
        .text(.unauthorized, reason, headers: ["WWW-Authenticate": "Bearer realm=\"ims\", error=\"invalid_token\""])
    }
}

extension PlantedBug {
    /// IMS checks a token's exp but not its nbf: a token from a phone whose clock runs ahead starts a session
    /// before its window opens.
    public static let imsNotBeforeIgnored = PlantedBug("ims.not-before-ignored")
}
