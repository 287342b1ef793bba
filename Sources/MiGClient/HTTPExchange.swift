import NIOCore
import NIOHTTP1
import NIOTLS

/// Called as document bytes go out: bytes sent so far and the total (when known). Runs on the node's loop.
public typealias PrintProgress = @Sendable (_ sent: Int64, _ total: Int64?) -> Void

/// One HTTP request with an IPP message and an optional streamed document after it.
struct OutgoingRequest: Sendable {
    var head: HTTPRequestHead
    /// The encoded IPP message (the body starts with it).
    var prefix: ByteBuffer
    var document: Document?
    /// The exact number of document bytes that go out, when known (checked against what the reader yields).
    var documentSize: Int64?
    var compression: DocumentCompression
    var expectContinue: Bool
    var progress: PrintProgress?
    var maxResponseBytes: Int
    /// The IPP operation, when known: a lost answer to one that changes the spool is not retried.
    var operation: String? = nil
}

/// The server's final answer.
struct IncomingResponse: Sendable {
    let head: HTTPResponseHead
    let body: ByteBuffer
    /// Document bytes the transport took before the answer.
    let documentBytesSent: Int64
}

/// Drives one request on a fresh connection: head, optional wait for `100 Continue`, then the body chunk by
/// chunk as the channel becomes writable (so a 1 GB file never sits in memory), and collects the answer.
///
/// A final answer that arrives while the body is still going out (401 before the upload ends) stops the
/// upload and is the result, even if the server then resets the connection: the app learns the real reason.
final class ExchangeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    /// Document bytes per write: one read of the file and one frame of the chunked encoding.
    static let chunkSize = 65_536

    private enum Phase { case connecting, awaitingContinue, sendingBody, bodySent, finished }

    private let request: OutgoingRequest
    private let timeouts: MiGClient.Timeouts
    private let waitsForTLSHandshake: Bool
    private let promise: EventLoopPromise<IncomingResponse>
    private var phase = Phase.connecting
    private var reader: DocumentReader?
    private var responseHead: HTTPResponseHead?
    private var responseBody = ByteBuffer()
    private var documentBytesQueued: Int64 = 0
    private var documentBytesSent: Int64 = 0
    /// The connection took the request's last byte.
    private var requestWritten = false
    private var continueTimer: Scheduled<Void>?
    private var idleTimer: Scheduled<Void>?
    private var totalTimer: Scheduled<Void>?

    init(
        request: OutgoingRequest, timeouts: MiGClient.Timeouts, waitsForTLSHandshake: Bool,
        promise: EventLoopPromise<IncomingResponse>
    ) {
        self.request = request
        self.timeouts = timeouts
        self.waitsForTLSHandshake = waitsForTLSHandshake
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added as the connection is made, so the limit counts from connecting.
        guard let total = timeouts.total else { return }
        totalTimer = context.eventLoop.assumeIsolated().scheduleTask(in: total) { [self] in
            fail(context: context, MiGError.timedOut("no complete answer within \(total.nanoseconds / 1_000_000) ms"))
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        armIdleTimer(context: context)
        // Over TLS the request waits for the handshake: NIOSSL would otherwise buffer the whole body itself.
        if !waitsForTLSHandshake { sendHead(context: context) }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if waitsForTLSHandshake, phase == .connecting, let tls = event as? TLSUserEvent, case .handshakeCompleted = tls {
            armIdleTimer(context: context)
            sendHead(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if phase == .sendingBody { pump(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard phase != .finished else { return }
        armIdleTimer(context: context)
        switch unwrapInboundIn(data) {
        case .head(let head) where head.status.code < 200:
            if head.status == .continue, phase == .awaitingContinue { beginBody(context: context) }
        case .head(let head):
            responseHead = head
            if phase == .awaitingContinue || phase == .sendingBody {
                // Answered before the body ended (e.g. 401): stop uploading; the connection is closed afterwards.
                continueTimer?.cancel()
                closeReader()
                phase = .bodySent
            }
        case .body(var part):
            guard responseHead != nil else { return }
            guard responseBody.readableBytes + part.readableBytes <= request.maxResponseBytes else {
                fail(context: context, MiGError.malformedResponse("the response is larger than \(request.maxResponseBytes) bytes"))
                return
            }
            responseBody.writeBuffer(&part)
        case .end:
            guard let head = responseHead else { return }
            succeed(context: context, head)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        endedEarly(context: context, error: error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        endedEarly(
            context: context,
            error: MiGError.connectionDropped(
                "the server closed the connection " + (phase == .bodySent ? "before answering" : "during the upload")))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
        closeReader()
        if phase != .finished {
            phase = .finished
            promise.fail(MiGError.connectionDropped("the connection went away before a response"))
        }
    }

    // MARK: Sending

    private func sendHead(context: ChannelHandlerContext) {
        guard phase == .connecting else { return }
        if request.expectContinue {
            phase = .awaitingContinue
            context.writeAndFlush(wrapOutboundOut(.head(request.head)), promise: nil)
            continueTimer = context.eventLoop.assumeIsolated().scheduleTask(in: timeouts.expectContinue) { [self] in
                // No 100 Continue (many servers never send one): go ahead, as curl and CUPS do.
                if phase == .awaitingContinue { beginBody(context: context) }
            }
        } else {
            context.write(wrapOutboundOut(.head(request.head)), promise: nil)
            beginBody(context: context)
        }
    }

    private func beginBody(context: ChannelHandlerContext) {
        continueTimer?.cancel()
        phase = .sendingBody
        if let document = request.document {
            do {
                let plain = try document.open()
                reader = request.compression == .gzip ? try GzipReader(base: plain) : plain
            } catch {
                fail(context: context, error)
                return
            }
        }
        context.write(wrapOutboundOut(.body(.byteBuffer(request.prefix))), promise: nil)
        pump(context: context)
    }

    /// Writes document chunks while the channel accepts more; resumes from `channelWritabilityChanged`.
    private func pump(context: ChannelHandlerContext) {
        while phase == .sendingBody, context.channel.isWritable {
            guard let reader else {
                endBody(context: context)
                return
            }
            let chunk: ByteBuffer?
            do {
                chunk = try reader.next(maximum: Self.chunkSize, allocator: context.channel.allocator)
            } catch {
                fail(context: context, error)
                return
            }
            guard let chunk else {
                endBody(context: context)
                return
            }
            let count = Int64(chunk.readableBytes)
            documentBytesQueued += count
            if let size = request.documentSize, documentBytesQueued > size {
                fail(context: context, MiGError.documentUnreadable("the document grew beyond its announced \(size) bytes while it was sent"))
                return
            }
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenSuccess { [self] in
                documentBytesSent += count
                armIdleTimer(context: context)
                request.progress?(documentBytesSent, request.documentSize)
            }
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: written)
        }
    }

    private func endBody(context: ChannelHandlerContext) {
        closeReader()
        if let size = request.documentSize, request.document != nil, documentBytesQueued < size {
            fail(context: context, MiGError.documentUnreadable("the document ended after \(documentBytesQueued) of its \(size) bytes"))
            return
        }
        phase = .bodySent
        // Only once the connection has taken the last byte can MiG have the whole request (and act on it).
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenSuccess { [self] in requestWritten = true }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
    }

    // MARK: Outcome

    private func succeed(context: ChannelHandlerContext, _ head: HTTPResponseHead) {
        guard phase != .finished else { return }
        phase = .finished
        cancelTimers()
        closeReader()
        promise.succeed(IncomingResponse(head: head, body: responseBody, documentBytesSent: documentBytesSent))
        context.close(promise: nil)
    }

    /// The connection failed or closed before `.end`. A final non-2xx answer already read stands (a server that
    /// said 401 and then reset the upload). A whole request with no answer, or with a 2xx answer cut short, is an
    /// answer lost: the server may have acted on it (a 200 whose body never came is a job made), so it is not sent
    /// again unless it only reads. Anything else is the error.
    private func endedEarly(context: ChannelHandlerContext, error: any Error) {
        guard phase != .finished else { return }
        if let head = responseHead, !(200..<300).contains(head.status.code) {
            succeed(context: context, head)
        } else if requestWritten, let operation = request.operation {
            let detail = responseHead.map { "the connection ended in the middle of its \($0.status.code) response: \(Self.describe(error))" }
            fail(context: context, MiGError.answerLost(operation: operation, detail: detail ?? Self.describe(error)))
        } else if responseHead != nil {
            fail(
                context: context,
                MiGError.malformedResponse(
                    "the connection ended in the middle of a \(responseHead!.status.code) response (\(error))"))
        } else {
            fail(context: context, error)
        }
    }

    /// A short account of why the connection ended, for the lost-answer error.
    private static func describe(_ error: any Error) -> String {
        if case MiGError.connectionDropped(let text)? = error as? MiGError { return text }
        return "\(error)"
    }

    private func fail(context: ChannelHandlerContext, _ error: any Error) {
        guard phase != .finished else { return }
        phase = .finished
        cancelTimers()
        closeReader()
        promise.fail(error)
        context.close(promise: nil)
    }

    private func armIdleTimer(context: ChannelHandlerContext) {
        guard phase != .finished else { return }
        idleTimer?.cancel()
        let idle = timeouts.idle
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: idle) { [self] in
            fail(context: context, MiGError.timedOut("no data moved for \(idle.nanoseconds / 1_000_000) ms"))
        }
    }

    private func cancelTimers() {
        continueTimer?.cancel()
        idleTimer?.cancel()
        totalTimer?.cancel()
    }

    private func closeReader() {
        reader?.close()
        reader = nil
    }
}
