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

    private func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let tls else {
            return try await HTTPClient.send(request, host: origin.host, port: origin.port, on: node, timeout: timeout, maxBodyBytes: maxBodyBytes)
        }
        let serverName = origin.hostIsIPAddress ? nil : origin.host
        return try await HTTPClient.send(
            request, host: origin.host, port: origin.port, on: node, timeout: timeout, maxBodyBytes: maxBodyBytes
        ) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
            }
        }
    }
}
