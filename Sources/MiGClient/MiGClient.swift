import IPP
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization
import Wire

/// The MiG print client an app ships: prints to Dispatcher Paragon's Mobile Integration Gateway
/// (`https://host:8050/ipp/print`) or any IPP Everywhere printer, over IPP or IPPS.
///
/// Every operation is one `POST` of an IPP message (`Content-Type: application/ipp`, `Authorization: Basic`) on
/// a fresh connection; Print-Job streams the document after the message. A busy printer (`server-error-busy`) or
/// a connection that drops before any answer is retried with exponential backoff. All waiting happens on the
/// node's event loop and clock, so the same code runs deterministically on the simulated wire and live.
public final class MiGClient: Sendable {
    /// How the client reaches MiG (URL, credentials, TLS, retries, time-outs), as it was created with.
    public let configuration: Configuration
    /// The node the client runs on: its network carries the exchanges, its clock times the waits and its random stream
    /// gives the backoff's jitter.
    public let node: Node
    /// Present when the configuration weakens security (accept-any TLS); shown to the user by the app.
    public let securityWarnings: [String]
    let tlsContext: NIOSSLContext?
    let requestIDs = Mutex<Int32>(0)

    /// The original app's `Accept` header, kept so MiG sees what the shipped app sends.
    static let acceptHeader = "text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2"
    /// Largest response read (a big printer's attributes are ~12 KB; a job list a few hundred KB).
    static let maxResponseBytes = 4 << 20

    /// A client that reaches MiG as `configuration` says, from `node`; it connects only when an operation runs.
    ///
    /// - throws: `.clientCertificate` when the PKCS#12 file is missing or the password is wrong;
    ///   `.invalidConfiguration` for unusable TLS settings.
    public init(configuration: Configuration, node: Node) throws(MiGError) {
        self.configuration = configuration
        self.node = node
        self.tlsContext = try MiGTLS.context(for: configuration)
        if configuration.endpoint.usesTLS, case .acceptAnyCertificate = configuration.trust {
            securityWarnings = [
                "TLS certificate verification is OFF for \(configuration.endpoint): anyone on the path can read documents and passwords"
            ]
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
        let request = OutgoingRequest(
            head: head, prefix: ByteBuffer(), document: nil, documentSize: nil, compression: .none,
            expectContinue: false, progress: nil, maxResponseBytes: 64 << 10)
        switch await exchange(request) {
        case .failure(let error):
            return .unreachable(error)
        case .success(let response):
            let text = String(buffer: response.body)
            if response.head.status == .ok, text.contains("MIG hello") { return .alive }
            return .notMiG(
                "GET / answered \(response.head.status.code) \(response.head.status.reasonPhrase) without \"MIG hello\""
                    + (text.isEmpty ? "" : ": \(text.prefix(80))"))
        }
    }

    /// Prints a document (Print-Job) and returns the job MiG created.
    ///
    /// - parameters:
    ///   - document: the document to print; its name is the job name unless the options give one.
    ///   - options: the job's attributes (copies, sides, media, …) and how the document is sent (format, framing,
    ///     compression).
    ///   - progress: called as document bytes go out (on the node's loop), with the total size.
    /// - throws: `MiGError`; a busy printer or a dropped connection is retried first (`.retriesExhausted`).
    public func print(
        _ document: Document, options: PrintOptions = PrintOptions(),
        progress: PrintProgress? = nil
    ) async throws(MiGError) -> SubmittedJob {
        if options.compression == .gzip, options.framing == .contentLength {
            throw .invalidConfiguration("gzip compression needs chunked framing: the compressed size is not known before sending")
        }
        if options.compression != .none, options.attributeSet == .original {
            throw .invalidConfiguration(
                "the original app's attribute set has no compression attribute: the printer could not know the document is gzipped")
        }
        let plainSize = try document.size()
        let size = options.compression == .gzip ? nil : plainSize
        let format = options.documentFormat ?? document.format ?? "application/octet-stream"
        let user = requestingUser(options)
        let jobName = options.jobName ?? document.name
        let printerURI = configuration.endpoint.printerURI
        let outcome = try await perform(document: document, documentSize: size, options: options, progress: progress) { id in
            if options.attributeSet == .original { return Self.originalPrintJob(jobName: jobName, options: options) }
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
        let response = try acceptedPrintJob(outcome.message)
        let job = response.group(.job)
        guard let id = job?.jobID ?? response.jobID else {
            throw .malformedResponse("the Print-Job response has no job-id")
        }
        let submitted = SubmittedJob(
            id: id, uri: job?.jobURI, state: job?[IPPAttributeName.jobState]?.integerValue.flatMap(IPPJobState.init(rawValue:)),
            stateReasons: job?[IPPAttributeName.jobStateReasons]?.stringValues ?? [], status: response.status,
            attempts: outcome.attempts, bytesSent: outcome.documentBytesSent)
        node.trace(
            "mig-client-job-submitted",
            [
                ("attempts", "\(outcome.attempts)"), ("bytes", "\(outcome.documentBytesSent)"),
                ("job-id", "\(id)"),
            ])
        return submitted
    }

    /// A successful Print-Job answer (or one the answer policy takes for a submitted job).
    private func acceptedPrintJob(_ message: IPPMessage) throws(MiGError) -> IPPMessage {
        if configuration.answers.acceptsUnsuccessfulPrintJob(message) { return message }
        return try Self.requireSuccess(message)
    }

    /// The original app's Print-Job, attribute for attribute (see `AttributeSet.original`). Its request-id is
    /// always 1: the original never changes it.
    static func originalPrintJob(jobName: String, options: PrintOptions) -> IPPMessage {
        var message = IPPMessage.request(.printJob, requestID: 1, version: .v1_1, charset: "us-ascii", naturalLanguage: "en-us") { op in
            op.addJobName(jobName)
            op.addIPPAttributeFidelity(options.fidelity)
        }
        message.addGroup(.job) { job in
            job.addCopies(options.copies)
            job.addSides(options.sides)
        }
        return message
    }

    /// Get-Job-Attributes: the job's state and reasons, and the impressions printed so far.
    ///
    /// - parameters:
    ///   - jobID: the job's `job-id`, as ``SubmittedJob/id`` gives it.
    ///   - countingSheets: also asks for `job-media-sheets-completed` (``JobStatus/mediaSheetsCompleted``),
    ///     a longer request and answer; without it the request is the one this client has always sent, so the bytes
    ///     on the wire (and a simulated run's trace) stay as they were.
    public func jobAttributes(_ jobID: Int32, countingSheets: Bool = false) async throws(MiGError) -> JobStatus {
        try await jobAttributes(jobID, countingSheets: countingSheets, timeLimit: nil)
    }

    func jobAttributes(_ jobID: Int32, countingSheets: Bool, timeLimit: TimeAmount?) async throws(MiGError) -> JobStatus {
        let printerURI = configuration.endpoint.printerURI
        let user = requestingUser(nil)
        let outcome = try await perform(timeLimit: timeLimit) { id in
            IPPMessage.request(.getJobAttributes, requestID: id) { op in
                op.addPrinterURI(printerURI)
                op.addJobID(jobID)
                op.addRequestingUserName(user)
                op.addRequestedAttributes(
                    [
                        IPPAttributeName.jobID, IPPAttributeName.jobState, IPPAttributeName.jobStateReasons,
                        "job-state-message", IPPAttributeName.jobName, "job-impressions-completed",
                    ] + (countingSheets ? ["job-media-sheets-completed"] : []))
            }
        }
        let response = try Self.requireSuccess(outcome.message)
        return JobStatus(id: jobID, job: response.group(.job))
    }

    /// Polls Get-Job-Attributes every `pollInterval` (node clock) until the job is completed, aborted or canceled.
    ///
    /// - parameters:
    ///   - jobID: the job's `job-id`, as ``SubmittedJob/id`` gives it.
    ///   - pollInterval: how long to wait after each answer before the next poll, on the node's clock.
    ///   - timeout: how long to wait in all for a final state, on the node's clock.
    ///   - countingSheets: each poll also asks for `job-media-sheets-completed` (see ``jobAttributes(_:countingSheets:)``).
    ///   - onChange: called with each new state or set of reasons (e.g. `media-empty` while the printer waits).
    /// - returns: the final status; check `state` for completed versus aborted or canceled.
    /// - throws: `.jobNotFinished` with the last state and reasons when `timeout` passes first — also while a poll
    ///   is still waiting for its answer (a poll never runs past the deadline: a partition cannot stretch the wait).
    public func waitForCompletion(
        _ jobID: Int32, pollInterval: TimeAmount = .seconds(1), timeout: TimeAmount = .seconds(300), countingSheets: Bool = false,
        onChange: (@Sendable (JobStatus) -> Void)? = nil
    ) async throws(MiGError) -> JobStatus {
        let deadline = node.clock.now.uptime + .nanoseconds(timeout.nanoseconds)
        var last: JobStatus?
        while true {
            let status: JobStatus
            do {
                let left = deadline - node.clock.now.uptime
                status = try await jobAttributes(jobID, countingSheets: countingSheets, timeLimit: .nanoseconds(max(1, left.nanosecondsValue)))
            } catch .timedOut where node.clock.now.uptime >= deadline {
                throw .jobNotFinished(jobID: jobID, state: last?.state, reasons: last?.stateReasons ?? [])
            }
            if status != last {
                node.trace(
                    "mig-client-job-state",
                    [
                        ("job-id", "\(jobID)"), ("reasons", status.stateReasons.joined(separator: ",")),
                        ("state", status.state.map { "\($0)" } ?? "unknown"),
                    ])
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
        try await jobOperation(.cancelJob, jobID)
        node.trace("mig-client-job-canceled", [("job-id", "\(jobID)")])
    }

    /// Hold-Job: the job waits, unprinted, until `release(_:)`.
    /// - throws: `.ipp(client-error-not-possible)` for a job that is already printing or finished.
    public func hold(_ jobID: Int32) async throws(MiGError) {
        try await jobOperation(.holdJob, jobID)
        node.trace("mig-client-job-held", [("job-id", "\(jobID)")])
    }

    /// Release-Job: a held job (`hold(_:)`, or printed with `PrintOptions.holdUntil`) prints in its turn.
    /// - throws: `.ipp(client-error-not-possible)` for a job that is not held.
    public func release(_ jobID: Int32) async throws(MiGError) {
        try await jobOperation(.releaseJob, jobID)
        node.trace("mig-client-job-released", [("job-id", "\(jobID)")])
    }

    /// An operation on one job that answers only with its status.
    private func jobOperation(_ operation: IPPOperation, _ jobID: Int32) async throws(MiGError) {
        let printerURI = configuration.endpoint.printerURI
        let user = requestingUser(nil)
        let outcome = try await perform { id in
            IPPMessage.request(operation, requestID: id) { op in
                op.addPrinterURI(printerURI)
                op.addJobID(jobID)
                op.addRequestingUserName(user)
            }
        }
        _ = try Self.requireSuccess(outcome.message)
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
        return ValidationResult(
            status: response.status,
            unsupportedAttributes: response.group(.unsupported)?.names ?? [])
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

        /// Whether MiG itself answered (``Liveness/alive``).
        public var isAlive: Bool { self == .alive }
    }
}

extension MiGError {
    /// A short, stable name for the trace.
    var traceReason: String {
        switch self {
        case .ipp(let status, _): "\(status)"
        case .connectionDropped: "connection-dropped"
        case .answerLost: "answer-lost"
        default: "\(self)"
        }
    }
}
