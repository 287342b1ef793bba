import IPP
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization
import Wire
#if canImport(Glibc)
import Glibc
#endif

/// The MiG print client an app ships: prints to Dispatcher Paragon's Mobile Integration Gateway
/// (`https://host:8050/ipp/print`) or any IPP Everywhere printer, over IPP or IPPS.
///
/// Every operation is one `POST` of an IPP message (`Content-Type: application/ipp`, `Authorization: Basic`) on
/// a fresh connection; Print-Job streams the document after the message. A busy printer (`server-error-busy`) or
/// a connection that drops before any answer is retried with exponential backoff. All waiting happens on the
/// node's event loop and clock, so the same code runs deterministically on the simulated wire and live.
public final class MiGClient: Sendable {
    public let configuration: Configuration
    public let node: Node
    /// Present when the configuration weakens security (accept-any TLS); shown to the user by the app.
    public let securityWarnings: [String]
    private let tlsContext: NIOSSLContext?
    private let requestIDs = Mutex<Int32>(0)

    /// The seed's `Accept` header, kept so MiG sees what the shipped app sends.
    static let acceptHeader = "text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2"
    /// Largest response read (a big printer's attributes are ~12 KB; a job list a few hundred KB).
    static let maxResponseBytes = 4 << 20

    /// - throws: `.clientCertificate` when the PKCS#12 file is missing or the password is wrong;
    ///   `.invalidConfiguration` for unusable TLS settings.
    public init(configuration: Configuration, node: Node) throws(MiGError) {
        self.configuration = configuration
        self.node = node
        self.tlsContext = try MiGTLS.context(for: configuration)
        if configuration.endpoint.usesTLS, case .acceptAnyCertificate = configuration.trust {
            securityWarnings = ["TLS certificate verification is OFF for \(configuration.endpoint): anyone on the path can read documents and passwords"]
            node.trace("mig-client-insecure-tls", [("url", configuration.endpoint.description)])
        } else {
            securityWarnings = []
        }
    }

    // MARK: Operations

    /// Whether MiG answers `GET /` with its "MIG hello" page.
    public func isAlive() async -> Liveness {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")
        addCommonHeaders(to: &head.headers)
        let request = OutgoingRequest(head: head, prefix: ByteBuffer(), document: nil, documentSize: nil, compression: .none,
                                      expectContinue: false, progress: nil, maxResponseBytes: 64 << 10)
        switch await exchange(request) {
        case .failure(let error):
            return .unreachable(error)
        case .success(let response):
            let text = String(buffer: response.body)
            if response.head.status == .ok, text.contains("MIG hello") { return .alive }
            return .notMiG("GET / answered \(response.head.status.code) \(response.head.status.reasonPhrase) without \"MIG hello\""
                + (text.isEmpty ? "" : ": \(text.prefix(80))"))
        }
    }

    /// Prints a document (Print-Job) and returns the job MiG created.
    ///
    /// - parameters:
    ///   - progress: called as document bytes go out (on the node's loop), with the total size.
    /// - throws: `MiGError`; a busy printer or a dropped connection is retried first (`.retriesExhausted`).
    public func print(_ document: Document, options: PrintOptions = PrintOptions(),
                      progress: PrintProgress? = nil) async throws(MiGError) -> SubmittedJob {
        if options.compression == .gzip, options.framing == .contentLength {
            throw .invalidConfiguration("gzip compression needs chunked framing: the compressed size is not known before sending")
        }
        let plainSize = try document.size()
        let size = options.compression == .gzip ? nil : plainSize
        let format = options.documentFormat ?? document.format ?? "application/octet-stream"
        let user = requestingUser(options)
        let jobName = options.jobName ?? document.name
        let printerURI = configuration.endpoint.printerURI
        let outcome = try await perform(document: document, documentSize: size, options: options, progress: progress) { id in
            var message = IPPMessage.request(.printJob, requestID: id) { op in
                op.addPrinterURI(printerURI)
                op.addRequestingUserName(user)
                op.addJobName(jobName)
                op.addIPPAttributeFidelity(options.fidelity)
                op.addDocumentFormat(format)
                if options.compression != .none { op.addCompression(options.compression.rawValue) }
            }
            message.addGroup(.job) { options.addJobTemplate(to: &$0) }
            return message
        }
        let response = try Self.requireSuccess(outcome.message)
        let job = response.group(.job)
        guard let id = job?.jobID ?? response.jobID else {
            throw .malformedResponse("the Print-Job response has no job-id")
        }
        let submitted = SubmittedJob(
            id: id, uri: job?.jobURI, state: job?[IPPAttributeName.jobState]?.integerValue.flatMap(JobState.init(rawValue:)),
            stateReasons: job?[IPPAttributeName.jobStateReasons]?.stringValues ?? [], status: response.status,
            attempts: outcome.attempts, bytesSent: outcome.documentBytesSent)
        node.trace("mig-client-job-submitted", [("attempts", "\(outcome.attempts)"), ("bytes", "\(outcome.documentBytesSent)"),
                                               ("job-id", "\(id)")])
        return submitted
    }

    /// Get-Job-Attributes: the job's state and reasons.
    public func jobAttributes(_ jobID: Int32) async throws(MiGError) -> JobStatus {
        let printerURI = configuration.endpoint.printerURI
        let user = requestingUser(nil)
        let outcome = try await perform { id in
            IPPMessage.request(.getJobAttributes, requestID: id) { op in
                op.addPrinterURI(printerURI)
                op.addJobID(jobID)
                op.addRequestingUserName(user)
                op.addRequestedAttributes([
                    IPPAttributeName.jobID, IPPAttributeName.jobState, IPPAttributeName.jobStateReasons,
                    "job-state-message", IPPAttributeName.jobName, "job-impressions-completed",
                ])
            }
        }
        let response = try Self.requireSuccess(outcome.message)
        return JobStatus(id: jobID, job: response.group(.job))
    }

    /// Polls Get-Job-Attributes every `pollInterval` (node clock) until the job is completed, aborted or canceled.
    ///
    /// - parameters:
    ///   - onChange: called with each new state or set of reasons (e.g. `media-empty` while the printer waits).
    /// - returns: the final status; check `state` for completed versus aborted or canceled.
    /// - throws: `.jobNotFinished` with the last state and reasons when `timeout` passes first.
    public func waitForCompletion(
        _ jobID: Int32, pollInterval: TimeAmount = .seconds(1), timeout: TimeAmount = .seconds(300),
        onChange: (@Sendable (JobStatus) -> Void)? = nil
    ) async throws(MiGError) -> JobStatus {
        let deadline = node.clock.now.uptime + .nanoseconds(timeout.nanoseconds)
        var last: JobStatus?
        while true {
            let status = try await jobAttributes(jobID)
            if status != last {
                node.trace("mig-client-job-state", [("job-id", "\(jobID)"), ("reasons", status.stateReasons.joined(separator: ",")),
                                                   ("state", status.state.map { "\($0)" } ?? "unknown")])
                onChange?(status)
                last = status
            }
            if status.state?.isFinal == true { return status }
            guard node.clock.now.uptime + .nanoseconds(pollInterval.nanoseconds) <= deadline else {
                throw .jobNotFinished(jobID: jobID, state: status.state, reasons: status.stateReasons)
            }
            await sleep(pollInterval)
        }
    }

    /// Cancel-Job. - throws: `.ipp(client-error-not-possible)` for a job that already finished.
    public func cancel(_ jobID: Int32) async throws(MiGError) {
        let printerURI = configuration.endpoint.printerURI
        let user = requestingUser(nil)
        let outcome = try await perform { id in
            IPPMessage.request(.cancelJob, requestID: id) { op in
                op.addPrinterURI(printerURI)
                op.addJobID(jobID)
                op.addRequestingUserName(user)
            }
        }
        _ = try Self.requireSuccess(outcome.message)
        node.trace("mig-client-job-canceled", [("job-id", "\(jobID)")])
    }

    /// Get-Printer-Attributes; `requested` nil asks for all.
    public func printerAttributes(requested: [String]? = nil) async throws(MiGError) -> PrinterDescription {
        let printerURI = configuration.endpoint.printerURI
        let user = requestingUser(nil)
        let outcome = try await perform { id in
            IPPMessage.request(.getPrinterAttributes, requestID: id) { op in
                op.addPrinterURI(printerURI)
                op.addRequestingUserName(user)
                if let requested { op.addRequestedAttributes(requested) }
            }
        }
        let response = try Self.requireSuccess(outcome.message)
        guard let printer = response.group(.printer) else {
            throw .malformedResponse("the Get-Printer-Attributes response has no printer attributes group")
        }
        return PrinterDescription(attributes: printer)
    }

    /// Validate-Job: would the printer accept a job with these options (and document format)?
    /// - throws: `.ipp` with the printer's status (e.g. attributes-or-values-not-supported) when it would not.
    public func validate(options: PrintOptions = PrintOptions(), documentFormat: String? = nil) async throws(MiGError) -> ValidationResult {
        let printerURI = configuration.endpoint.printerURI
        let user = requestingUser(options)
        let format = options.documentFormat ?? documentFormat
        let outcome = try await perform { id in
            var message = IPPMessage.request(.validateJob, requestID: id) { op in
                op.addPrinterURI(printerURI)
                op.addRequestingUserName(user)
                if let jobName = options.jobName { op.addJobName(jobName) }
                op.addIPPAttributeFidelity(options.fidelity)
                if let format { op.addDocumentFormat(format) }
            }
            message.addGroup(.job) { options.addJobTemplate(to: &$0) }
            return message
        }
        let response = try Self.requireSuccess(outcome.message)
        return ValidationResult(status: response.status,
                                unsupportedAttributes: response.group(.unsupported)?.names ?? [])
    }

    // MARK: Requests and retries

    struct Outcome {
        let message: IPPMessage
        let attempts: Int
        let documentBytesSent: Int64
    }

    /// Sends an IPP request (built afresh per attempt with a new request-id), retrying as the policy says. Requests
    /// without a document go with Content-Length and no 100-continue: they are small.
    func perform(
        document: Document? = nil, documentSize: Int64? = nil,
        options: PrintOptions = PrintOptions(framing: .contentLength, expectContinue: false),
        progress: PrintProgress? = nil, _ build: (Int32) -> IPPMessage
    ) async throws(MiGError) -> Outcome {
        let policy = configuration.retry
        var attempt = 0
        while true {
            attempt += 1
            let requestID = nextRequestID()
            let message = build(requestID)
            let prefix: [UInt8]
            do {
                prefix = try message.encoded()
            } catch {
                throw .invalidConfiguration("the \(message.operation) request cannot be encoded: \(error.message)")
            }
            var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: configuration.endpoint.path)
            addCommonHeaders(to: &head.headers)
            head.headers.add(name: "Content-Type", value: "application/ipp")
            if options.expectContinue { head.headers.add(name: "Expect", value: "100-continue") }
            switch options.framing {
            case .chunked: head.headers.add(name: "Transfer-Encoding", value: "chunked")
            case .contentLength: head.headers.add(name: "Content-Length", value: "\(Int64(prefix.count) + (documentSize ?? 0))")
            }
            node.trace("mig-client-request", [("attempt", "\(attempt)"), ("operation", "\(message.operation)"),
                                             ("request-id", "\(requestID)")])
            let request = OutgoingRequest(
                head: head, prefix: ByteBuffer(bytes: prefix), document: document, documentSize: documentSize,
                compression: options.compression, expectContinue: options.expectContinue, progress: progress, maxResponseBytes: Self.maxResponseBytes)

            let failure: MiGError
            switch await exchange(request) {
            case .success(let response):
                do {
                    let answer = try interpret(response, requestID: requestID)
                    node.trace("mig-client-response", [("http", "\(response.head.status.code)"), ("ipp", "\(answer.status)")])
                    if answer.status == .busy {
                        failure = .ipp(status: .busy, message: answer.statusMessage)
                    } else {
                        return Outcome(message: answer, attempts: attempt, documentBytesSent: response.documentBytesSent)
                    }
                } catch {
                    node.trace("mig-client-response", [("http", "\(response.head.status.code)")])
                    failure = error
                }
            case .failure(let error):
                failure = error
            }
            guard failure.isRetryable else { throw failure }
            guard attempt < policy.maxAttempts else {
                throw attempt == 1 ? failure : .retriesExhausted(attempts: attempt, last: failure)
            }
            let delay = backoff(afterAttempt: attempt)
            node.trace("mig-client-retry", [("after-attempt", "\(attempt)"), ("reason", failure.traceReason),
                                           ("wait", Duration.nanoseconds(delay.nanoseconds).workbenchText)])
            await sleep(delay)
        }
    }

    /// Opens a connection, runs one exchange on it and maps every failure to a `MiGError`.
    func exchange(_ request: OutgoingRequest) async -> Result<IncomingResponse, MiGError> {
        let endpoint = configuration.endpoint
        let promise = node.eventLoop.makePromise(of: IncomingResponse.self)
        let tlsContext = self.tlsContext
        let serverName = configuration.serverName ?? (endpoint.hostIsIPAddress ? nil : endpoint.host)
        let timeouts = configuration.timeouts
        do {
            _ = try await node.connect(host: endpoint.host, port: endpoint.port, timeout: timeouts.connect) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tlsContext {
                        try pipeline.addHandler(NIOSSLClientHandler(context: tlsContext, serverHostname: serverName))
                    }
                    try pipeline.addHandler(HTTPRequestEncoder())
                    try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(
                        leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .forward)))
                    try pipeline.addHandler(ExchangeHandler(
                        request: request, timeouts: timeouts, waitsForTLSHandshake: tlsContext != nil, promise: promise))
                }
            }.get()
        } catch {
            promise.fail(error)
            return .failure(Self.classify(error, endpoint: endpoint))
        }
        do {
            return .success(try await promise.futureResult.get())
        } catch {
            return .failure(Self.classify(error, endpoint: endpoint))
        }
    }

    /// Turns an HTTP answer into the IPP response, or the error its status means.
    func interpret(_ response: IncomingResponse, requestID: Int32) throws(MiGError) -> IPPMessage {
        let status = response.head.status
        switch status.code {
        case 200:
            if let type = response.head.headers.first(name: "Content-Type"), !type.lowercased().hasPrefix("application/ipp") {
                throw .malformedResponse("HTTP 200 with Content-Type \(type), expected application/ipp: is this URL MiG's /ipp/print?")
            }
            let message: IPPMessage
            do {
                message = try IPPDecoder().decode(Array(buffer: response.body))
            } catch {
                throw .malformedResponse("the IPP response cannot be decoded: \(error)")
            }
            guard message.requestID == requestID else {
                throw .malformedResponse("the IPP response has request-id \(message.requestID), expected \(requestID)")
            }
            return message
        case 401:
            throw .unauthorized(realm: Self.realm(of: response.head.headers.first(name: "WWW-Authenticate")))
        case 404:
            throw .notFound(path: configuration.endpoint.path)
        default:
            let text = String(decoding: response.body.readableBytesView.prefix(200), as: UTF8.self)
            // nginx with `ssl_verify_client on` completes TLS 1.3 without a client certificate and answers
            // "400 No required SSL certificate was sent" (or "…certificate error") at the HTTP level.
            if status.code == 400, text.contains("SSL certificate") {
                throw .tlsClientCertificateRejected("the TLS proxy answered 400: \(Self.htmlTitle(text) ?? text)")
            }
            throw .httpStatus(code: Int(status.code), reason: status.reasonPhrase,
                              body: text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    // MARK: Helpers

    private func addCommonHeaders(to headers: inout HTTPHeaders) {
        headers.add(name: "Host", value: configuration.endpoint.hostHeader)
        headers.add(name: "User-Agent", value: configuration.userAgent)
        headers.add(name: "Accept", value: Self.acceptHeader)
        if let credentials = configuration.credentials {
            headers.add(name: "Authorization", value: credentials.headerValue)
        }
        // One exchange per connection: polling is rare and a fresh connection has no stale state to recover from.
        headers.add(name: "Connection", value: "close")
    }

    private func requestingUser(_ options: PrintOptions?) -> String {
        options?.requestingUserName ?? configuration.requestingUserName ?? configuration.credentials?.user ?? "mobile"
    }

    private func nextRequestID() -> Int32 {
        requestIDs.withLock { counter in
            counter = counter == Int32.max ? 1 : counter + 1
            return counter
        }
    }

    private func backoff(afterAttempt attempt: Int) -> TimeAmount {
        let policy = configuration.retry
        let base = policy.delay(afterAttempt: attempt)
        guard policy.jitter > 0 else { return base }
        let extra = Double(base.nanoseconds) * policy.jitter * node.random.unit()
        return .nanoseconds(base.nanoseconds + Int64(extra))
    }

    /// Waits on the node's loop (virtual time under simulation).
    private func sleep(_ delay: TimeAmount) async {
        try? await node.eventLoop.scheduleTask(in: delay) {}.futureResult.get()
    }

    static func requireSuccess(_ message: IPPMessage) throws(MiGError) -> IPPMessage {
        guard message.status.isSuccessful else {
            throw .ipp(status: message.status, message: message.statusMessage)
        }
        return message
    }

    /// The `<title>` of an HTML error page (nginx's), if any.
    static func htmlTitle(_ text: String) -> String? {
        guard let open = text.range(of: "<title>"), let close = text.range(of: "</title>", range: open.upperBound..<text.endIndex) else {
            return nil
        }
        return String(text[open.upperBound..<close.lowerBound])
    }

    /// The realm of `WWW-Authenticate: Basic realm="MiG"`.
    static func realm(of header: String?) -> String? {
        guard let header, let range = header.range(of: "realm=", options: .caseInsensitive) else { return nil }
        let value = header[range.upperBound...]
        if value.hasPrefix("\"") {
            return String(value.dropFirst().prefix { $0 != "\"" })
        }
        return String(value.prefix { $0 != "," && $0 != " " })
    }

    static func classify(_ error: any Error, endpoint: MiGEndpoint) -> MiGError {
        let target = "\(endpoint.host):\(endpoint.port)"
        switch error {
        case let error as MiGError:
            return error
        case let error as WireError:
            switch error.kind {
            case .refused: return .connectionRefused(target)
            case .unknownHost: return .unknownHost(endpoint.host)
            case .timedOut: return .timedOut("connecting to \(target)")
            case .reset, .closed, .addressInUse: return .connectionDropped(error.description)
            }
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return .connectionRefused(target)
            case ETIMEDOUT: return .timedOut("the connection to \(target) timed out")
            default: return .connectionDropped("\(error)")
            }
        case ChannelError.connectTimeout:
            return .timedOut("connecting to \(target)")
        case let error where MiGTLS.isTLSError(error):
            if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl {
                return .connectionDropped("the server closed the TLS connection without an answer")
            }
            return MiGTLS.classify(error)
        case is HTTPParserError:
            return .malformedResponse("the answer is not HTTP/1.1: \(error)")
        default:
            return .connectionDropped("\(error)")
        }
    }
}

extension MiGClient {
    /// What `isAlive()` found.
    public enum Liveness: Sendable, Equatable {
        /// `GET /` answered "MIG hello".
        case alive
        /// Something answered, but not MiG (the text says what it answered).
        case notMiG(String)
        /// No HTTP answer at all.
        case unreachable(MiGError)

        public var isAlive: Bool { self == .alive }
    }
}

extension MiGError {
    /// A short, stable name for the trace.
    var traceReason: String {
        switch self {
        case .ipp(let status, _): "\(status)"
        case .connectionDropped: "connection-dropped"
        default: "\(self)"
        }
    }
}
