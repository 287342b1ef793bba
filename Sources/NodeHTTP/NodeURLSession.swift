import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Wire
import WireHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``HTTPDataLoading`` on a workbench `Node`: a request in URLSession's shape, sent over the node's network by the
/// workbench's own HTTP/1.1 client (WireHTTP's `NIOHTTPTransport`, what the workbench's SCPms and IMS clients use),
/// timed on the node's clock. In a simulated world that is the simulated network and virtual time; on the live wire,
/// real sockets and the wall clock.
///
/// What it does as URLSession does: `http` and `https` URLs (TLS by NIOSSL, trusting ``Trust``), the request's
/// method, headers and `httpBody`, `timeoutInterval` as the time the request may take, any status code returned as an
/// `HTTPURLResponse` with the headers (repeated ones joined with `, `), a Basic challenge answered through the
/// ``NodeURLSessionDelegate`` once, and `URLError`s for what fails before an answer.
///
/// An answer's body is read whole by ``data(for:)``, or as it arrives by ``bytes(for:)`` (URLSession's shape on Apple's
/// platforms), where `timeoutInterval` is an idle timeout.
///
/// What it does not: one connection per request (no keep-alive, no HTTP/2), no cookies, cache, redirects or
/// credential storage, no `httpBodyStream` (``upload(for:streaming:)`` streams an upload instead), no proxy; credentials in the URL
/// (`user:password@`) are not sent. For ``data(for:)`` the `timeoutInterval` bounds each exchange from connect to the
/// last byte (URLSession's bounds the idle time between packets). A task cancelled while it waits does not end the exchange early: the timeout does.
public struct NodeURLSession: HTTPDataLoading {
    /// Whom an `https` request trusts.
    public enum Trust: Sendable, Equatable {
        /// The system's trust store (NIOSSL's default roots).
        case systemRoots
        /// Only certificates that chain to the CAs in this PEM text (one or more certificates), for the URL's host name.
        case caPEM([UInt8])
    }

    /// The node requests are sent from.
    public let node: Node
    /// Asked when a server challenges a request; nil leaves every `401` to the caller.
    public let delegate: (any NodeURLSessionDelegate)?
    /// The largest response body taken; a larger one fails the request with `URLError(.dataLengthExceedsMaximum)`.
    public let maxResponseBytes: Int
    let tls: NIOSSLContext

    /// The default bound on a response body: 64 MiB.
    public static let defaultMaxResponseBytes = 64 << 20

    /// A session on `node`.
    ///
    /// - parameters:
    ///   - node: the node requests go out from (a simulated world's `world.node("phone")`, or a live wire's node).
    ///   - trust: whom `https` requests trust.
    ///   - delegate: answers Basic challenges; nil hands each `401` back to the caller.
    ///   - maxResponseBytes: the largest response body taken.
    /// - throws: ``NodeURLSessionError`` when `trust` holds no usable PEM certificate.
    public init(
        node: Node, trust: Trust = .systemRoots, delegate: (any NodeURLSessionDelegate)? = nil,
        maxResponseBytes: Int = NodeURLSession.defaultMaxResponseBytes
    ) throws {
        self.node = node
        self.delegate = delegate
        self.maxResponseBytes = maxResponseBytes
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if case .caPEM(let pem) = trust {
            let roots: [NIOSSLCertificate]
            do {
                roots = try NIOSSLCertificate.fromPEMBytes(pem)
            } catch {
                throw NodeURLSessionError("the trusted CA is no PEM certificate: \(error)")
            }
            guard !roots.isEmpty else { throw NodeURLSessionError("the trusted CA PEM (\(pem.count) bytes) holds no certificate") }
            configuration.trustRoots = .certificates(roots)
        }
        do {
            tls = try NIOSSLContext(configuration: configuration)
        } catch {
            throw NodeURLSessionError("the TLS settings are unusable: \(error)")
        }
    }

    /// Sends `request` over the node's network and returns the final answer, as `URLSession.data(for:)` does.
    ///
    /// A `401` with a Basic challenge asks the ``delegate`` once: `.useCredential` with a user and password sends the
    /// request again with them, and that answer is the result (a second `401` included); `.cancelAuthenticationChallenge`
    /// throws `URLError(.cancelled)`; anything else returns the `401`.
    /// - returns: the body, and an `HTTPURLResponse` for the request's URL.
    /// - throws: `URLError`: `.badURL` or `.unsupportedURL` for a request that cannot be sent (no URL, no host, a
    ///   scheme other than `http`/`https`, a body stream); `.timedOut` when no complete answer came within
    ///   `timeoutInterval` on the node's clock; `.cannotFindHost`, `.cannotConnectToHost`, `.networkConnectionLost`,
    ///   `.secureConnectionFailed`, `.dataLengthExceedsMaximum` for the rest. The underlying error is the
    ///   `NSUnderlyingErrorKey`, its text the `localizedDescription`.
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        let outgoing = try OutgoingRequest(request)
        let transport = NIOHTTPTransport(
            node: node, origin: outgoing.origin, tls: outgoing.origin.usesTLS ? tls : nil, timeout: outgoing.timeout,
            maxBodyBytes: maxResponseBytes)
        var answer = try await exchange(outgoing.http, on: transport, for: outgoing)
        if let again = try await retried(outgoing.http, after: answer, for: outgoing) {
            answer = try await exchange(again, on: transport, for: outgoing)
        }
        return (Data(answer.body.readableBytesView), try outgoing.response(answer))
    }

    /// One exchange on the transport, its failures as URLSession reports them.
    func exchange(_ request: HTTPRequest, on transport: NIOHTTPTransport, for outgoing: OutgoingRequest) async throws -> HTTPResponse {
        let started = node.clock.now
        do {
            return try await transport.send(request)
        } catch {
            throw outgoing.error(for: error, after: started.duration(to: node.clock.now))
        }
    }
}

/// Why a ``NodeURLSession`` could not be made.
public struct NodeURLSessionError: Error, CustomStringConvertible, Sendable {
    /// What was wrong, and what was expected.
    public let message: String

    /// An error that says `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
