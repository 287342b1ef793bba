import Foundation
import IPP
import NIOCore
import NIOHTTP1
import NIOSSL
import Wire

/// MiG's HTTP front: `GET /` says hello, `POST /ipp/print` carries IPP. Authenticates before reading the
/// body, decodes the IPP attributes as soon as they are complete, and streams the document into the spool
/// chunk by chunk. Refusals say what was expected; a refusal decided before the body ended is sent at once
/// with `Connection: close` (the body is then read and dropped, so the client sees the answer, not a reset).
final class MiGHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// A complete answer that is not IPP.
    struct Reply: Error {
        var status: HTTPResponseStatus
        var headers: HTTPHeaders = [:]
        var body: String
        var contentType = "text/plain; charset=utf-8"
        /// A binary body (the printer's icons), sent instead of `body`.
        var data: [UInt8]? = nil
    }

    private enum State {
        case idle
        /// Answer with `reply` once the (small) body has been read; the connection stays open.
        case ignoringBody(HTTPRequestHead, Reply)
        /// Answered early; everything else is dropped until the connection closes.
        case closing
        case attributes(HTTPRequestHead, Caller, PendingAttributes)
        /// The attributes are complete and answered; `extra` counts bytes after the end tag (-1: ignored).
        case answering(HTTPRequestHead, IPPMessage, request: IPPMessage, extra: Int)
        case document(HTTPRequestHead, DocumentIntake)
    }

    /// The attribute bytes received so far. They are decoded when their framing shows them complete, and also
    /// each time they have doubled (so a request that is not IPP at all is refused early): decoding every growing
    /// prefix would cost O(n²) for a client trickling attributes; this costs O(n).
    struct PendingAttributes {
        var bytes: [UInt8] = []
        var scanner = IPPFrameScanner()
        var decodeAt = 8
    }

    let server: MiGServer
    let scheme: String
    private var state = State.idle
    private var timer: Scheduled<Void>?
    /// Bounds a whole request (the idle timer alone restarts with every chunk, so a trickle would never end).
    private var deadline: Scheduled<Void>?

    init(server: MiGServer, scheme: String) {
        self.server = server
        self.scheme = scheme
    }

    private var node: Node { server.node }

    // MARK: Timeouts (slow-loris)

    func handlerAdded(context: ChannelHandlerContext) { armTimer(context: context, server.configuration.headerTimeout) }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        deadline?.cancel()
    }

    /// One timer per connection: while idle it bounds the wait for a request head; during an upload it
    /// bounds the silence between two chunks (a slow-loris upload gets 408, a stalled one cannot pin a job).
    private func armTimer(context: ChannelHandlerContext, _ limit: TimeAmount) {
        timer?.cancel()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: limit) {
            let (handler, context) = bound.value
            handler.timedOut(context: context, limit)
        }
    }

    /// Arms the whole-request deadline: `limit` from now, replacing the previous one.
    private func armDeadline(context: ChannelHandlerContext, _ limit: TimeAmount, _ what: String) {
        deadline?.cancel()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: limit) {
            let (handler, context) = bound.value
            handler.passedDeadline(context: context, limit, what)
        }
    }

    private func passedDeadline(context: ChannelHandlerContext, _ limit: TimeAmount, _ what: String) {
        switch state {
        case .idle, .closing:
            return
        case .document(_, let intake):
            intake.abandon()
            node.trace("upload-timeout", [("job", "\(intake.job.id ?? 0)")])
        default:
            break
        }
        state = .closing
        replyEarly(
            context: context, Reply(status: .requestTimeout, body: "\(what) did not arrive within \(limit.seconds) s; the request was abandoned"))
    }

    private func timedOut(context: ChannelHandlerContext, _ limit: TimeAmount) {
        switch state {
        case .idle, .closing:
            context.close(promise: nil)
        case .document(_, let intake):
            intake.abandon()
            state = .closing
            node.trace("upload-timeout", [("job", "\(intake.job.id ?? 0)")])
            replyEarly(context: context, Reply(status: .requestTimeout, body: "no request data for \(limit.seconds) s; the upload was abandoned"))
        default:
            state = .closing
            replyEarly(context: context, Reply(status: .requestTimeout, body: "the request did not arrive within \(limit.seconds) s"))
        }
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): receivedHead(context: context, head)
        case .body(let chunk): receivedBody(context: context, chunk)
        case .end: receivedEnd(context: context)
        }
    }

    private func receivedHead(context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        guard case .idle = state else { return }
        armTimer(context: context, server.configuration.bodyIdleTimeout)
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        node.trace("http-request", [("from", context.channel.peerText), ("method", "\(head.method)"), ("path", path)])
        switch path {
        case "/":
            guard head.method == .GET || head.method == .HEAD else {
                return refuse(
                    context: context, head,
                    Reply(
                        status: .methodNotAllowed, headers: ["Allow": "GET, HEAD"],
                        body: "\(head.method) / is not allowed; use GET / to check that MiG is running"))
            }
            state = .ignoringBody(
                head,
                Reply(
                    status: .ok, body: "<!DOCTYPE html>\n<html><head><title>MiG</title></head><body>MIG hello</body></html>\n",
                    contentType: "text/html; charset=utf-8"))
        case let icon where PrinterIcon.png(at: icon) != nil && (head.method == .GET || head.method == .HEAD):  // printer-icons
            state = .ignoringBody(head, Reply(status: .ok, body: "", contentType: "image/png", data: PrinterIcon.png(at: icon)))
        case let ipp where ipp == "/ipp/print" || MiGPrinter.isJobPath(ipp):  // a job's job-uri takes its requests too
            guard head.method == .POST else {
                return refuse(
                    context: context, head,
                    Reply(
                        status: .methodNotAllowed, headers: ["Allow": "POST"],
                        body: "\(head.method) /ipp/print is not allowed; IPP requests are POSTed with Content-Type: application/ipp"))
            }
            let contentType = head.headers.first(name: "Content-Type") ?? ""
            guard contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/ipp" else {
                return refuse(
                    context: context, head,
                    Reply(
                        status: .unsupportedMediaType,
                        body: "expected Content-Type: application/ipp, found \(contentType.isEmpty ? "none" : "'\(contentType)'")"))
            }
            // The certificate the client proved it holds in the TLS handshake (IPPS with mutual TLS), if any.
            let presented = scheme == "ipps" ? (try? context.pipeline.syncOperations.nioSSL_peerCertificate()?.toDERBytes()) : nil
            switch server.identify(head.headers, presented: presented) {
            case .failure(let refusal):
                return refuse(context: context, head, refusal)
            case .success(let user):
                if let length = head.headers.first(name: "Content-Length").flatMap(Int64.init),
                    length > server.configuration.printer.maxDocumentBytes + Int64(server.decoder.limits.maxMessageSize)
                {
                    return refuse(
                        context: context, head,
                        Reply(
                            status: .payloadTooLarge,
                            body:
                                "the request of \(length) bytes exceeds MiG's limit of \(server.configuration.printer.maxDocumentBytes) document bytes"
                        ))
                }
                let authority = head.headers.first(name: "Host") ?? "\(server.host):\(server.port(scheme: scheme))"
                let caller = Caller(user: user ?? "", address: PrinterAddress(scheme: scheme, authority: authority), authenticated: user != nil)
                state = .attributes(head, caller, PendingAttributes())
                armDeadline(context: context, server.configuration.attributesTimeout, "the IPP attributes")
                if head.headers.first(name: "Expect")?.lowercased() == "100-continue" {
                    context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
                }
            }
        default:
            refuse(context: context, head, Reply(status: .notFound, body: "nothing at \(path); MiG answers GET / and takes IPP at POST /ipp/print"))
        }
    }

    private func receivedBody(context: ChannelHandlerContext, _ chunk: ByteBuffer) {
        armTimer(context: context, server.configuration.bodyIdleTimeout)
        switch state {
        case .attributes(let head, let caller, var pending):
            state = .idle  // release the array so appending does not copy it
            pending.bytes.append(contentsOf: chunk.readableBytesView)
            let framed = pending.scanner.scan(pending.bytes) != .needMoreData
            guard framed || pending.bytes.count >= pending.decodeAt || pending.bytes.count > server.decoder.limits.maxMessageSize else {
                state = .attributes(head, caller, pending)
                return
            }
            pending.decodeAt = pending.bytes.count * 2
            attributesArrived(context: context, head, caller, pending)
        case .answering(let head, let response, let request, let extra):
            state = .answering(head, response, request: request, extra: extra < 0 ? extra : extra + chunk.readableBytes)
        case .document(let head, let intake):
            do {
                try intake.write(chunk)
            } catch {
                state = .closing
                replyEarly(context: context, head, ipp: intake.fail(error), operation: intake.request.operation)
            }
        case .idle, .ignoringBody, .closing:
            break
        }
    }

    private func attributesArrived(context: ChannelHandlerContext, _ head: HTTPRequestHead, _ caller: Caller, _ pending: PendingAttributes) {
        let bytes = pending.bytes
        let progress: IPPDecoder.Progress
        do throws(IPPError) {
            progress = try server.decoder.decodePrefix(bytes)
        } catch {
            // The rest of the body is still on its way: answer now and close.
            state = .closing
            let answer = undecodable(
                bytes, "Malformed IPP request: \(error)", status: error.kind == .limitExceeded ? .requestEntityTooLarge : .badRequest)
            return replyEarly(context: context, head, ipp: answer, operation: nil)
        }
        guard case .complete(let request, let documentOffset) = progress else {
            state = .attributes(head, caller, pending)
            return
        }
        armDeadline(context: context, server.configuration.documentTimeout, "the document")
        let rest = bytes.count - documentOffset
        switch server.printer.admit(request, caller: caller) {
        case .answer(let response):
            // A refused Print-Job or Send-Document still carries its document: drop it quietly.
            let takesDocument = request.operation == .printJob || request.operation == .sendDocument
            state = .answering(head, response, request: request, extra: takesDocument ? -1 : rest)
        case .document(let intake):
            state = .document(head, intake)
            if rest > 0 {
                receivedBody(context: context, ByteBuffer(bytes: bytes[documentOffset...]))
            }
        case .credentialsRequired:
            state = .closing
            replyEarly(context: context, server.credentialsChallenge)
        }
    }

    private func receivedEnd(context: ChannelHandlerContext) {
        switch state {
        case .attributes(let head, _, let pending):
            let bytes = pending.bytes
            // The decoder names what is wrong with bytes that are not IPP at all; only truly cut-off ones are "truncated".
            var problem =
                bytes.isEmpty
                ? "The body is empty; expected an IPP request."
                : "The IPP request is truncated: the body ended after \(bytes.count) bytes, before the end-of-attributes tag."
            if !bytes.isEmpty {
                do { _ = try server.decoder.decodePrefix(bytes) } catch { problem = "Malformed IPP request: \(error)" }
            }
            // The HTTP request itself was whole, so the connection can carry the next one.
            reply(context: context, head, ipp: undecodable(bytes, problem, status: .badRequest), operation: nil, keepAlive: head.isKeepAlive)
        case .answering(let head, let response, let request, let extra):
            if extra > 0 {
                let problem = MiGPrinter.error(
                    to: request, .badRequest,
                    "\(extra) bytes of unexpected data after the end-of-attributes tag: \(request.operation) takes no document.")
                reply(context: context, head, ipp: problem, operation: request.operation, keepAlive: head.isKeepAlive)
            } else {
                reply(context: context, head, ipp: response, operation: request.operation, keepAlive: head.isKeepAlive)
            }
        case .document(let head, let intake):
            reply(context: context, head, ipp: intake.finish(), operation: intake.request.operation, keepAlive: head.isKeepAlive)
        case .ignoringBody(let head, let answer):
            reply(context: context, head, answer, keepAlive: head.isKeepAlive)
        case .idle, .closing:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .document(_, let intake) = state { intake.abandon() }
        state = .closing
        timer?.cancel()
        deadline?.cancel()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        node.trace("http-error", [("error", "\(error)")])
        if case .document(_, let intake) = state { intake.abandon() }
        state = .closing
        context.close(promise: nil)
    }

    // MARK: Writing

    /// Refuses a request: after a small body is read when the client is surely sending it (keep the
    /// connection), else at once with `Connection: close`.
    private func refuse(context: ChannelHandlerContext, _ head: HTTPRequestHead, _ answer: Reply) {
        let length = head.headers.first(name: "Content-Length").flatMap(Int.init)
        let smallBody =
            head.headers.first(name: "Expect") == nil
            && !head.headers.contains(name: "Transfer-Encoding") && (length ?? 0) <= 64 * 1024
        if smallBody {
            state = .ignoringBody(head, answer)
        } else {
            state = .closing
            replyEarly(context: context, answer)
        }
    }

    private func replyEarly(context: ChannelHandlerContext, _ answer: Reply) {
        var answer = answer
        answer.headers.replaceOrAdd(name: "Connection", value: "close")
        write(
            context: context, status: answer.status, headers: answer.headers, contentType: answer.contentType,
            body: ByteBuffer(string: answer.body.hasSuffix("\n") ? answer.body : answer.body + "\n"), version: .http1_1, keepAlive: false)
    }

    private func replyEarly(context: ChannelHandlerContext, _ head: HTTPRequestHead, ipp: IPPMessage, operation: IPPOperation?) {
        let body = (try? IPPEncoder().encode(ipp)).map { ByteBuffer(bytes: $0) } ?? ByteBuffer()
        traceIPP(context: context, ipp, operation: operation)
        write(
            context: context, status: .ok, headers: ["Connection": "close"], contentType: "application/ipp", body: body, version: head.version,
            keepAlive: false)
    }

    private func reply(context: ChannelHandlerContext, _ head: HTTPRequestHead, _ answer: Reply, keepAlive: Bool) {
        let body =
            head.method == .HEAD
            ? ByteBuffer()
            : answer.data.map { ByteBuffer(bytes: $0) }
                ?? ByteBuffer(string: answer.body.hasSuffix("\n") ? answer.body : answer.body + "\n")
        write(
            context: context, status: answer.status, headers: answer.headers, contentType: answer.contentType, body: body, version: head.version,
            keepAlive: keepAlive)
    }

    private func reply(context: ChannelHandlerContext, _ head: HTTPRequestHead, ipp: IPPMessage, operation: IPPOperation?, keepAlive: Bool) {
        let body: ByteBuffer
        do {
            body = ByteBuffer(bytes: try IPPEncoder().encode(ipp))
        } catch {
            return reply(
                context: context, head, Reply(status: .internalServerError, body: "MiG could not encode its answer: \(error)"), keepAlive: false)
        }
        traceIPP(context: context, ipp, operation: operation)
        write(context: context, status: .ok, headers: [:], contentType: "application/ipp", body: body, version: head.version, keepAlive: keepAlive)
    }

    /// - parameter operation: what was asked; nil when the request could not be read.
    private func traceIPP(context: ChannelHandlerContext, _ ipp: IPPMessage, operation: IPPOperation?) {
        node.trace(
            "ipp-response", [("from", context.channel.peerText)] + (operation.map { [("operation", "\($0)")] } ?? []) + [("status", "\(ipp.status)")])
    }

    /// The answer to a body that is not a whole IPP request (RFC 8011 §4.1): `status` with a status-message that
    /// says what was wrong, echoing the request-id when the request's 8-byte header arrived.
    private func undecodable(_ bytes: [UInt8], _ problem: String, status: IPPStatus) -> IPPMessage {
        var header = IPPDecoder.header(of: bytes) ?? IPPMessage(version: .v1_1, code: 0, requestID: 0)
        // Text sent as IPP has no IPP version to echo: answer in 1.1, which every client reads.
        if !(IPPVersion.v1_0...IPPVersion.v2_2).contains(header.version) { header.version = .v1_1 }
        return MiGPrinter.error(to: header, status, problem)
    }

    private func write(
        context: ChannelHandlerContext, status: HTTPResponseStatus, headers: HTTPHeaders, contentType: String,
        body: ByteBuffer, version: HTTPVersion, keepAlive: Bool
    ) {
        var headers = headers
        headers.replaceOrAdd(name: "Content-Type", value: contentType)
        headers.replaceOrAdd(name: "Content-Length", value: "\(body.readableBytes)")
        headers.replaceOrAdd(name: "Server", value: "MiG (Workbench)")
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        node.trace("http-response", [("from", context.channel.peerText), ("status", "\(status.code)")])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))), promise: nil)
        if body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        deadline?.cancel()
        deadline = nil
        if keepAlive {
            state = .idle
            armTimer(context: context, server.configuration.headerTimeout)
        } else {
            // Lingering close: stop sending, keep reading (and dropping) briefly so the client reads the answer.
            state = .closing
            let channel = context.channel
            done.whenComplete { _ in channel.close(mode: .output, promise: nil) }
            armTimer(context: context, .seconds(2))
        }
    }
}

extension TimeAmount {
    var seconds: Int64 { nanoseconds / 1_000_000_000 }
}
