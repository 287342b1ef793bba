import Foundation
import IPP
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization
import Wire

/// MiG's HTTP front: `GET /` says hello, `POST /ipp/print` carries IPP. Authenticates before reading the
/// body, decodes the IPP attributes as soon as they are complete, and streams the document into the spool
/// chunk by chunk. Refusals say what was expected; a refusal decided before the body ended is sent at once
/// with `Connection: close` (the body is then read and dropped, so the client sees the answer, not a reset).
final class MiGHTTPHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
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

    private typealias Machine = UploadStateMachine<DocumentIntake>

    let server: MiGServer
    let scheme: String
    private var machine: Machine
    /// The channel asked for more bytes while the machine had reads paused: passed on once it resumes.
    private var readHeld = false
    private var timer: Scheduled<Void>?
    /// Bounds a whole request (the idle timer alone restarts with every chunk, so a trickle would never end).
    private var deadline: Scheduled<Void>?

    init(server: MiGServer, scheme: String) {
        self.server = server
        self.scheme = scheme
        machine = Machine(decoder: server.decoder)
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
            handler.perform(handler.machine.timedOut(limit), context: context)
        }
    }

    /// Arms the whole-request deadline: `limit` from now, replacing the previous one.
    private func armDeadline(context: ChannelHandlerContext, _ limit: TimeAmount, _ what: String) {
        deadline?.cancel()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: limit) {
            let (handler, context) = bound.value
            handler.perform(handler.machine.passedDeadline(limit, what), context: context)
        }
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): receivedHead(context: context, head)
        case .body(let chunk):
            armTimer(context: context, server.configuration.bodyIdleTimeout)
            perform(machine.receivedBody(chunk), context: context)
        case .end: perform(machine.receivedEnd(), context: context)
        }
    }

    /// Backpressure: while the printer decides or a spool write is in flight, no more bytes are read.
    func read(context: ChannelHandlerContext) {
        if machine.readsPaused {
            readHeld = true
        } else {
            context.read()
        }
    }

    private func receivedHead(context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        guard machine.isIdle else { return }
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
            machine.answerAfterBody(
                head,
                Reply(
                    status: .ok, body: "<!DOCTYPE html>\n<html><head><title>MiG</title></head><body>MIG hello</body></html>\n",
                    contentType: "text/html; charset=utf-8"))
        case let icon where PrinterIcon.png(at: icon) != nil && (head.method == .GET || head.method == .HEAD):  // printer-icons
            machine.answerAfterBody(head, Reply(status: .ok, body: "", contentType: "image/png", data: PrinterIcon.png(at: icon)))
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
                machine.accept(head, caller)
                armDeadline(context: context, server.configuration.attributesTimeout, "the IPP attributes")
                if head.headers.first(name: "Expect")?.lowercased() == "100-continue" {
                    context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
                }
            }
        default:
            refuse(context: context, head, Reply(status: .notFound, body: "nothing at \(path); MiG answers GET / and takes IPP at POST /ipp/print"))
        }
    }

    private func refuse(context: ChannelHandlerContext, _ head: HTTPRequestHead, _ answer: Reply) {
        perform(machine.refuse(head, answer), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // After a crash the process that would abandon the upload is gone: the connection just ends.
        if !server.crashed.load(ordering: .acquiring) { perform(machine.connectionEnded(), context: context) }
        timer?.cancel()
        deadline?.cancel()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !server.crashed.load(ordering: .acquiring) else { return context.close(promise: nil) }
        node.trace("http-error", [("error", "\(error)")])
        perform(machine.connectionEnded(), context: context)
        context.close(promise: nil)
    }

    // MARK: Performing the machine's actions

    /// Does what the machine decided. The printer runs on the actor's loop and the spool on the node's blocking
    /// threads; their results come back to this channel's loop as the machine's next events.
    private func perform(_ action: Machine.Action, context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        switch action {
        case .none:
            break
        case .close:
            context.close(promise: nil)
        case .admit(let request, let caller):
            armDeadline(context: context, server.configuration.documentTimeout, "the document")
            let server = self.server
            server.node.onHome { server.printer.admit(request, caller: caller) }.hop(to: context.eventLoop).whenComplete { result in
                let (handler, context) = bound.value
                switch result {
                case .success(let admission): handler.perform(handler.machine.admitted(Self.decision(admission, server)), context: context)
                case .failure: context.close(promise: nil)  // the actor's loop is shutting down
                }
            }
        case .feed(let intake, let bytes):
            intake.write(bytes, on: context.eventLoop).whenComplete { result in
                let (handler, context) = bound.value
                handler.perform(handler.machine.fed(result.mapError { $0 as? SpoolError ?? .storage("\($0)") }), context: context)
            }
        case .finish(let intake, let last):
            intake.finish(last: last, answerOn: context.eventLoop).whenComplete { result in
                let (handler, context) = bound.value
                switch result {
                case .success(.answer(let answer)): handler.perform(handler.machine.finished(answer), context: context)
                case .success(.lastWriteFailed(let answer)): handler.perform(handler.machine.lastWriteFailed(answer), context: context)
                case .failure: context.close(promise: nil)
                }
            }
        case .fail(let intake, let error, let version, let operation):
            intake.fail(error).hop(to: context.eventLoop).whenComplete { result in
                let (handler, context) = bound.value
                switch result {
                case .success(let answer): handler.write(context: context, .earlyIPP(answer, operation: operation, version: version))
                case .failure: context.close(promise: nil)
                }
            }
        case .reply(let outgoing):
            write(context: context, outgoing)
        case .abandon(let intake, let reason, let then):
            intake.abandon()
            if reason == .timeout { node.trace("upload-timeout", [("job", "\(intake.job.id)")]) }
            if let then { write(context: context, then) }
        }
        if readHeld, !machine.readsPaused {
            readHeld = false
            if context.channel.isActive { context.read() }
        }
    }

    private static func decision(_ admission: Admission, _ server: MiGServer) -> Machine.Admitted {
        switch admission {
        case .answer(let response): .answer(response)
        case .document(let intake): .document(intake)
        case .credentialsRequired: .refuse(server.credentialsChallenge)
        }
    }

    // MARK: Writing

    private func write(context: ChannelHandlerContext, _ outgoing: Machine.Outgoing) {
        switch outgoing {
        case .early(var answer):
            answer.headers.replaceOrAdd(name: "Connection", value: "close")
            write(
                context: context, status: answer.status, headers: answer.headers, contentType: answer.contentType,
                body: ByteBuffer(string: answer.body.hasSuffix("\n") ? answer.body : answer.body + "\n"), version: .http1_1, keepAlive: false)
        case .text(let answer, let head, let keepAlive):
            let body =
                head.method == .HEAD
                ? ByteBuffer()
                : answer.data.map { ByteBuffer(bytes: $0) }
                    ?? ByteBuffer(string: answer.body.hasSuffix("\n") ? answer.body : answer.body + "\n")
            write(
                context: context, status: answer.status, headers: answer.headers, contentType: answer.contentType, body: body,
                version: head.version, keepAlive: keepAlive)
        case .ipp(let ipp, let operation, let version, let keepAlive):
            let body: ByteBuffer
            do {
                body = ByteBuffer(bytes: try IPPEncoder().encode(ipp))
            } catch {
                let failure = "MiG could not encode its answer: \(error)\n"
                return write(
                    context: context, status: .internalServerError, headers: [:], contentType: "text/plain; charset=utf-8",
                    body: ByteBuffer(string: failure), version: version, keepAlive: false)
            }
            traceIPP(context: context, ipp, operation: operation)
            write(context: context, status: .ok, headers: [:], contentType: "application/ipp", body: body, version: version, keepAlive: keepAlive)
        case .earlyIPP(let ipp, let operation, let version):
            let body = (try? IPPEncoder().encode(ipp)).map { ByteBuffer(bytes: $0) } ?? ByteBuffer()
            traceIPP(context: context, ipp, operation: operation)
            write(
                context: context, status: .ok, headers: ["Connection": "close"], contentType: "application/ipp", body: body, version: version,
                keepAlive: false)
        }
    }

    /// - parameter operation: what was asked; nil when the request could not be read.
    private func traceIPP(context: ChannelHandlerContext, _ ipp: IPPMessage, operation: IPPOperation?) {
        node.trace(
            "ipp-response", [("from", context.channel.peerText)] + (operation.map { [("operation", "\($0)")] } ?? []) + [("status", "\(ipp.status)")])
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
            armTimer(context: context, server.configuration.headerTimeout)
        } else {
            // Lingering close: stop sending, keep reading (and dropping) briefly so the client reads the answer.
            let channel = context.channel
            done.whenComplete { _ in channel.close(mode: .output, promise: nil) }
            armTimer(context: context, .seconds(2))
        }
    }
}

extension TimeAmount {
    var seconds: Int64 { nanoseconds / 1_000_000_000 }
}
