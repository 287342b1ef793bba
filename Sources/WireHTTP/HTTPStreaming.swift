import NIOCore
import NIOHTTP1
import Wire

// Bodies that are not held whole: a server's answer written as its handler produces it (chunked), and a client's
// answer read as it arrives, each part only when the reader asks for it (the connection is not read further while a
// part waits, so a slow reader slows the sender instead of filling memory).

/// Produces a streamed response body: writes its parts in order, then returns; what it throws ends the response early
/// (the connection is closed, so the client sees an incomplete body rather than a short one).
public typealias HTTPBodyProducer = @Sendable (HTTPBodyWriter) async throws -> Void

/// Writes the parts of a streamed response body to its connection.
public struct HTTPBodyWriter: Sendable {
    let send: @Sendable (ByteBuffer) async throws -> Void

    /// Writes `part` and waits until the connection took it (the client's pace, not the producer's). Empty parts are
    /// not written: an empty chunk would end a chunked body.
    /// - throws: the connection's error when the client went away.
    public func write(_ part: ByteBuffer) async throws {
        guard part.readableBytes > 0 else { return }
        try await send(part)
    }
}

/// A response whose body arrives in parts (``HTTPClient/open(_:host:port:on:timeout:setup:)``).
public struct HTTPStreamedResponse: Sendable {
    /// The final status (after any 1xx).
    public let status: HTTPResponseStatus
    /// The response's headers.
    public let headers: HTTPHeaders
    /// The body's parts, in order, as they arrive.
    public let body: HTTPBodyParts
}

/// The parts of a streamed response body, as they arrive: iterate once. The connection closes after the last part,
/// on an error, or when the sequence is dropped before its end.
public struct HTTPBodyParts: AsyncSequence, Sendable {
    /// One part of the body, as the network delivered it.
    public typealias Element = ByteBuffer

    let stream: StreamedBody

    /// Iterates the parts.
    public func makeAsyncIterator() -> Iterator { Iterator(stream: stream) }

    /// Waits for each next part.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: StreamedBody

        /// The next part, or nil after the last.
        /// - throws: ``HTTPClientError`` when no part came within the timeout or the connection ended before the body
        ///   did; the connection's error otherwise.
        public mutating func next() async throws -> ByteBuffer? { try await stream.next() }
    }
}

/// The reader's end of a streamed body: asks the connection's handler for each part on its event loop.
final class StreamedBody: Sendable {
    private let reader: NIOLoopBound<StreamedResponseReader>
    private let channel: any Channel

    init(reader: NIOLoopBound<StreamedResponseReader>, channel: any Channel) {
        self.reader = reader
        self.channel = channel
    }

    func next() async throws -> ByteBuffer? {
        let reader = self.reader
        return try await channel.eventLoop.flatSubmit { reader.value.next() }.get()
    }

    /// A body dropped before its end must not hold its connection open.
    deinit { channel.close(promise: nil) }
}

/// Reads one response: its head at once, then each body part only when asked (``next()``), holding the channel's
/// reads while a part waits unread.
final class StreamedResponseReader: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    private let head: EventLoopPromise<(HTTPResponseHead, NIOLoopBound<StreamedResponseReader>)>
    private let timeout: TimeAmount
    private var context: ChannelHandlerContext?
    private var parts = CircularBuffer<ByteBuffer>()
    /// How the body ended: nil while it is still arriving.
    private var ended: Result<Void, any Error>?
    private var waiter: EventLoopPromise<ByteBuffer?>?
    private var waitTimer: Scheduled<Void>?
    /// A read the channel asked for while a part waited unread: passed on once the reader takes it.
    private var heldRead = false

    init(head: EventLoopPromise<(HTTPResponseHead, NIOLoopBound<StreamedResponseReader>)>, timeout: TimeAmount) {
        self.head = head
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            // 1xx answers (100 Continue) are interim; the real answer follows.
            if head.status.code >= 200 { self.head.succeed((head, NIOLoopBound(self, eventLoop: context.eventLoop))) }
        case .body(let part):
            if let waiter {
                self.waiter = nil
                waitTimer?.cancel()
                waiter.succeed(part)
            } else {
                parts.append(part)
            }
        case .end:
            end(.success(()))
            context.close(promise: nil)
        }
    }

    func read(context: ChannelHandlerContext) {
        if parts.isEmpty { context.read() } else { heldRead = true }
    }

    /// The next part: one waiting, the end, or a promise kept when one arrives (or the timeout passes).
    func next() -> EventLoopFuture<ByteBuffer?> {
        guard let context else { preconditionFailure("next() before the reader was added to a channel") }
        if let part = parts.popFirst() {
            if parts.isEmpty { releaseRead(context) }
            return context.eventLoop.makeSucceededFuture(part)
        }
        switch ended {
        case .success: return context.eventLoop.makeSucceededFuture(nil)
        case .failure(let error): return context.eventLoop.makeFailedFuture(error)
        case nil: break
        }
        let promise = context.eventLoop.makePromise(of: ByteBuffer?.self)
        waiter = promise
        let timeout = self.timeout
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        waitTimer = context.eventLoop.scheduleTask(in: timeout) {
            let (reader, context) = bound.value
            reader.end(.failure(HTTPClientError("no more of the response body within \(timeout.workbenchText)", kind: .timedOut)))
            context.close(promise: nil)
        }
        releaseRead(context)
        return promise.futureResult
    }

    private func releaseRead(_ context: ChannelHandlerContext) {
        guard heldRead else { return }
        heldRead = false
        context.read()
    }

    private func end(_ result: Result<Void, any Error>) {
        guard ended == nil else { return }
        ended = result
        waitTimer?.cancel()
        if case .failure(let error) = result { head.fail(error) }
        guard let waiter else { return }
        self.waiter = nil
        switch result {
        case .success: waiter.succeed(nil)
        case .failure(let error): waiter.fail(error)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        end(.failure(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        end(.failure(HTTPClientError("connection closed before the whole response")))
        context.fireChannelInactive()
    }
}
