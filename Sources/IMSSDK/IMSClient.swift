import Foundation
import JWT
import NIOCore
import Synchronization
import URLSessionHTTP
import Wire
import WireHTTP

/// The IMS SDK as the host app embeds it: it builds token prototypes, has the host's ``TokenSigner`` sign
/// them, checks what comes back, and uses the signed token to start an IMS session — asking for a new token
/// before the current one expires.
///
/// Every value that varies comes from the node: `jti` from its random stream, `nbf` from its clock (which a
/// scenario may skew), retries wait on its clock.
public final class IMSClient: Sendable {
    /// Who the user is at the host, where IMS is, and how tokens are made, signed and renewed.
    public struct Configuration: Sendable {
        /// The host API key (`iss`).
        public var apiKey: String
        /// The enrolled user's id at the host (`sub`).
        public var userID: String
        /// `http://host[:port]/` of IMS.
        public var imsURL: String
        /// exp − nbf of new tokens; at most 900 s (IMS refuses longer).
        public var tokenLifetime: Int64
        /// A new token is requested when the current one has this many seconds left, or fewer.
        public var refreshMargin: Int64
        /// Signing attempts before giving up (only failures worth repeating are retried).
        public var signingAttempts: Int
        /// Wait before the first retry; doubled each time.
        public var retryDelay: Duration
        /// What IMS requests go through: the project's NIO client (both wirings) or `URLSession` (live only).
        public var httpStack: HTTPStack

        /// By default: 900 s tokens, a new one when 60 s are left, up to three signing attempts (2 s, then 4 s apart),
        /// over the NIO stack.
        public init(
            apiKey: String, userID: String, imsURL: String, tokenLifetime: Int64 = 900, refreshMargin: Int64 = 60,
            signingAttempts: Int = 3, retryDelay: Duration = .seconds(2), httpStack: HTTPStack = .nio
        ) {
            self.apiKey = apiKey
            self.userID = userID
            self.imsURL = imsURL
            self.tokenLifetime = tokenLifetime
            self.refreshMargin = refreshMargin
            self.signingAttempts = signingAttempts
            self.retryDelay = retryDelay
            self.httpStack = httpStack
        }
    }

    /// A session IMS granted.
    public struct Session: Sendable, Equatable {
        /// The session id of IMS's `201` answer, sent as `X-IMS-Session` with later calls.
        public let id: String
        /// The signed token's claims (its jti, window).
        public let claims: JWTClaims
    }

    /// The phone the SDK runs on: its clock gives `nbf` and times the retries, its secrets the `jti`, its network the
    /// requests.
    public let node: Node
    /// The user, IMS URL and token settings the client was created with.
    public let configuration: Configuration
    private let signer: any TokenSigner
    private let current = Mutex<Session?>(nil)
    /// IMS through the configured stack, or why `imsURL` is unusable (thrown by the first request, as before).
    private let transport: Result<any HTTPTransport, IMSSDKError>

    /// The SDK initialised for `configuration`'s user and IMS, on `node`; it holds no session until it starts one.
    ///
    /// - parameters:
    ///   - node: the phone the SDK runs on (see ``node``).
    ///   - configuration: the user, IMS URL and token settings; an unusable `imsURL` is thrown by the first request.
    ///   - tokenSignerFactory: as in the original SDK's `initialize(…, tokenSignerFactory:)`; called once, here.
    public init(node: Node, configuration: Configuration, tokenSignerFactory: () -> any TokenSigner) {
        self.node = node
        self.configuration = configuration
        self.signer = tokenSignerFactory()
        transport = Result { () throws(IMSSDKError) -> any HTTPTransport in
            let endpoint = try IMSEndpoint(configuration.imsURL)
            let origin = HTTPOrigin(usesTLS: false, host: endpoint.host, port: endpoint.port)
            switch configuration.httpStack {
            case .nio: return NIOHTTPTransport(node: node, origin: origin, tls: nil)
            case .urlsession: return URLSessionTransport(origin: origin.onMachine(of: node))
            }
        }
    }

    // MARK: Tokens

    /// A fresh prototype: unique `jti`, `nbf` = now on this device's clock, `exp` = nbf + lifetime (≤ 15 min).
    public func makePrototype() -> JWTPrototype {
        let now = node.clock.unixSeconds
        let lifetime = min(configuration.tokenLifetime, JWTLimits.maxLifetimeSeconds)
        return JWTPrototype(
            claims: JWTClaims(
                issuer: configuration.apiKey, subject: configuration.userID,
                id: node.secrets.uuid(), notBefore: now, expires: now + lifetime))
    }

    /// Builds a prototype, has it signed (retrying failures worth retrying), and checks the result.
    /// - throws: ``TokenSigningError`` from the signer, or ``IMSSDKError`` when the signed token is unusable.
    public func signedToken() async throws -> (token: String, claims: JWTClaims) {
        let prototype = makePrototype()
        var delay = configuration.retryDelay
        var attempt = 1
        while true {
            do {
                let token = try await signer.sign(prototype.compact)
                try Self.check(token, against: prototype)
                node.trace("token-received", [("attempt", "\(attempt)"), ("exp", "\(prototype.claims.expires)"), ("jti", prototype.claims.id)])
                return (token, prototype.claims)
            } catch let error as TokenSigningError where error.isRetryable && attempt < configuration.signingAttempts {
                node.trace("signing-retry", [("attempt", "\(attempt)"), ("error", error.message), ("wait", delay.workbenchText)])
                try await node.clock.sleep(for: delay)
                delay *= 2
                attempt += 1
            } catch {
                node.trace("signing-failed", [("attempt", "\(attempt)"), ("error", "\(error)")])
                throw error
            }
        }
    }

    /// The SDK's check of a signed token before use: a well-formed RS256 JWS carrying exactly the claims
    /// it asked for. (The signature itself is IMS's to verify: the SDK has no key.)
    static func check(_ token: String, against prototype: JWTPrototype) throws {
        let signed: SignedJWT
        do { signed = try SignedJWT(compact: token) } catch {
            throw IMSSDKError("the signed token is unusable: \(error.message)")
        }
        guard signed.claims == prototype.claims else {
            throw IMSSDKError("the signed token's claims differ from the prototype's; expected the signer to sign the prototype unchanged")
        }
    }

    // MARK: Sessions

    /// The current session, or a new one when there is none or its token has `refreshMargin` seconds left
    /// or fewer (asked for before it expires, so calls never go out with a dying token).
    public func session() async throws -> (session: Session, refreshed: Bool) {
        let now = node.clock.unixSeconds
        if let session = current.withLock({ $0 }), session.claims.expires - now > configuration.refreshMargin {
            return (session, false)
        }
        let hadSession = current.withLock { $0 != nil }
        let session = try await startSession()
        if hadSession { node.trace("token-refreshed", [("exp", "\(session.claims.expires)"), ("jti", session.claims.id)]) }
        return (session, hadSession)
    }

    /// Gets a new signed token and starts an IMS session with it.
    public func startSession() async throws -> Session {
        let (token, claims) = try await signedToken()
        let response = try await send(HTTPRequest(method: .POST, target: "/v1/sessions", headers: ["Authorization": "Bearer \(token)"]))
        guard response.status == .created else {
            throw IMSSDKError(
                "IMS refused the token (\(response.status.code)): \(response.text.trimmingCharacters(in: .whitespacesAndNewlines))",
                status: Int(response.status.code))
        }
        guard let id = Self.sessionID(in: response.text) else {
            throw IMSSDKError("IMS answered 201 without a session id: \(response.text)")
        }
        let session = Session(id: id, claims: claims)
        current.withLock { $0 = session }
        node.trace("session-ready", [("exp", "\(claims.expires)"), ("jti", claims.id)])
        return session
    }

    /// Asks IMS for the user's DriveSync status through the current session (refreshed when due).
    /// - returns: IMS's answer and whether a new token was fetched first.
    public func status() async throws -> (response: HTTPResponse, refreshed: Bool) {
        let (session, refreshed) = try await self.session()
        let response = try await send(HTTPRequest(method: .GET, target: "/v1/drivesync/status", headers: ["X-IMS-Session": session.id]))
        return (response, refreshed)
    }

    private func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await transport.get().send(request)
    }

    private static func sessionID(in body: String) -> String? {
        guard let members = try? StrictJSON.parseObject(Array(body.utf8), what: "the session answer"),
            let member = members.first(where: { $0.name == "session" }), case .string(let id) = member.value
        else { return nil }
        return id
    }
}

/// Why the SDK could not use a token or a session.
public struct IMSSDKError: Error, CustomStringConvertible, Sendable {
    /// What was wrong, in words; also the error's `description`.
    public let message: String
    /// IMS's HTTP status, when IMS answered.
    public let status: Int?

    /// An error saying `message`, with IMS's HTTP `status` when IMS answered.
    public init(_ message: String, status: Int? = nil) {
        self.message = message
        self.status = status
    }

    /// The ``message``.
    public var description: String { message }
}

/// Host and port of `http://host[:port]/`.
struct IMSEndpoint {
    let host: String
    let port: Int

    init(_ url: String) throws(IMSSDKError) {
        guard url.hasPrefix("http://") else { throw IMSSDKError("IMS URL \(url): expected http://host[:port]/") }
        let authority = url.dropFirst("http://".count).prefix { $0 != "/" }.split(separator: ":")
        guard let host = authority.first, !host.isEmpty else { throw IMSSDKError("IMS URL \(url): expected http://host[:port]/") }
        self.host = String(host)
        port = authority.count > 1 ? Int(authority[1]) ?? 80 : 80
    }
}
