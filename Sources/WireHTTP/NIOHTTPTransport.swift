import NIOCore
import NIOSSL
import Wire

/// ``HTTPTransport`` over ``HTTPClient``: one connection per request on the node's network, TLS by NIOSSL. Runs on
/// both wirings; the simulated wire carries only this stack.
public struct NIOHTTPTransport: HTTPTransport {
    public let origin: HTTPOrigin
    public let node: Node
    /// How long each exchange may take, on the node's clock.
    public let timeout: TimeAmount
    /// The largest response body taken; a larger one fails the exchange.
    public let maxBodyBytes: Int
    private let tls: NIOSSLContext?

    /// - parameters:
    ///   - tls: the client context for an `https://` origin (its trust roots decide whom to trust); nil for `http://`.
    ///     The server name (SNI and the certificate's name check) is the origin's host unless that is an address.
    ///   - maxBodyBytes: the largest response body taken (``HTTPClient/send(_:host:port:on:timeout:maxBodyBytes:setup:)``).
    public init(node: Node, origin: HTTPOrigin, tls: NIOSSLContext?, timeout: TimeAmount = .seconds(30), maxBodyBytes: Int = .max) {
        self.node = node
        self.origin = origin
        self.tls = tls
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }

    public func send(_ request: HTTPRequest, answering challenge: BasicChallengeAnswer?) async throws -> HTTPResponse {
        var request = request
        let response = try await exchange(request)
        guard response.isBasicChallenge, let challenge, let credentials = challenge() else { return response }
        request.headers.replaceOrAdd(name: "Authorization", value: credentials.headerValue)
        return try await exchange(request)
    }

    /// Sends `request` and returns once the answer's head arrived, its body to be read part by part
    /// (``HTTPClient/open(_:host:port:on:timeout:setup:)``; ``timeout`` bounds the head and each wait for a part).
    public func open(_ request: HTTPRequest) async throws -> HTTPStreamedResponse {
        try await HTTPClient.open(request, host: origin.host, port: origin.port, on: node, timeout: timeout, setup: setup)
    }

    private func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await HTTPClient.send(
            request, host: origin.host, port: origin.port, on: node, timeout: timeout, maxBodyBytes: maxBodyBytes, setup: setup)
    }

    /// TLS in front of HTTP for an `https` origin; nothing for `http`.
    private var setup: @Sendable (any Channel) -> EventLoopFuture<Void> {
        guard let tls else { return { $0.eventLoop.makeSucceededVoidFuture() } }
        let serverName = origin.hostIsIPAddress ? nil : origin.host
        return { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
            }
        }
    }
}
