import Foundation
import NIOCore
import NIOHTTP1
import WireHTTP

/// The header fields of a request or a response, in the order they were sent, names compared without regard to case
/// (as HTTP compares them). A field may repeat.
public struct NodeHTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// Every field, in order, names as they were spelled.
    public private(set) var fields: [(name: String, value: String)]

    /// Headers with `fields`, in that order.
    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    /// `["Content-Type": "application/json"]`: one field per pair, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) { fields = elements.map { (name: $0.0, value: $0.1) } }

    /// The first value of the field called `name` (any case), or nil when there is none.
    public subscript(name: String) -> String? { fields.first { $0.name.lowercased() == name.lowercased() }?.value }

    /// Every value of the field called `name` (any case), in order.
    public func values(of name: String) -> [String] { fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value) }

    /// Adds a field, after any of the same name.
    public mutating func add(name: String, value: String) { fields.append((name: name, value: value)) }

    /// Sets the field called `name` to `value` alone: removes every field of that name (any case), then adds it.
    public mutating func replaceOrAdd(name: String, value: String) {
        fields.removeAll { $0.name.lowercased() == name.lowercased() }
        fields.append((name: name, value: value))
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    init(_ headers: HTTPHeaders) { fields = headers.map { (name: $0.name, value: $0.value) } }

    var nio: HTTPHeaders { HTTPHeaders(fields.map { ($0.name, $0.value) }) }
}

/// A request as a ``NodeHTTPServer`` hands it to its handler: the head and the whole body (the server reads the
/// body completely, up to its limit, before the handler runs), or, on a server that streams request bodies, the body
/// to read as it arrives (``bodyParts``).
public struct NodeHTTPRequest: Sendable {
    /// The method as sent, e.g. `GET`, `POST`.
    public let method: String
    /// The request target as sent, e.g. `/devices/42?verbose=1`.
    public let target: String
    /// The path part of the target, not percent-decoded (an id in a path may hold an encoded `/`).
    public let path: String
    /// The query's items in order, percent-decoded (`+` read as a space, as forms send it).
    public let query: [(name: String, value: String)]
    /// The header fields as sent.
    public let headers: NodeHTTPHeaders
    /// The whole body; empty when there is none, or when it streams (``bodyParts``).
    public let body: Data
    /// The body as it arrives, on a server started with `streamsRequestBodies` (nil otherwise): read it once.
    public let bodyParts: NodeHTTPRequestBody?
    /// The Authorization header, kept for the credential readers (one parser each, WireHTTP's).
    private let authorization: String?

    /// A request as a handler sees it, for a test that calls a handler directly.
    ///
    /// - parameters:
    ///   - method: the method, e.g. `GET`.
    ///   - target: the origin-form target, path and query, e.g. `/devices?owner=ann`.
    ///   - headers: the header fields.
    ///   - body: the body.
    public init(method: String = "GET", target: String, headers: NodeHTTPHeaders = [:], body: Data = Data()) {
        self.init(HTTPServerRequest(method: HTTPMethod(rawValue: method), target: target, headers: headers.nio, body: ByteBuffer(bytes: body)))
    }

    init(_ request: HTTPServerRequest) {
        method = request.method.rawValue
        target = request.target
        path = request.path
        query = request.query
        headers = NodeHTTPHeaders(request.headers)
        body = Data(request.body.readableBytesView)
        bodyParts = request.bodyParts.map(NodeHTTPRequestBody.init)
        authorization = request.headers.first(name: "Authorization")
    }

    /// The first value of the query item called `name`, percent-decoded.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The body as UTF-8 text (invalid bytes replaced, never trusted).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The user and password of an `Authorization: Basic` header (RFC 7617), read by the parser the workbench's own
    /// servers use.
    public var basicCredentials: NodeHTTPAuthorization<NodeHTTPBasicCredentials> {
        switch BasicCredentials.parse(authorization) {
        case .missing: .missing
        case .malformed(let reason): .malformed(reason)
        case .valid(let credentials): .present(NodeHTTPBasicCredentials(user: credentials.user, password: credentials.password))
        }
    }

    /// The token of an `Authorization: Bearer` header (RFC 6750), read by the parser the workbench's own servers use.
    public var bearerToken: NodeHTTPAuthorization<String> {
        guard let authorization, !authorization.isEmpty else { return .missing }
        switch BearerToken.parse(authorization) {
        case .success(let token): return .present(token)
        case .failure(let problem): return .malformed(problem.description)
        }
    }
}

/// What a request's `Authorization` header says, read for one scheme.
public enum NodeHTTPAuthorization<Credentials: Sendable & Equatable>: Sendable, Equatable {
    /// The request has no `Authorization` header.
    case missing
    /// The header is there but unusable for this scheme (another scheme, bad base64, no `:`); the text says what was
    /// wrong and what was expected, fit for a `400` or `401` body.
    case malformed(String)
    /// The credentials the header carries. Whether they are right is the handler's to decide.
    case present(Credentials)

    /// The credentials, or nil when the header is missing or malformed.
    public var credentials: Credentials? {
        if case .present(let credentials) = self { return credentials }
        return nil
    }
}

/// A user and password, as an `Authorization: Basic` header carries them.
public struct NodeHTTPBasicCredentials: Sendable, Equatable {
    /// The user (everything before the first `:`).
    public let user: String
    /// The password (everything after the first `:`; it may hold further colons).
    public let password: String

    /// The credentials `user` and `password`.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Whether these are `user` and `password`, compared in time that depends on the lengths only (a client timing
    /// the answers learns nothing of the password byte by byte).
    public func matches(user: String, password: String) -> Bool {
        // Both compared whatever the first gives: `&&` would skip the password for a wrong user.
        let sameUser = secretsMatch(self.user, user)
        let samePassword = secretsMatch(self.password, password)
        return sameUser && samePassword
    }
}

/// What a ``NodeHTTPServer``'s handler answers: the status, the header fields and the whole body, or a body written as
/// it is produced (``streamed(status:headers:_:)``). The server writes `Content-Length` (or `Transfer-Encoding:
/// chunked`) itself, and `Connection: close` when the client asked for it.
public struct NodeHTTPResponse: Sendable {
    /// The status code, 200 to 999 (a `1xx` is no final answer; the server answers `500` for one outside that range).
    public var status: Int
    /// The header fields; `Content-Length` and `Transfer-Encoding` are the server's.
    public var headers: NodeHTTPHeaders
    /// The whole body (not sent by a streamed answer).
    public var body: Data
    /// A streamed answer's producer of its body.
    var producer: (@Sendable (NodeHTTPBodyWriter) async throws -> Void)?

    /// An answer with `status`, `headers` and `body`.
    public init(status: Int = 200, headers: NodeHTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text answer (`text/plain; charset=utf-8`), a newline added when `text` ends without one.
    public static func text(_ text: String, status: Int = 200) -> NodeHTTPResponse {
        NodeHTTPResponse(
            status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// A JSON answer (`application/json`) with `body` as it is.
    public static func json(_ body: Data, status: Int = 200) -> NodeHTTPResponse {
        NodeHTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// `401` asking for Basic credentials in `realm` (`WWW-Authenticate: Basic realm="…"`): what makes a
    /// ``NodeURLSession``'s delegate, or a URLSession's, answer the challenge. `reason` is the body.
    public static func basicChallenge(realm: String, reason: String = "credentials required") -> NodeHTTPResponse {
        var answer = text(reason, status: 401)
        answer.headers.add(name: "WWW-Authenticate", value: "Basic realm=\"\(realm)\"")
        return answer
    }

    /// `401` asking for a bearer token: `WWW-Authenticate: Bearer`, or, with `invalidToken` (a token came and was
    /// refused), `Bearer error="invalid_token"` (RFC 6750). `reason` is the body.
    public static func bearerChallenge(reason: String = "a bearer token is required", invalidToken: Bool = false) -> NodeHTTPResponse {
        var answer = text(reason, status: 401)
        answer.headers.add(name: "WWW-Authenticate", value: invalidToken ? "Bearer error=\"invalid_token\"" : "Bearer")
        return answer
    }
}
