import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Wire
import WireHTTP

/// A team's own HTTP server on a workbench `Node`: the workbench's own HTTP/1.1 server (WireHTTP's, the one under
/// the workbench's own actors) with a small async face. In a simulated world it listens on the simulated network
/// and answers on virtual time, deterministically; on the live wire it listens on loopback with real sockets. The
/// handler is the same code on both.
///
/// What the server does for every handler: HTTP/1.1 with keep-alive and pipelining, `Expect: 100-continue`, sized and
/// chunked request bodies, and clear answers to what the handler never sees:
/// - `400 Bad Request` with the reason for bytes that are no HTTP/1.1 request (and for plain HTTP sent to a TLS port);
/// - `413 Payload Too Large` for a body over ``Limits/maxBodyBytes`` (the connection is then closed);
/// - `408 Request Timeout` for a request that does not arrive whole within ``Limits/requestTimeout``;
/// - `500 Internal Server Error` with the error's description when the handler throws (or answers a status outside
///   200…999); the server goes on serving.
///
/// An answer's body is written whole, or as the handler produces it (``NodeHTTPResponse/streamed(status:headers:_:)``,
/// chunked, at the client's pace).
///
/// A request's body is read whole, up to the limit, before the handler runs; or, with `streamsRequestBodies`, the
/// handler runs at the request's head and reads the body as it arrives (``NodeHTTPRequest/bodyParts``).
///
/// What it does not: HTTP/2, client certificates. The handler runs on the
/// node's own event loop, one request at a time per connection: under simulation that keeps it in the kernel's order;
/// it must not block (no sleeping, no synchronous file or socket work) — await instead.
public final class NodeHTTPServer: Sendable {
    /// Answers one request. What it throws is answered `500` with the error's description; the server goes on serving.
    public typealias Handler = @Sendable (NodeHTTPRequest) async throws -> NodeHTTPResponse

    /// Bounds on what a client may send, each with its own answer.
    public struct Limits: Sendable {
        /// The largest request body taken; a larger one is answered `413` before the handler sees it.
        public var maxBodyBytes: Int
        /// How long a request may take from its head to its last byte (on the node's clock); a slower one is answered
        /// `408`.
        public var requestTimeout: Duration
        /// How long an idle keep-alive connection stays open.
        public var idleTimeout: Duration

        /// Limits of `maxBodyBytes` (1 MiB unless told), `requestTimeout` (30 s) and `idleTimeout` (60 s).
        public init(maxBodyBytes: Int = 1 << 20, requestTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(60)) {
            self.maxBodyBytes = maxBodyBytes
            self.requestTimeout = requestTimeout
            self.idleTimeout = idleTimeout
        }
    }

    /// The certificate and key a TLS server presents (TLS 1.2 and 1.3, by NIOSSL).
    public struct TLS: Sendable {
        let context: NIOSSLContext

        /// TLS with the certificate chain and private key in PEM text (the chain: the server's certificate first, then
        /// any intermediates).
        ///
        /// - throws: ``NodeHTTPServerError`` saying what is wrong with the PEM text.
        public init(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8]) throws {
            do {
                let chain = try NIOSSLCertificate.fromPEMBytes(certificateChainPEM)
                guard !chain.isEmpty else {
                    throw NodeHTTPServerError("the certificate chain PEM (\(certificateChainPEM.count) bytes) holds no certificate")
                }
                var configuration = TLSConfiguration.makeServerConfiguration(
                    certificateChain: chain.map { .certificate($0) },
                    privateKey: .privateKey(try NIOSSLPrivateKey(bytes: privateKeyPEM, format: .pem)))
                configuration.minimumTLSVersion = .tlsv12
                context = try NIOSSLContext(configuration: configuration)
            } catch let error as NodeHTTPServerError {
                throw error
            } catch {
                throw NodeHTTPServerError("the certificate chain or private key is unusable: \(error)")
            }
        }
    }

    /// The node the server listens on.
    public let node: Node
    /// Whether the server speaks TLS (its ``url`` is `https`).
    public let usesTLS: Bool
    private let server: HTTPServer

    private init(node: Node, usesTLS: Bool, server: HTTPServer) {
        self.node = node
        self.usesTLS = usesTLS
        self.server = server
    }

    /// Starts serving `handler` on `port` of `node`.
    ///
    /// Under simulation, start it from the world's own work (`world.perform`), as any work on a simulated node.
    /// - parameters:
    ///   - node: the node to listen on (a simulated world's `world.node("backend")`, or a live wire's node).
    ///   - port: the port; 0 picks a free one (read it from ``port`` or ``url``).
    ///   - tls: the certificate and key to serve `https` with; nil serves plain `http`.
    ///   - limits: the bounds on what a client may send.
    ///   - streamsRequestBodies: run the handler as soon as a request's head arrived, its body to read as it comes
    ///     (``NodeHTTPRequest/bodyParts``; an upload of any size within ``Limits/maxBodyBytes``, never held whole).
    ///     ``Limits/requestTimeout`` then bounds the wait for each part rather than the whole request.
    ///   - handler: answers each request.
    /// - returns: the server, listening.
    /// - throws: `WireError` (`.addressInUse`) when the port is taken.
    public static func start(
        on node: Node, port: Int, tls: TLS? = nil, limits: Limits = Limits(), streamsRequestBodies: Bool = false,
        handler: @escaping Handler
    ) async throws -> NodeHTTPServer {
        let context = tls?.context
        let server = try await HTTPServer.start(
            on: node, port: port, limits: limits.wire,
            setup: { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context { try channel.pipeline.syncOperations.addTLSServerHandler(NIOSSLServerHandler(context: context), node: node) }
                }
            },
            streamsRequestBodies: streamsRequestBodies, handler: { request in await answer(request, with: handler, on: node) }
        ).get()
        return NodeHTTPServer(node: node, usesTLS: tls != nil, server: server)
    }

    /// The host name clients reach the server by: the node's name under simulation, `127.0.0.1` on the live wire.
    public var host: String { server.listener.host }

    /// The port the server listens on (the one picked, when 0 was asked for).
    public var port: Int { server.listener.port }

    /// `http://host:port/` (or `https://`), the root of the server as a client reaches it.
    public var url: URL {
        var components = URLComponents()
        components.scheme = usesTLS ? "https" : "http"
        components.host = host
        components.port = port
        components.path = "/"
        // Host and port come from the listener, a node name or an address: always a valid URL.
        return components.url!
    }

    /// Stops accepting connections. Connections already open are answered until their clients close them (or they
    /// stay idle for ``Limits/idleTimeout``).
    public func stop() async throws { try await server.stop().get() }

    /// The handler's answer to `request`, or the `500` that says why there is none.
    static func answer(_ request: HTTPServerRequest, with handler: Handler, on node: Node) async -> HTTPResponse {
        let response: NodeHTTPResponse
        do {
            response = try await handler(NodeHTTPRequest(request))
        } catch {
            return failed(on: node, "the handler failed: \(error)")
        }
        guard (200...999).contains(response.status) else {
            return failed(on: node, "the handler answered status \(response.status), outside 200…999")
        }
        let status = HTTPResponseStatus(statusCode: response.status)
        if let produce = response.producer {
            return .streamed(status, headers: response.headers.nio) { writer in try await produce(NodeHTTPBodyWriter(writer: writer)) }
        }
        return HTTPResponse(status: status, headers: response.headers.nio, body: ByteBuffer(bytes: response.body))
    }

    /// Records `reason` in the node's trace (WireHTTP's `http-error`) and answers `500` with it.
    private static func failed(on node: Node, _ reason: String) -> HTTPResponse {
        node.trace("http-error", [("error", reason)])
        return .text(.internalServerError, reason)
    }
}

extension NodeHTTPServer.Limits {
    var wire: HTTPServer.Limits {
        HTTPServer.Limits(
            maxBodyBytes: maxBodyBytes, requestTimeout: .nanoseconds(requestTimeout.nanosecondsValue),
            idleTimeout: .nanoseconds(idleTimeout.nanosecondsValue))
    }
}

/// Why a ``NodeHTTPServer`` could not be set up.
public struct NodeHTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What was wrong, and what was expected.
    public let message: String

    /// An error that says `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
