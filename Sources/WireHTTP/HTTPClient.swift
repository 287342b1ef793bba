import NIOCore
import NIOHTTP1
import Wire

/// An HTTP/1.1 request as a client sends it.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// Origin-form target: path and query, e.g. `/ipp/print`.
    public var target: String
    public var headers: HTTPHeaders
    public var body: ByteBuffer?
    /// Send the body with `Transfer-Encoding: chunked` instead of `Content-Length`.
    public var chunked: Bool
    /// A streamed body: when set, the body is what this writes, sent chunked part by part as it is written (``body``
    /// is not sent); what it throws ends the exchange with that error.
    public var producer: HTTPBodyProducer?

    public init(
        method: HTTPMethod = .GET, target: String = "/", headers: HTTPHeaders = [:],
        body: ByteBuffer? = nil, chunked: Bool = false
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.chunked = chunked
    }
}

/// A complete HTTP/1.1 response, or (a server's, with ``producer``) one whose body is written as it is produced.
public struct HTTPResponse: Sendable {
    public var status: HTTPResponseStatus
    public var headers: HTTPHeaders
    public var body: ByteBuffer
    /// A server's streamed body: when set, ``HTTPServer`` writes the head at once and the body chunked as this produces
    /// it (``body`` is not sent).
    public var producer: HTTPBodyProducer?

    public init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A server's answer whose body `producer` writes part by part, sent chunked as it comes.
    public static func streamed(_ status: HTTPResponseStatus, headers: HTTPHeaders = [:], producer: @escaping HTTPBodyProducer) -> HTTPResponse {
        var response = HTTPResponse(status: status, headers: headers)
        response.producer = producer
        return response
    }

    /// The body as UTF-8 text.
    public var text: String { String(buffer: body) }
}

/// Why an HTTP exchange failed before a complete response arrived.
public struct HTTPClientError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure, for a caller that answers some differently (URLSession's error codes).
    public enum Kind: Sendable {
        /// The response's body was larger than the client takes.
        case responseTooLarge
        /// No answer, or no more of a streamed body, within the timeout.
        case timedOut
        /// Anything else: the message says what.
        case other
    }

    public let kind: Kind
    public let message: String
    public init(_ message: String, kind: Kind = .other) {
        self.kind = kind
        self.message = message
    }
    public var description: String { message }
}

/// A minimal HTTP/1.1 client over a ``Node``'s network: one request per connection, which is what the
/// scenario language's `http` directive and simple app clients need. Works on both wirings.
public enum HTTPClient {
    /// Sends `request` to `host:port` and waits for the whole response.
    ///
    /// - parameters:
    ///   - setup: extra handlers to put in front of HTTP (TLS, for example), added first.
    ///   - timeout: how long the whole exchange may take on the node's clock.
    ///   - maxBodyBytes: the largest response body taken; a larger one fails the exchange (a recording proxy's bound on
    ///     what it holds).
    /// - throws: ``WireError`` for connection failures, ``HTTPClientError`` for a closed or timed-out exchange.
    public static func send(
        _ request: HTTPRequest, host: String, port: Int, on node: Node, timeout: TimeAmount = .seconds(30), maxBodyBytes: Int = .max,
        setup: @escaping @Sendable (any Channel) -> EventLoopFuture<Void> = { $0.eventLoop.makeSucceededVoidFuture() }
    ) async throws -> HTTPResponse {
        let promise = node.eventLoop.makePromise(of: HTTPResponse.self)
        return try await exchange(
            request, host: host, port: port, on: node, timeout: timeout, setup: setup, answer: promise,
            reader: { ResponseCollector(promise: promise, maxBodyBytes: maxBodyBytes) },
            timedOut: "no complete response within \(timeout)"
        ).answer
    }

    /// Sends `request` to `host:port` and returns as soon as the head of the answer arrived: its body is read part by
    /// part as the caller iterates it, never held whole (a download, a feed of events, a long answer shown as it comes).
    ///
    /// - parameters:
    ///   - setup: extra handlers to put in front of HTTP (TLS, for example), added first.
    ///   - timeout: how long the head may take to arrive, and then each part of the body, on the node's clock (an idle
    ///     timeout, as URLSession's `timeoutInterval`: a body may take as long as it keeps coming).
    /// - throws: ``WireError`` for connection failures, ``HTTPClientError`` for a connection closed or a timeout before
    ///   the head.
    public static func open(
        _ request: HTTPRequest, host: String, port: Int, on node: Node, timeout: TimeAmount = .seconds(30),
        setup: @escaping @Sendable (any Channel) -> EventLoopFuture<Void> = { $0.eventLoop.makeSucceededVoidFuture() }
    ) async throws -> HTTPStreamedResponse {
        let head = node.eventLoop.makePromise(of: (HTTPResponseHead, NIOLoopBound<BodyPartQueue>).self)
        let ((answer, queue), channel) = try await exchange(
            request, host: host, port: port, on: node, timeout: timeout, setup: setup, answer: head,
            reader: { StreamedResponseReader(head: head, timeout: timeout) }, timedOut: "no answer within \(timeout.workbenchText)")
        return HTTPStreamedResponse(
            status: answer.status, headers: answer.headers, body: HTTPBodyParts(stream: StreamedBody(queue: queue, closingWhenDropped: channel)))
    }

    /// Connects, puts `reader` behind HTTP, writes `request`, and waits for `answer`, which the reader keeps; `timedOut`
    /// fails it (and closes the connection) when it is not kept within `timeout`.
    private static func exchange<Answer: Sendable>(
        _ request: HTTPRequest, host: String, port: Int, on node: Node, timeout: TimeAmount,
        setup: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>, answer: EventLoopPromise<Answer>,
        reader: @escaping @Sendable () -> any ChannelHandler, timedOut: String
    ) async throws -> (answer: Answer, channel: any Channel) {
        let finalRequest = framed(request, host: host, port: port)
        let channel: any Channel
        do {
            channel = try await node.connect(host: host, port: port, timeout: timeout) { channel in
                setup(channel).flatMapThrowing {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(reader())
                }
            }.get()
        } catch {
            answer.fail(error)
            throw error
        }
        let timer = channel.eventLoop.scheduleTask(in: timeout) {
            answer.fail(HTTPClientError(timedOut, kind: .timedOut))
            channel.close(promise: nil)
        }
        write(finalRequest, to: channel, on: node) { answer.fail($0) }
        defer { timer.cancel() }
        return (try await answer.futureResult.get(), channel)
    }

    /// `request` with the headers its framing needs: `Host`, and `Content-Length` or `Transfer-Encoding: chunked`.
    private static func framed(_ request: HTTPRequest, host: String, port: Int) -> HTTPRequest {
        var request = request
        if !request.headers.contains(name: "Host") { request.headers.add(name: "Host", value: port == 80 ? host : "\(host):\(port)") }
        if request.chunked || request.producer != nil {
            request.headers.remove(name: "Content-Length")
            request.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        } else if let body = request.body {
            request.headers.replaceOrAdd(name: "Content-Length", value: "\(body.readableBytes)")
        } else if request.method == .POST || request.method == .PUT {
            request.headers.replaceOrAdd(name: "Content-Length", value: "0")
        }
        return request
    }

    /// Writes `request`; a streamed body as its producer writes it, each part once the connection took the one before.
    /// A producer that throws closes the connection, and `failed` gets its error.
    private static func write(_ request: HTTPRequest, to channel: any Channel, on node: Node, failed: @escaping @Sendable (any Error) -> Void) {
        let head = HTTPRequestHead(version: .http1_1, method: request.method, uri: request.target, headers: request.headers)
        guard let producer = request.producer else {
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            if let body = request.body, body.readableBytes > 0 {
                channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil)
            }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            return
        }
        channel.writeAndFlush(HTTPClientRequestPart.head(head), promise: nil)
        let writer = HTTPBodyWriter { part in try await channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(part))).get() }
        node.task(on: channel.eventLoop) { try await producer(writer) }.whenComplete { result in
            switch result {
            case .success:
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            case .failure(let error):
                failed(error)
                channel.close(promise: nil)
            }
        }
    }
}

/// Gathers response parts into one ``HTTPResponse`` and closes the connection.
private final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<HTTPResponse>
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()
    private let maxBodyBytes: Int

    init(promise: EventLoopPromise<HTTPResponse>, maxBodyBytes: Int) {
        self.promise = promise
        self.maxBodyBytes = maxBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            // 1xx answers (100 Continue) are interim; the real answer follows.
            if head.status.code >= 200 { self.head = head }
        case .body(var chunk):
            guard body.readableBytes + chunk.readableBytes <= maxBodyBytes else {
                promise.fail(HTTPClientError("the response body exceeds the limit of \(maxBodyBytes) bytes", kind: .responseTooLarge))
                context.close(promise: nil)
                return
            }
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            promise.succeed(HTTPResponse(status: head.status, headers: head.headers, body: body))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(HTTPClientError("connection closed before a complete response"))
        context.fireChannelInactive()
    }
}
