import IPP
import NIOCore
import NIOHTTP1

/// What one connection of MiG's HTTP front does with the request it is reading, decided apart from the I/O (as
/// swift-nio-ssh's `ChildChannelStateMachine` does): `MiGHTTPHandler` feeds in events — the request's parts, the
/// printer's admission, the spool's progress, its timers, the connection's end — and performs the action each
/// returns. Every way an upload can end without its answer (a time-out, a lost connection, a pipeline error, an
/// admission that comes back after the connection went) leaves through one action, `abandon`.
///
/// Live, the printer and the spool answer later, on other threads: while the printer decides, or while a spool write
/// is in flight with ``readAheadBytes`` queued behind it, the machine asks the handler to stop reading
/// (`readsPaused`), and the bytes already read wait here, so a 1 GiB upload never holds more than that much. Under simulation they answer at once, so nothing
/// ever waits here and the order of events is the one the handler always had.
///
/// Generic over the upload (the printer's `DocumentIntake` live; anything in tests): the machine only hands it back.
struct UploadStateMachine<Upload> {
    typealias Reply = MiGHTTPHandler.Reply

    enum State {
        case idle
        /// Answer with the reply once the (small) body has been read; the connection stays open.
        case ignoringBody(HTTPRequestHead, Reply)
        /// Answered early; everything else is dropped until the connection closes.
        case closing
        case attributes(HTTPRequestHead, Caller, PendingAttributes)
        /// The attributes are decoded and the printer is deciding; body bytes read meanwhile wait in `early`.
        case admitting(HTTPRequestHead, IPPMessage, early: [ByteBuffer], ended: Bool)
        /// The attributes are complete and answered; `extra` counts bytes after the end tag (-1: ignored).
        case answering(HTTPRequestHead, IPPMessage, request: IPPMessage, extra: Int)
        case document(HTTPRequestHead, IPPMessage, DocumentUpload)
        /// The whole document is in: the spool makes it durable and the printer answers.
        case finishing(HTTPRequestHead, IPPOperation)
        /// Closing while a spool write is still in flight: the upload is abandoned once it returns (its file must not
        /// be removed under the write).
        case draining(Upload, AbandonReason)
    }

    /// The attribute bytes received so far. They are decoded when their framing shows them complete, and also
    /// each time they have doubled (so a request that is not IPP at all is refused early): decoding every growing
    /// prefix would cost O(n²) for a client trickling attributes; this costs O(n).
    struct PendingAttributes {
        var bytes: [UInt8] = []
        var scanner = IPPFrameScanner()
        var decodeAt = 8
    }

    /// A document on its way into the spool: at most one write in flight, the chunks read meanwhile queued.
    struct DocumentUpload {
        let upload: Upload
        var queued: [ByteBuffer] = []
        var writing = false
        var ended = false
    }

    /// The printer's decision on a request whose attributes arrived.
    enum Admitted {
        case answer(IPPMessage)
        /// Stream the rest of the body into this upload.
        case document(Upload)
        /// Refuse at once and close (an anonymous caller whose operation needs credentials).
        case refuse(Reply)
    }

    enum AbandonReason: Equatable {
        /// A timer ran out (the handler traces `upload-timeout`).
        case timeout
        /// The connection closed or failed before the document was complete.
        case connectionLost
    }

    /// An answer to write.
    enum Outgoing {
        /// A text answer after the whole request; `keepAlive` false closes.
        case text(Reply, HTTPRequestHead, keepAlive: Bool)
        /// A text answer before the request ended: HTTP/1.1 with `Connection: close`.
        case early(Reply)
        /// An IPP answer; `operation` is what was asked (nil when the request could not be read).
        case ipp(IPPMessage, operation: IPPOperation?, version: HTTPVersion, keepAlive: Bool)
        /// An IPP answer before the request ended, with `Connection: close`.
        case earlyIPP(IPPMessage, operation: IPPOperation?, version: HTTPVersion)
    }

    enum Action {
        case none
        /// Ask the printer (on the actor's loop) about the request; report with `admitted(_:)`.
        case admit(IPPMessage, Caller)
        /// Write these chunks into the upload's spool file (off the loops); report with `fed(_:)`.
        case feed(Upload, [ByteBuffer])
        /// The document is complete: write `last` (the chunks still queued, often none), make the document durable and
        /// let the printer answer, all in one trip to the spool's thread; report with `finished(_:)`, or with
        /// `lastWriteFailed(_:)` when the spool refused `last` or the write in flight. Asked for as soon as the body
        /// ends, even while a write is in flight: the upload runs it after that write (`DocumentIntake`), whose
        /// answer then finds the machine finishing and is dropped.
        case finish(Upload, last: [ByteBuffer])
        /// The spool refused the document: abort its job, and answer early (`Outgoing.earlyIPP`) with what the printer says.
        case fail(Upload, SpoolError, HTTPVersion, IPPOperation)
        case reply(Outgoing)
        /// Drop the upload's bytes and abort its job, then write `then` if there is one.
        case abandon(Upload, AbandonReason, then: Outgoing?)
        case close
    }

    private(set) var state = State.idle
    let decoder: IPPDecoder

    init(decoder: IPPDecoder) { self.decoder = decoder }

    var isIdle: Bool { if case .idle = state { true } else { false } }

    /// How much may be read ahead while a spool write is in flight. Reading on during the write keeps one client's
    /// upload streaming (pausing at every write cost a thread-pool round trip per 64 KiB read); the bound keeps a
    /// 1 GiB upload's memory at this much per connection.
    static var readAheadBytes: Int { 512 * 1024 }

    /// Whether the handler should stop reading: the printer is deciding, or a spool write is in flight with
    /// ``readAheadBytes`` already queued behind it.
    var readsPaused: Bool {
        switch state {
        case .admitting: true
        case .document(_, _, let upload): upload.writing && upload.queued.reduce(0) { $0 + $1.readableBytes } >= Self.readAheadBytes
        default: false
        }
    }

    // MARK: The request

    /// An authenticated IPP request: its attributes come next.
    mutating func accept(_ head: HTTPRequestHead, _ caller: Caller) { state = .attributes(head, caller, PendingAttributes()) }

    /// A request answered once its (small) body has been read.
    mutating func answerAfterBody(_ head: HTTPRequestHead, _ reply: Reply) { state = .ignoringBody(head, reply) }

    /// Refuses a request: after a small body is read when the client is surely sending it (keep the connection),
    /// else at once with `Connection: close`.
    mutating func refuse(_ head: HTTPRequestHead, _ reply: Reply) -> Action {
        let length = head.headers.first(name: "Content-Length").flatMap(Int.init)
        let smallBody =
            head.headers.first(name: "Expect") == nil
            && !head.headers.contains(name: "Transfer-Encoding") && (length ?? 0) <= 64 * 1024
        if smallBody {
            state = .ignoringBody(head, reply)
            return .none
        }
        return replyEarly(reply)
    }

    mutating func receivedBody(_ chunk: ByteBuffer) -> Action {
        switch state {
        case .attributes(let head, let caller, var pending):
            if pending.bytes.isEmpty, let admit = attributesWhole(in: chunk, head, caller) { return admit }
            state = .idle  // release the array so appending does not copy it
            pending.bytes.append(contentsOf: chunk.readableBytesView)
            let framed = pending.scanner.scan(pending.bytes) != .needMoreData
            guard framed || pending.bytes.count >= pending.decodeAt || pending.bytes.count > decoder.limits.maxMessageSize else {
                state = .attributes(head, caller, pending)
                return .none
            }
            pending.decodeAt = pending.bytes.count * 2
            return attributesArrived(head, caller, pending)
        case .admitting(let head, let request, var early, let ended):
            early.append(chunk)
            state = .admitting(head, request, early: early, ended: ended)
            return .none
        case .answering(let head, let response, let request, let extra):
            state = .answering(head, response, request: request, extra: extra < 0 ? extra : extra + chunk.readableBytes)
            return .none
        case .document(let head, let request, var upload):
            upload.queued.append(chunk)
            return pump(head, request, upload)
        case .idle, .ignoringBody, .closing, .finishing, .draining:
            return .none
        }
    }

    /// The common case: the request's first chunk holds its whole attribute section. It is decoded from the chunk,
    /// and the document's first bytes stay in it as a slice, rather than the chunk being copied into
    /// `PendingAttributes` and its rest copied out again (two copies of up to 64 KiB before the printer is asked).
    /// Nil when the chunk does not hold a decodable section: the bytes then go the general way, which also words the
    /// refusal.
    ///
    /// One decode, no frame scan first: the scanner is there to keep a trickle from being decoded again on every
    /// chunk, and this runs once per request.
    private mutating func attributesWhole(in chunk: ByteBuffer, _ head: HTTPRequestHead, _ caller: Caller) -> Action? {
        let progress = chunk.withUnsafeReadableBytes { raw in try? decoder.decodePrefix(raw) }
        guard case .complete(let request, let documentOffset) = progress else { return nil }
        let rest =
            documentOffset < chunk.readableBytes
            ? [chunk.getSlice(at: chunk.readerIndex + documentOffset, length: chunk.readableBytes - documentOffset)!] : []
        state = .admitting(head, request, early: rest, ended: false)
        return .admit(request, caller)
    }

    private mutating func attributesArrived(_ head: HTTPRequestHead, _ caller: Caller, _ pending: PendingAttributes) -> Action {
        let bytes = pending.bytes
        let progress: IPPDecoder.Progress
        do throws(IPPError) {
            progress = try decoder.decodePrefix(bytes)
        } catch {
            // The rest of the body is still on its way: answer now and close.
            state = .closing
            let answer = Self.undecodable(
                bytes, "Malformed IPP request: \(error)", status: error.kind == .limitExceeded ? .requestEntityTooLarge : .badRequest)
            return .reply(.earlyIPP(answer, operation: nil, version: head.version))
        }
        guard case .complete(let request, let documentOffset) = progress else {
            state = .attributes(head, caller, pending)
            return .none
        }
        let rest = documentOffset < bytes.count ? [ByteBuffer(bytes: bytes[documentOffset...])] : []
        state = .admitting(head, request, early: rest, ended: false)
        return .admit(request, caller)
    }

    mutating func receivedEnd() -> Action {
        switch state {
        case .attributes(let head, _, let pending):
            let bytes = pending.bytes
            // The decoder names what is wrong with bytes that are not IPP at all; only truly cut-off ones are "truncated".
            var problem =
                bytes.isEmpty
                ? "The body is empty; expected an IPP request."
                : "The IPP request is truncated: the body ended after \(bytes.count) bytes, before the end-of-attributes tag."
            if !bytes.isEmpty {
                do { _ = try decoder.decodePrefix(bytes) } catch { problem = "Malformed IPP request: \(error)" }
            }
            // The HTTP request itself was whole, so the connection can carry the next one.
            return reply(
                .ipp(Self.undecodable(bytes, problem, status: .badRequest), operation: nil, version: head.version, keepAlive: head.isKeepAlive))
        case .admitting(let head, let request, let early, _):
            state = .admitting(head, request, early: early, ended: true)
            return .none
        case .answering(let head, let response, let request, let extra):
            var answer = response
            if extra > 0 {
                answer = MiGPrinter.error(
                    to: request, .badRequest,
                    "\(extra) bytes of unexpected data after the end-of-attributes tag: \(request.operation) takes no document.")
            }
            return reply(.ipp(answer, operation: request.operation, version: head.version, keepAlive: head.isKeepAlive))
        case .document(let head, let request, var upload):
            upload.ended = true
            return pump(head, request, upload)
        case .ignoringBody(let head, let answer):
            return reply(.text(answer, head, keepAlive: head.isKeepAlive))
        case .idle, .closing, .finishing, .draining:
            return .none
        }
    }

    // MARK: The printer and the spool

    mutating func admitted(_ decision: Admitted) -> Action {
        guard case .admitting(let head, let request, let early, let ended) = state else {
            // The connection went (or timed out) while the printer decided: a job made for it is dropped.
            if case .document(let upload) = decision { return .abandon(upload, .connectionLost, then: nil) }
            return .none
        }
        switch decision {
        case .answer(let response):
            // A refused Print-Job or Send-Document still carries its document: drop it quietly.
            let takesDocument = request.operation == .printJob || request.operation == .sendDocument
            let extra = takesDocument ? -1 : early.reduce(0) { $0 + $1.readableBytes }
            state = .answering(head, response, request: request, extra: extra)
            return ended ? receivedEnd() : .none
        case .document(let upload):
            return pump(head, request, DocumentUpload(upload: upload, queued: early, ended: ended))
        case .refuse(let reply):
            return replyEarly(reply)
        }
    }

    /// A spool write returned.
    mutating func fed(_ result: Result<Void, SpoolError>) -> Action {
        switch state {
        case .document(let head, let request, var upload):
            upload.writing = false
            if case .failure(let error) = result {
                state = .closing
                return .fail(upload.upload, error, head.version, request.operation)
            }
            return pump(head, request, upload)
        case .draining(let upload, let reason):
            state = .closing
            return .abandon(upload, reason, then: nil)
        default:
            return .none
        }
    }

    /// The printer's answer to a complete document.
    mutating func finished(_ answer: IPPMessage) -> Action {
        guard case .finishing(let head, let operation) = state else { return .none }  // the connection went meanwhile
        return reply(.ipp(answer, operation: operation, version: head.version, keepAlive: head.isKeepAlive))
    }

    /// The spool refused the last bytes of a document (`finish`'s `last`): the printer aborted the job and `answer`
    /// says why. Answered with `Connection: close`, as a refused write earlier in the document is (`fail`).
    mutating func lastWriteFailed(_ answer: IPPMessage) -> Action {
        guard case .finishing(let head, let operation) = state else { return .none }
        return reply(.earlyIPP(answer, operation: operation, version: head.version))
    }

    /// Starts the next spool write (everything queued, in one trip), or, once the body has ended, finishes the
    /// document with whatever is still queued (the last write and the finish share one trip to the spool's thread;
    /// a write still in flight goes first).
    private mutating func pump(_ head: HTTPRequestHead, _ request: IPPMessage, _ upload: DocumentUpload) -> Action {
        var upload = upload
        if upload.ended {
            state = .finishing(head, request.operation)
            return .finish(upload.upload, last: upload.queued)
        }
        if upload.writing || upload.queued.isEmpty {
            state = .document(head, request, upload)
            return .none
        }
        let chunks = upload.queued
        upload.queued = []
        upload.writing = true
        state = .document(head, request, upload)
        return .feed(upload.upload, chunks)
    }

    // MARK: Time-outs and the connection's end

    /// The connection's one timer: while idle it bounds the wait for a request head; during an upload the silence
    /// between two chunks (a slow-loris upload gets 408, a stalled one cannot pin a job).
    mutating func timedOut(_ limit: TimeAmount) -> Action {
        switch state {
        case .idle, .closing, .draining:
            return .close
        case .finishing:
            return .none  // the request is whole: the answer is MiG's to give
        case .document:
            return abandon(.timeout, then: Reply(status: .requestTimeout, body: "no request data for \(limit.seconds) s; the upload was abandoned"))
        default:
            return replyEarly(Reply(status: .requestTimeout, body: "the request did not arrive within \(limit.seconds) s"))
        }
    }

    /// A whole-request deadline passed (`what` arrived too slowly, however steadily it trickled).
    mutating func passedDeadline(_ limit: TimeAmount, _ what: String) -> Action {
        let reply = Reply(status: .requestTimeout, body: "\(what) did not arrive within \(limit.seconds) s; the request was abandoned")
        switch state {
        case .idle, .closing, .draining, .finishing:
            return .none
        case .document:
            return abandon(.timeout, then: reply)
        default:
            return replyEarly(reply)
        }
    }

    /// The connection closed, or the pipeline failed and the handler closes it.
    mutating func connectionEnded() -> Action {
        guard case .document = state else {
            if case .draining = state { return .none }
            state = .closing
            return .none
        }
        return abandon(.connectionLost, then: nil)
    }

    /// Abandons the document being received: at once, or once its write in flight returns.
    private mutating func abandon(_ reason: AbandonReason, then reply: Reply?) -> Action {
        guard case .document(_, _, let upload) = state else { return .none }
        let outgoing = reply.map { Outgoing.early($0) }
        if upload.writing {
            state = .draining(upload.upload, reason)
            return outgoing.map { .reply($0) } ?? .none
        }
        state = .closing
        return .abandon(upload.upload, reason, then: outgoing)
    }

    // MARK: Answers

    private mutating func reply(_ outgoing: Outgoing) -> Action {
        switch outgoing {
        case .text(_, _, let keepAlive), .ipp(_, _, _, let keepAlive): state = keepAlive ? .idle : .closing
        case .early, .earlyIPP: state = .closing
        }
        return .reply(outgoing)
    }

    private mutating func replyEarly(_ reply: Reply) -> Action {
        state = .closing
        return .reply(.early(reply))
    }

    /// The answer to a body that is not a whole IPP request (RFC 8011 §4.1): `status` with a status-message that
    /// says what was wrong, echoing the request-id when the request's 8-byte header arrived.
    static func undecodable(_ bytes: [UInt8], _ problem: String, status: IPPStatus) -> IPPMessage {
        var header = IPPDecoder.header(of: bytes) ?? IPPMessage(version: .v1_1, code: 0, requestID: 0)
        // Text sent as IPP has no IPP version to echo: answer in 1.1, which every client reads.
        if !(IPPVersion.v1_0...IPPVersion.v2_2).contains(header.version) { header.version = .v1_1 }
        return MiGPrinter.error(to: header, status, problem)
    }
}
