import NIOCore
import NIOHTTP1
import NIOSSL
import Wire

/// The one answer a server gives to bytes it cannot take as an HTTP request, as nginx gives it: `400 Bad Request`
/// with the reason as a plain-text body and `Connection: close`, then a lingering close. The client learns why
/// instead of seeing the connection drop; the actor keeps serving other connections.
struct BadRequestAnswer {
    /// What was wrong, worded for the person reading the client's output.
    let reason: String

    var body: ByteBuffer { ByteBuffer(string: reason + "\n") }

    var head: HTTPResponseHead {
        HTTPResponseHead(
            version: .http1_1, status: .badRequest,
            headers: [
                "Content-Type": "text/plain; charset=utf-8", "Content-Length": "\(body.readableBytes)", "Connection": "close",
            ])
    }

    /// The whole response as bytes, for a handler that sits in front of the HTTP codec (and of TLS).
    var bytes: ByteBuffer {
        var buffer = ByteBuffer(string: "HTTP/1.1 400 Bad Request\r\n")
        for (name, value) in head.headers { buffer.writeString("\(name): \(value)\r\n") }
        buffer.writeString("\r\n")
        buffer.writeImmutableBuffer(body)
        return buffer
    }

    /// Records the answer in the node's trace (`serve` logs it as a request line with status 400).
    func trace(_ node: Node, peer: String) {
        node.trace("http-bad-request", [("from", peer), ("reason", reason), ("status", "400")])
    }

    /// Stops sending once `written` is out but keeps the connection readable for two seconds (the caller drops what
    /// arrives), as nginx's lingering close does: a client still sending reads the answer instead of a reset.
    ///
    /// The output is closed from `context`, toward the socket only: from the channel's tail the close would also
    /// pass a TLS handler that has no session yet (plain HTTP on a TLS port), which holds it until the timer.
    static func lingeringClose(_ context: ChannelHandlerContext, after written: EventLoopFuture<Void>) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.whenComplete { _ in bound.value.close(mode: .output, promise: nil) }
        let channel = context.channel
        context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
    }
}

extension ChannelPipeline.SynchronousOperations {
    /// NIO's HTTP/1.1 server handlers, with a request the decoder cannot parse answered by ``BadRequestAnswer``
    /// (NIO's own error handler answers an empty 400, and without it the connection just closes).
    ///
    /// - parameter node: whose trace records the refusals.
    public func configureHTTPServerPipeline(answeringBadRequestsOf node: Node) throws {
        try configureHTTPServerPipeline(withErrorHandling: false)
        try addHandler(HTTPParserErrorAnswer(node: node))
    }

    /// TLS for a server port, with plain HTTP sent to it answered `400 The plain HTTP request was sent to HTTPS
    /// port`, as nginx does, instead of a TLS failure the client cannot read.
    ///
    /// - parameters:
    ///   - tls: the server's TLS handler.
    ///   - node: whose trace records the refusals.
    public func addTLSServerHandler(_ tls: NIOSSLServerHandler, node: Node) throws {
        try addHandler(PlainHTTPOnTLSPortAnswer(node: node))
        try addHandler(tls)
    }
}

/// Sits right after NIO's HTTP decoder in place of NIO's `HTTPServerProtocolErrorHandler` and answers its parse
/// errors with the reason. It keeps the error to itself: the answer is this connection's last word, and an
/// actor's own error handling would close the connection before the client read it.
final class HTTPParserErrorAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let node: Node
    /// A response already begun cannot be followed by another one.
    private var responseInProgress = false
    /// The actor has announced `Connection: close`: a client that sends on after it (the rest of an upload it
    /// abandoned, say) gets no second answer, and the error goes to the actor as before.
    private var closeAnnounced = false
    private var answered = false

    init(node: Node) { self.node = node }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // During a lingering close the decoder reports every further read as an error: nothing more to say.
        if answered { return }
        guard let parserError = error as? HTTPParserError, !responseInProgress, !closeAnnounced else {
            context.fireErrorCaught(error)
            return
        }
        answered = true
        let answer = BadRequestAnswer(reason: "The request is not HTTP/1.1: \(parserError.debugDescription)")
        answer.trace(node, peer: context.channel.peerText)
        context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil)
        BadRequestAnswer.lingeringClose(context, after: context.writeAndFlush(wrapOutboundOut(.end(nil))))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200:  // 1xx (100-continue) comes before the response
            responseInProgress = true
            if head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) { closeAnnounced = true }
        case .end: responseInProgress = false
        case .head, .body: break
        }
        context.write(data, promise: promise)
    }
}

/// Sits in front of TLS and looks at the first bytes once: a TLS handshake passes on (and the handler removes
/// itself); anything else is plain text sent to a TLS port, answered as nginx does. nginx tells them apart the
/// same way: a handshake record starts with 0x16, an SSLv2-style hello has the top bit set.
final class PlainHTTPOnTLSPortAnswer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let node: Node
    private var answered = false

    init(node: Node) { self.node = node }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Once answered, whatever else arrives during the lingering close is dropped.
        guard !answered else { return }
        let bytes = unwrapInboundIn(data)
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return }
        if first == 0x16 || first & 0x80 != 0 {
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        answered = true
        let answer = BadRequestAnswer(reason: "The plain HTTP request was sent to HTTPS port")
        answer.trace(node, peer: context.channel.peerText)
        BadRequestAnswer.lingeringClose(context, after: context.writeAndFlush(wrapOutboundOut(answer.bytes)))
    }
}
