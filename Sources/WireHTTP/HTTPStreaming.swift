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

/// The reader's end of a streamed body: asks its queue for each part on the queue's event loop.
final class StreamedBody: Sendable {
    private let queue: NIOLoopBound<BodyPartQueue>
    /// Closed when the body is dropped before its end (a client's answer: nothing else would read the connection); nil
    /// for a server's request body, whose connection the server goes on with.
    private let channel: (any Channel)?

    init(queue: NIOLoopBound<BodyPartQueue>, closingWhenDropped channel: (any Channel)?) {
        self.queue = queue
        self.channel = channel
    }

    func next() async throws -> ByteBuffer? {
        let queue = self.queue
        return try await queue.eventLoop.flatSubmit { queue.value.next() }.get()
    }

    deinit { channel?.close(promise: nil) }
}

/// The parts of a body received on one event loop and not taken yet, and the reader waiting for the next: while a
/// part waits, the connection's reads are held (``holdsRead()``), so the sender goes at the reader's pace instead of
/// filling memory.
final class BodyPartQueue {
    private let eventLoop: any EventLoop
    /// Asks the connection for more bytes (its handler context's `read()`).
    private let read: () -> Void
    /// Told when a reader starts waiting for a part (true) and when it stops (false): a timeout's arming.
    private let waiting: (Bool) -> Void
    private var parts = CircularBuffer<ByteBuffer>()
    /// How the body ended: nil while it is still arriving.
    private(set) var ended: Result<Void, any Error>?
    private var waiter: EventLoopPromise<ByteBuffer?>?
    /// A read the connection asked for while a part waited unread: passed on once the reader takes it.
    private var heldRead = false

    init(eventLoop: any EventLoop, read: @escaping () -> Void, waiting: @escaping (Bool) -> Void = { _ in }) {
        self.eventLoop = eventLoop
        self.read = read
        self.waiting = waiting
    }

    /// A part from the connection: to the waiting reader, or kept until it asks.
    func receive(_ part: ByteBuffer) {
        guard ended == nil else { return }
        if let waiter {
            self.waiter = nil
            waiting(false)
            waiter.succeed(part)
        } else {
            parts.append(part)
        }
    }

    /// The body's end: the parts kept are still read before it, unless it failed.
    func finish(_ result: Result<Void, any Error>) {
        guard ended == nil else { return }
        ended = result
        if case .failure = result { parts.removeAll() }
        releaseRead()
        guard let waiter else { return }
        self.waiter = nil
        waiting(false)
        switch result {
        case .success: waiter.succeed(nil)
        case .failure(let error): waiter.fail(error)
        }
    }

    /// Whether the connection's read must wait because a part is not taken yet; it is passed on when it is.
    func holdsRead() -> Bool {
        guard !parts.isEmpty else { return false }
        heldRead = true
        return true
    }

    /// The next part: one kept, the end, or a promise kept when one arrives.
    func next() -> EventLoopFuture<ByteBuffer?> {
        if let part = parts.popFirst() {
            if parts.isEmpty { releaseRead() }
            return eventLoop.makeSucceededFuture(part)
        }
        switch ended {
        case .success: return eventLoop.makeSucceededFuture(nil)
        case .failure(let error): return eventLoop.makeFailedFuture(error)
        case nil: break
        }
        let promise = eventLoop.makePromise(of: ByteBuffer?.self)
        waiter = promise
        waiting(true)
        releaseRead()
        return promise.futureResult
    }

    private func releaseRead() {
        guard heldRead else { return }
        heldRead = false
        read()
    }
}

/// Reads one response: its head at once, then each body part only when asked, with ``timeout`` for each wait.
final class StreamedResponseReader: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    private let head: EventLoopPromise<(HTTPResponseHead, NIOLoopBound<BodyPartQueue>)>
    private let timeout: TimeAmount
    private var queue: BodyPartQueue?
    private var waitTimer: Scheduled<Void>?

    init(head: EventLoopPromise<(HTTPResponseHead, NIOLoopBound<BodyPartQueue>)>, timeout: TimeAmount) {
        self.head = head
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let timeout = self.timeout
        // Each wait for a part has `timeout`: a body may take as long as it keeps coming.
        let waiting = { (waits: Bool) in
            let (reader, context) = bound.value
            reader.waitTimer?.cancel()
            guard waits else { return }
            reader.waitTimer = context.eventLoop.scheduleTask(in: timeout) {
                let (reader, context) = bound.value
                reader.end(.failure(HTTPClientError("no more of the response body within \(timeout.workbenchText)", kind: .timedOut)))
                context.close(promise: nil)
            }
        }
        queue = BodyPartQueue(eventLoop: context.eventLoop, read: { bound.value.1.read() }, waiting: waiting)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let queue else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            // 1xx answers (100 Continue) are interim; the real answer follows.
            if head.status.code >= 200 { self.head.succeed((head, NIOLoopBound(queue, eventLoop: context.eventLoop))) }
        case .body(let part):
            queue.receive(part)
        case .end:
            end(.success(()))
            context.close(promise: nil)
        }
    }

    func read(context: ChannelHandlerContext) {
        if queue?.holdsRead() != true { context.read() }
    }

    private func end(_ result: Result<Void, any Error>) {
        if case .failure(let error) = result { head.fail(error) }
        queue?.finish(result)
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
