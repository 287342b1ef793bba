import Foundation
import NIOCore
import NIOHTTP1
import Wire

/// A request as an HTTP actor sees it: the head and the whole body (bounded by the server's limits).
public struct HTTPServerRequest: Sendable {
    public let method: HTTPMethod
    /// The request target as sent, e.g. `/odata/applications/v1/app/Connections?x=1`.
    public let target: String
    /// The path part of the target, percent-decoding left to the actor (ids in paths may be quoted).
    public let path: String
    /// Query items in order, percent-decoded.
    public let query: [(name: String, value: String)]
    public let headers: HTTPHeaders
    /// The whole body; empty when the body streams (``bodyParts``).
    public let body: ByteBuffer
    /// The body as it arrives, on a server that streams request bodies (``HTTPServer/start(on:port:limits:setup:handlerLoop:streamsRequestBodies:handler:)``):
    /// the handler runs once the head arrived, and the connection is read only as it takes the parts.
    public let bodyParts: HTTPBodyParts?

    public init(method: HTTPMethod, target: String, headers: HTTPHeaders, body: ByteBuffer, bodyParts: HTTPBodyParts? = nil) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.bodyParts = bodyParts
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(parts[0])
        query =
            parts.count < 2
            ? []
            : parts[1].split(separator: "&").map { pair in
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let decode = { (text: String) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text }
                return (decode(kv[0]), kv.count > 1 ? decode(kv[1]) : "")
            }
    }

    /// The body as text (invalid UTF-8 is replaced, never trusted).
    public var text: String { String(buffer: body) }

    /// The first value of a query item.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The `Authorization: Basic` credentials, or why they are unusable.
    public var basicCredentials: BasicCredentials.Parsed { BasicCredentials.parse(headers.first(name: "Authorization")) }
}

/// User and password from an `Authorization: Basic` header (RFC 7617).
public struct BasicCredentials: Sendable, Equatable {
    public let user: String
    public let password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// What a server found in the Authorization header.
    public enum Parsed: Sendable, Equatable {
        case missing
        /// Present but unusable; the text says what was wrong.
        case malformed(String)
        case valid(BasicCredentials)
    }

    /// The header value a client sends.
    public var headerValue: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }

    public static func parse(_ header: String?) -> Parsed {
        guard let header, !header.isEmpty else { return .missing }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic" else {
            return .malformed("expected 'Authorization: Basic <base64 of user:password>', found scheme '\(parts[0])'")
        }
        guard let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)) else {
            return .malformed("the Basic credentials are not valid base64")
        }
        guard let decoded = String(validatingUTF8Bytes: data) else {
            return .malformed("the Basic credentials are not valid UTF-8")
        }
        guard let colon = decoded.firstIndex(of: ":") else {
            return .malformed("the Basic credentials have no ':' between user and password")
        }
        return .valid(BasicCredentials(user: String(decoded[..<colon]), password: String(decoded[decoded.index(after: colon)...])))
    }
}

extension String {
    fileprivate init?(validatingUTF8Bytes data: Data) {
        var iterator = data.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput:
                self = String(scalars)
                return
            case .error: return nil
            }
        }
    }
}

extension HTTPResponse {
    /// A plain-text answer; a trailing newline is added so terminals show it well.
    public static func text(_ status: HTTPResponseStatus, _ text: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: ByteBuffer(string: text.hasSuffix("\n") ? text : text + "\n"))
    }
}

/// A small HTTP/1.1 server for actors whose requests fit in memory (JSON, JWTs, forms): keep-alive,
/// pipelining, `Expect: 100-continue`, chunked or sized bodies, and explicit limits with clear answers
/// (413 too large, 408 too slow, 400 malformed). Runs on either wiring. Live, connections (framing, TLS,
/// bodies) spread over every loop; the handler runs on the node's own loop (see ``Wire/Node/task(on:_:)``), so
/// the actor's state keeps one owner, or, for an actor whose state is all thread-safe, on the loop that holds
/// the connection (``HandlerLoop``). Under simulation there is one loop, so both are deterministic.
public final class HTTPServer: Sendable {
    /// The events an actor's HTTP server records, with the bad-request answer every server of this library (and MiG's
    /// own handler) gives to a request it cannot parse.
    public static let traceEvents: [TraceEventDeclaration] = [
        .event("http-request", fields: "bytes", "from", "method", "path"),
        .event("http-response", fields: "from", "status", "streamed"),
        .event("http-rejected", fields: "from", "reason", "status"),
        .event("http-error", fields: "error"),
        .event("http-bad-request", fields: "from", "reason", values: ["status": ["400"]]),
    ]

    public struct Limits: Sendable {
        /// Largest request body accepted.
        public var maxBodyBytes: Int
        /// How long a request may take from its head to its last byte (slow uploads are cut off with 408).
        public var requestTimeout: TimeAmount
        /// How long an idle keep-alive connection stays open.
        public var idleTimeout: TimeAmount

        public init(maxBodyBytes: Int = 1 << 20, requestTimeout: TimeAmount = .seconds(30), idleTimeout: TimeAmount = .seconds(60)) {
            self.maxBodyBytes = maxBodyBytes
            self.requestTimeout = requestTimeout
            self.idleTimeout = idleTimeout
        }
    }

    public typealias Handler = @Sendable (HTTPServerRequest) async -> HTTPResponse

    /// Where the handler runs, live.
    public enum HandlerLoop: Sendable {
        /// The node's own loop: the handler may use state only that loop touches.
        case home
        /// The loop that holds the request's connection: for handlers whose state is behind locks or in a
        /// database. A request then crosses no loop on its way in or out: under load, every crossing waits for
        /// the other loop's turn.
        case connection
    }

    public let node: Node
    public let listener: any Listener

    private init(node: Node, listener: any Listener) {
        self.node = node
        self.listener = listener
    }

    /// Starts serving `handler` on `port` of `node`.
    ///
    /// - parameters:
    ///   - setup: handlers to put in front of HTTP on each connection (TLS, for example).
    ///   - handlerLoop: where `handler` runs (the node's own loop unless its state is thread-safe).
    ///   - streamsRequestBodies: run the handler once a request's head arrived, its body to read as it comes
    ///     (``HTTPServerRequest/bodyParts``), the request's time limit then counting from each part; a body over
    ///     ``Limits/maxBodyBytes`` still ends in `413`, and the handler's reading fails.
    public static func start(
        on node: Node, port: Int, limits: Limits = Limits(),
        setup: @escaping @Sendable (any Channel) -> EventLoopFuture<Void> = { $0.eventLoop.makeSucceededVoidFuture() },
        handlerLoop: HandlerLoop = .home, streamsRequestBodies: Bool = false, handler: @escaping Handler
    ) -> EventLoopFuture<HTTPServer> {
        node.listen(port: port, connections: .every) { channel in
            setup(channel).flatMapThrowing {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(answeringBadRequestsOf: node)
                try channel.pipeline.syncOperations.addHandler(
                    RequestHandler(
                        node: node, limits: limits, handlerLoop: handlerLoop, streamsRequestBodies: streamsRequestBodies, handler: handler))
            }
        }.map { HTTPServer(node: node, listener: $0) }
    }

    /// `http://host:port`.
    public var baseURL: String { "http://\(listener.host):\(listener.port)" }

    /// Stops accepting connections.
    public func stop() -> EventLoopFuture<Void> { listener.close() }
}

/// Collects one request at a time, enforces the limits, and writes the handler's answer.
private final class RequestHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = Never
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        case receiving(HTTPRequestHead, ByteBuffer)
        /// The handler runs while the body arrives: its parts go to the queue the handler reads.
        case streaming(HTTPRequestHead, BodyPartQueue, received: Int)
        /// The request was answered early (too large); the rest of its body is ignored.
        case discarding
        case handling
    }

    let node: Node
    let limits: HTTPServer.Limits
    let handlerLoop: HTTPServer.HandlerLoop
    let streamsRequestBodies: Bool
    let handler: HTTPServer.Handler
    private var state = State.idle
    private var requestTimer: Scheduled<Void>?
    private var idleTimer: Scheduled<Void>?

    init(
        node: Node, limits: HTTPServer.Limits, handlerLoop: HTTPServer.HandlerLoop, streamsRequestBodies: Bool,
        handler: @escaping HTTPServer.Handler
    ) {
        self.node = node
        self.limits = limits
        self.handlerLoop = handlerLoop
        self.streamsRequestBodies = streamsRequestBodies
        self.handler = handler
    }

    func handlerAdded(context: ChannelHandlerContext) { armIdleTimer(context: context) }

    func handlerRemoved(context: ChannelHandlerContext) {
        requestTimer?.cancel()
        idleTimer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (.head(let head), .idle):
            idleTimer?.cancel()
            armRequestTimer(context: context)
            if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > limits.maxBodyBytes {
                reject(
                    context: context, .payloadTooLarge,
                    "the request body of \(length) bytes exceeds the limit of \(limits.maxBodyBytes) bytes")
                return
            }
            if head.headers.first(name: "Expect")?.lowercased() == "100-continue" {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            }
            guard streamsRequestBodies else {
                state = .receiving(head, context.channel.allocator.buffer(capacity: 0))
                return
            }
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let queue = BodyPartQueue(eventLoop: context.eventLoop, read: { bound.value.read() })
            state = .streaming(head, queue, received: 0)
            dispatch(
                context: context, head: head, body: context.channel.allocator.buffer(capacity: 0),
                parts: HTTPBodyParts(stream: StreamedBody(queue: NIOLoopBound(queue, eventLoop: context.eventLoop), closingWhenDropped: nil)))
        case (.body(let chunk), .streaming(let head, let queue, let received)):
            guard received + chunk.readableBytes <= limits.maxBodyBytes else {
                let reason = "the request body exceeds the limit of \(limits.maxBodyBytes) bytes"
                queue.finish(.failure(HTTPClientError(reason)))
                reject(context: context, .payloadTooLarge, reason)
                return
            }
            armRequestTimer(context: context)  // each part may take the request's time: an upload takes as long as it keeps coming
            state = .streaming(head, queue, received: received + chunk.readableBytes)
            queue.receive(chunk)
        case (.end, .streaming(_, let queue, _)):
            requestTimer?.cancel()
            state = .handling
            queue.finish(.success(()))
        case (.body(var chunk), .receiving(let head, var body)):
            guard body.readableBytes + chunk.readableBytes <= limits.maxBodyBytes else {
                reject(
                    context: context, .payloadTooLarge,
                    "the request body exceeds the limit of \(limits.maxBodyBytes) bytes")
                return
            }
            state = .handling  // drop the reference so the append does not copy
            body.writeBuffer(&chunk)
            state = .receiving(head, body)
        case (.end, .receiving(let head, let body)):
            requestTimer?.cancel()
            state = .handling
            dispatch(context: context, head: head, body: body)
        case (_, .discarding), (.body, _), (.end, _):
            break
        case (.head, _):
            // The pipelining handler in front holds further requests until this one is answered.
            break
        }
    }

    func read(context: ChannelHandlerContext) {
        if case .streaming(_, let queue, _) = state, queue.holdsRead() { return }
        context.read()
    }

    private func armRequestTimer(context: ChannelHandlerContext) {
        requestTimer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        requestTimer = context.eventLoop.scheduleTask(in: limits.requestTimeout) {
            let (handler, context) = loopBound.value
            let reason = "the request did not arrive completely within \(handler.limits.requestTimeout.workbenchText)"
            if case .streaming(_, let queue, _) = handler.state { queue.finish(.failure(HTTPClientError(reason, kind: .timedOut))) }
            handler.reject(context: context, .requestTimeout, reason)
        }
    }

    private func dispatch(context: ChannelHandlerContext, head: HTTPRequestHead, body: ByteBuffer, parts: HTTPBodyParts? = nil) {
        let request = HTTPServerRequest(method: head.method, target: head.uri, headers: head.headers, body: body, bodyParts: parts)
        node.trace(
            "http-request",
            [
                ("bytes", parts == nil ? "\(body.readableBytes)" : "streamed"), ("from", context.channel.peerText),
                ("method", "\(head.method)"), ("path", request.path),
            ])
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let handler = self.handler
        let loop = handlerLoop == .connection ? context.eventLoop : node.eventLoop
        node.task(on: loop) { await handler(request) }.hop(to: context.eventLoop).whenComplete { result in
            let (this, context) = loopBound.value
            let response = (try? result.get()) ?? .text(.internalServerError, "the handler failed")
            this.write(context: context, response, version: head.version, keepAlive: head.isKeepAlive)
        }
    }

    private func write(context: ChannelHandlerContext, _ response: HTTPResponse, version: HTTPVersion, keepAlive: Bool) {
        guard context.channel.isActive else { return }
        // A request whose body streamed may have been answered already (413, 408) while its handler ran.
        if case .discarding = state { return }
        // Answered before the body it streams ended (the handler did not need the rest): the rest is not read, and the
        // connection closes after the answer, as a server that answers an upload early does.
        var keepAlive = keepAlive
        if case .streaming(_, let queue, _) = state {
            requestTimer?.cancel()
            queue.finish(.failure(HTTPClientError("the handler answered before the body ended")))
            keepAlive = false
        }
        if let producer = response.producer {
            stream(context: context, response, producer: producer, version: version, keepAlive: keepAlive)
            return
        }
        var headers = response.headers
        headers.replaceOrAdd(name: "Content-Length", value: "\(response.body.readableBytes)")
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        node.trace("http-response", [("from", context.channel.peerText), ("status", "\(response.status.code)")])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: response.status, headers: headers))), promise: nil)
        if response.body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil)
        }
        finish(context: context, keepAlive: keepAlive)
    }

    /// Writes the head at once and the body as `producer` writes it: chunked to an HTTP/1.1 client, to the connection's
    /// close for an HTTP/1.0 one (which knows no chunks). The next request on the connection waits until the body
    /// ended; a producer that throws closes the connection, so the client sees an incomplete body, never a short one.
    private func stream(
        context: ChannelHandlerContext, _ response: HTTPResponse, producer: @escaping HTTPBodyProducer, version: HTTPVersion, keepAlive: Bool
    ) {
        let chunked = version.minor >= 1
        let keepAlive = keepAlive && chunked
        var headers = response.headers
        headers.remove(name: "Content-Length")
        if chunked { headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked") }
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        node.trace("http-response", [("from", context.channel.peerText), ("status", "\(response.status.code)"), ("streamed", "true")])
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: response.status, headers: headers))), promise: nil)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        let writer = HTTPBodyWriter { part in
            try await loop.flatSubmit {
                let (this, context) = loopBound.value
                return context.writeAndFlush(this.wrapOutboundOut(.body(.byteBuffer(part))))
            }.get()
        }
        node.task(on: loop) { try await producer(writer) }.whenComplete { result in
            let (this, context) = loopBound.value
            switch result {
            case .success:
                this.finish(context: context, keepAlive: keepAlive)
            case .failure(let error):
                this.node.trace("http-error", [("error", "the streamed body failed: \(error)")])
                this.state = .discarding
                context.close(promise: nil)
            }
        }
    }

    /// Ends the response, then waits for the next request or closes.
    private func finish(context: ChannelHandlerContext, keepAlive: Bool) {
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if keepAlive {
            state = .idle
            armIdleTimer(context: context)
        } else {
            state = .discarding
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// Answers before the request is complete, then closes: the client learns why instead of waiting.
    private func reject(context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ reason: String) {
        requestTimer?.cancel()
        node.trace("http-rejected", [("from", context.channel.peerText), ("reason", reason), ("status", "\(status.code)")])
        state = .discarding
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Connection", value: "close")
        let body = ByteBuffer(string: reason + "\n")
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        // Lingering close, as nginx does: stop sending but keep reading (and discarding) for a moment, so a
        // client still uploading reads the answer instead of a connection reset.
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(mode: .output, promise: nil) }
        idleTimer?.cancel()
        idleTimer = context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
    }

    private func armIdleTimer(context: ChannelHandlerContext) {
        idleTimer?.cancel()
        let channel = context.channel
        idleTimer = context.eventLoop.scheduleTask(in: limits.idleTimeout) { channel.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        node.trace("http-error", [("error", "\(error)")])
        context.close(promise: nil)
    }
}

extension TimeAmount {
    /// `30s`, `250ms` — as the scenario language writes durations.
    var workbenchText: String { Duration.nanoseconds(nanoseconds).workbenchText }
}
