import Foundation
import NIOCore
import NIOSSL
import URLSessionHTTP
import Wire
import WireHTTP

/// The ready-made signer of the original example: `POST` the prototype to the host's back end
/// (`https://…/sign`) as `text/plain` with the app's bearer token, and hand back the body of a `200` as the
/// signed token.
public struct URLTokenSigner: TokenSigner {
    /// Which answers count as a token.
    public enum ContentTypes: Sendable, Equatable {
        /// Any content type, or none — the original signer only needs an HTTP response with status 200 and a
        /// UTF-8 body (the SDK then checks the token itself).
        case any
        /// Only these media types (lowercase, parameters ignored); anything else is "Invalid response type".
        case only([String])

        /// `text/plain` (what the original back end sends) or `application/jwt` (RFC 7519's media type).
        public static let strict = ContentTypes.only(["text/plain", "application/jwt"])
    }

    /// How to trust the back end's HTTPS certificate.
    public enum Trust: Sendable {
        /// The system's roots, as an app does.
        case systemDefault
        /// Only this CA (PEM), e.g. a test CA.
        case caPEM([UInt8])
    }

    /// The node the signing requests go out from; the outcome is reported on its event loop.
    public let node: Node
    /// The back end's host, from the signing URL.
    public let host: String
    /// The back end's port: the URL's, else 443 for https and 80 for http.
    public let port: Int
    /// The signing endpoint's request target, e.g. `/sign`; `/` when the URL has no path.
    public let path: String
    /// Whether the signing URL is `https://`.
    public let usesTLS: Bool
    /// The app user's token at its host, sent as `Authorization: Bearer` with every request (not an IMS token).
    public let appAuthorization: String
    /// How long one signing request may take; past it the signing fails as `.transport`.
    public let timeout: TimeAmount
    /// Which media types of a `200` answer count as a token (``URLTokenSigner/ContentTypes/any`` by default).
    public let contentTypes: ContentTypes
    /// The back end through the chosen stack, with the chosen trust.
    private let transport: any HTTPTransport

    /// A signer that posts each prototype to the back end at `url`, from `node`.
    ///
    /// - parameters:
    ///   - node: the node the signing requests go out from; the outcome is reported on its event loop.
    ///   - url: `https://host[:port]/path` of the back end's signing endpoint (`http://` for a back end
    ///     without TLS).
    ///   - appAuthorization: the token that authenticates the app's user to its host (not an IMS token).
    ///   - timeout: how long one signing request may take; past it the signing fails as `.transport`.
    ///   - trust: the roots the back end's certificate must chain to (https only).
    ///   - contentTypes: which answers count as a token (default: any, as the original signer).
    ///   - stack: the project's NIO client (both wirings) or `URLSession` (live only; for `https://`, only with
    ///     ``Trust/systemDefault``: URLSession on Linux takes no trust roots of its own — docs/urlsession.md).
    /// - throws: ``TokenSigningError`` (`transport`) for a URL that is not http(s)://host[:port]/path, an
    ///   unusable CA, or a CA given to URLSession.
    public init(
        node: Node, url: String, appAuthorization: String, timeout: TimeAmount = .seconds(30),
        trust: Trust = .systemDefault, contentTypes: ContentTypes = .any, stack: HTTPStack = .nio
    ) throws {
        let expected = "expected https://host[:port]/path (or http://)"
        let usesTLS: Bool
        if url.hasPrefix("https://") {
            usesTLS = true
        } else if url.hasPrefix("http://") {
            usesTLS = false
        } else {
            throw TokenSigningError(.transport, "signing URL \(url): \(expected)")
        }
        let rest = url.drop { $0 != "/" }.dropFirst(2)
        let authority = rest.prefix { $0 != "/" }
        let hostPort = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = hostPort.first, !host.isEmpty, hostPort.count <= 2 else {
            throw TokenSigningError(.transport, "signing URL \(url): \(expected)")
        }
        var port = usesTLS ? 443 : 80
        if hostPort.count == 2 {
            guard let number = Int(hostPort[1]), (1...65535).contains(number) else {
                throw TokenSigningError(.transport, "signing URL \(url): port '\(hostPort[1])' is not a number from 1 to 65535")
            }
            port = number
        }
        self.node = node
        self.host = String(host)
        self.port = port
        self.usesTLS = usesTLS
        self.path = rest.count > authority.count ? String(rest.dropFirst(authority.count)) : "/"
        self.appAuthorization = appAuthorization
        self.timeout = timeout
        self.contentTypes = contentTypes
        let origin = HTTPOrigin(usesTLS: usesTLS, host: self.host, port: port)
        if stack == .urlsession {
            if usesTLS, case .caPEM = trust {
                throw TokenSigningError(.transport, "a trusted CA needs the nio stack: URLSession on Linux trusts only the system's roots")
            }
            transport = URLSessionTransport(origin: origin.onMachine(of: node), timeout: .nanoseconds(timeout.nanoseconds))
            return
        }
        guard usesTLS else {
            transport = NIOHTTPTransport(node: node, origin: origin, tls: nil, timeout: timeout)
            return
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if case .caPEM(let pem) = trust {
            do { configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(pem)) } catch {
                throw TokenSigningError(.transport, "the trusted CA is not a PEM certificate: \(error)")
            }
        }
        do {
            transport = NIOHTTPTransport(node: node, origin: origin, tls: try NIOSSLContext(configuration: configuration), timeout: timeout)
        } catch {
            throw TokenSigningError(.transport, "the TLS settings are unusable: \(error)")
        }
    }

    public func sign(_ unsignedToken: String, resultHandler: @escaping @Sendable (Result<String, any Error>) -> Void) {
        let request = HTTPRequest(
            method: .POST, target: path,
            headers: [
                "Authorization": "Bearer \(appAuthorization)", "Content-Type": "text/plain",
                "Cache-Control": "no-cache",
            ],
            body: ByteBuffer(string: unsignedToken))
        let (transport, contentTypes) = (self.transport, self.contentTypes)
        node.task { () -> Result<String, any Error> in
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                return .failure(TokenSigningError(.transport, "Problem signing token: no response from the back end (\(error))"))
            }
            return Self.interpret(response, contentTypes: contentTypes)
        }.whenComplete { outcome in
            switch outcome {
            case .success(let result): resultHandler(result)
            case .failure(let error): resultHandler(.failure(error))
            }
        }
    }

    /// The original signer's checks, in its order: response type, status, decodable body.
    static func interpret(_ response: HTTPResponse, contentTypes: ContentTypes = .any) -> Result<String, any Error> {
        guard response.status.code == 200 else {
            let reason = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
            return .failure(
                TokenSigningError(
                    .badStatus(Int(response.status.code)), "Bad response: \(response.status.code)\(reason.isEmpty ? "" : " (\(reason))")"))
        }
        if case .only(let accepted) = contentTypes {
            let type = response.headers.first(name: "Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard let type, accepted.contains(type) else {
                return .failure(
                    TokenSigningError(
                        .invalidResponseType,
                        "Invalid response type \(type ?? "(none)"), expecting \(accepted.joined(separator: " or "))"))
            }
        }
        guard let text = String(validating: response.body.readableBytesView, as: UTF8.self) else {
            return .failure(TokenSigningError(.undecodableBody, "Problem signing token: the body is not UTF-8"))
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.split(separator: ".", omittingEmptySubsequences: false).count == 3 else {
            return .failure(TokenSigningError(.undecodableBody, "Problem signing token: the body is not a compact JWS (header.payload.signature)"))
        }
        return .success(token)
    }
}
