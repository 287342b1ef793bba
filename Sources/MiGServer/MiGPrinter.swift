import IPP
import NIOCore
import Wire

/// Who is asking, and how they reached the printer.
public struct Caller: Sendable {
    /// The authenticated account; empty for an anonymous caller.
    public var user: String
    public var address: PrinterAddress
    /// False when the request came without credentials and MiG lets discovery through anyway
    /// (`anonymous-discovery`): such a caller may only ask what the printer is.
    public var authenticated = true
}

/// What the printer does with a request whose attributes have arrived.
enum Admission {
    /// Answer now (after the rest of the body, which must be empty).
    case answer(IPPMessage)
    /// Stream the rest of the body into this job's document, then answer.
    case document(DocumentIntake)
    /// The caller came without credentials and the operation needs them: HTTP 401, so the client resends with them.
    case credentialsRequired
}

/// The IPP service of MiG: every operation of a Mopria / IPP Everywhere print path, over the job spool and
/// the print engine. Requests arrive decoded (the HTTP layer streams documents); answers are IPP messages.
/// Confined to the node's event loop.
final class MiGPrinter {
    let node: Node
    let description: PrinterDescription
    let store: JobStore
    let spool: any DocumentSpool
    let engine: PrintEngine
    static let busyFault = "mig.busy"
    /// The printer's interpreter fails on the next document: its job is aborted with document-format-error.
    static let documentFormatFault = "mig.document-format-error"
    /// Operations an anonymous caller may use with `anonymous-discovery`: they tell what the printer is and would
    /// accept, and touch no job.
    static let anonymousOperations: Set<IPPOperation> = [.getPrinterAttributes, .validateJob]
    /// The multiple-operation-time-out timer of each job made by Create-Job that waits for its next document.
    var documentTimers: [Int64: NodeTimer] = [:]
    /// The job created last, kept only under the planted bug that answers an upload with it (see `documentReceived`).
    private var newestJob: Int64?

    init(node: Node, description: PrinterDescription, store: JobStore, spool: any DocumentSpool, preservesDocuments: Bool) {
        var description = description
        if description.uuid == nil { description.uuid = PrinterDescription.uuid(host: node.name, name: description.name) }
        self.node = node
        self.description = description
        self.store = store
        self.spool = spool
        engine = PrintEngine(node: node, store: store, description: description, spool: spool, preservesDocuments: preservesDocuments)
        node.faults.declare(Self.busyFault)
        node.faults.declare(Self.documentFormatFault)
    }

    func admit(_ request: IPPMessage, caller: Caller) -> Admission {
        if let problem = request.validateRequest() {
            return .answer(Self.error(to: request, problem.status, problem.message))
        }
        guard let printerURI = request.printerURI ?? request.jobURI else {
            return .answer(Self.error(to: request, .badRequest, "Missing required printer-uri operation attribute."))
        }
        guard uriNamesThisPrinter(printerURI) else {
            return .answer(Self.error(to: request, .notFound, "\(printerURI) is not a printer here; MiG prints at \(caller.address.printerURI)."))
        }
        guard caller.authenticated || Self.anonymousOperations.contains(request.operation) else { return .credentialsRequired }
        do {
            switch request.operation {
            case .printJob: return try printJob(request, caller)
            case .validateJob: return .answer(try validateJob(request, caller))
            case .createJob: return .answer(try createJob(request, caller))
            case .sendDocument: return try sendDocument(request, caller)
            case .getPrinterAttributes: return .answer(getPrinterAttributes(request, caller))
            case .getJobs: return .answer(try getJobs(request, caller))
            case .getJobAttributes: return .answer(try getJobAttributes(request, caller))
            case .cancelJob: return .answer(try cancelJob(request, caller))
            case .cancelMyJobs: return .answer(try cancelMyJobs(request, caller))
            case .holdJob: return .answer(try holdJob(request, caller))
            case .releaseJob: return .answer(try releaseJob(request, caller))
            case .closeJob: return .answer(try closeJob(request, caller))
            case .identifyPrinter: return .answer(identifyPrinter(request, caller))
            default:
                return .answer(Self.error(to: request, .operationNotSupported, "Operation \(request.operation) is not supported by MiG."))
            }
        } catch let refusal as Refusal {
            return .answer(refusal.response)
        } catch {
            node.trace("spool-error", [("error", "\(error)")])
            return .answer(Self.error(to: request, .internalError, "The job spool failed: \(error)"))
        }
    }

    /// An IPP error answer (status-message kept within its 255 octets).
    static func error(to request: IPPMessage, _ status: IPPStatus, _ message: String) -> IPPMessage {
        IPPMessage.response(to: request, status: status, statusMessage: String(message.utf8.prefix(255)) ?? String(message.prefix(120)))
    }

    /// A request refused with a ready answer.
    struct Refusal: Error {
        let response: IPPMessage
        init(_ request: IPPMessage, _ status: IPPStatus, _ message: String) { response = MiGPrinter.error(to: request, status, message) }
        init(response: IPPMessage) { self.response = response }
    }

    /// A job's own URI path, `/ipp/print/N` (its job-uri): IPP requests POSTed there are served like the printer's.
    static func isJobPath(_ path: String) -> Bool {
        guard path.hasPrefix("/ipp/print/") else { return false }
        let id = path.dropFirst("/ipp/print/".count)
        return !id.isEmpty && id.count <= 18 && id.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    private func uriNamesThisPrinter(_ uri: String) -> Bool {
        guard let schemeEnd = uri.range(of: "://") else { return false }
        let afterAuthority = uri[schemeEnd.upperBound...].drop { $0 != "/" }
        return afterAuthority == "/ipp/print" || afterAuthority.hasPrefix("/ipp/print/")
    }

    // MARK: Job creation

    private func refuseWhenBusy(_ request: IPPMessage) throws(Refusal) {
        if node.fault(Self.busyFault) {
            throw Refusal(request, .busy, "The printer is busy; try again later.")
        }
    }

    /// A new job, pending until its document has arrived (held too, with job-hold-until=indefinite); `reason`
    /// says what it waits for. Refused with server-error-too-many-jobs when the spool keeps max-jobs jobs and none
    /// of them has finished (cupsd's `MaxJobs`).
    private func newJob(_ request: IPPMessage, _ ticket: Ticket, caller: Caller, reason: String) throws(Refusal) -> Job {
        let held = ticket.template.holdUntil != "no-hold"
        let inserted = store.insert { id in
            Job(
                id: id, name: ticket.name, user: caller.user,
                stateValue: (held ? IPPJobState.pendingHeld : .pending).rawValue,
                reasonList: held ? "\(reason) \(Self.heldReason)" : reason, format: ticket.format,
                compression: ticket.compression, copies: ticket.copies, sides: ticket.sides, media: ticket.media,
                pageRanges: ticket.pageRanges.map { "\($0.lower)-\($0.upper)" }.joined(separator: ","),
                documentBytes: 0, documentDigest: nil, documentPath: nil, documentCount: 0,
                awaitingDocuments: true, impressions: 0, impressionsCompleted: 0, template: ticket.template.stored, pages: nil,
                createdAt: node.clock.unixSeconds, processingAt: nil, completedAt: nil)
        }
        guard let (job, forgotten) = inserted else {
            throw Refusal(request, .tooManyJobs, "Too many active jobs: the spool keeps \(store.maxJobs) (max-jobs) and none has finished.")
        }
        for var old in forgotten {
            node.trace("job-forgotten", [("job", "\(old.id)")])
            engine.removeForgottenDocument(of: &old)
        }
        if node.planted(.migAnswerNamesNewestJob) { newestJob = job.id }
        return job
    }

    private func printJob(_ request: IPPMessage, _ caller: Caller) throws -> Admission {
        // Planted bug: the busy check moves to after the document (see `documentReceived`).
        if !node.planted(.migBusyAfterQueueing) { try refuseWhenBusy(request) }
        let ticket = try ticket(for: request)
        let job = try newJob(request, ticket, caller: caller, reason: "job-incoming")
        node.trace("job-created", [("format", ticket.format), ("job", "\(job.id)"), ("user", caller.user)])
        return try intake(job, request: request, caller: caller, last: true, ticket: ticket)
    }

    private func intake(_ job: Job, request: IPPMessage, caller: Caller, last: Bool, ticket: Ticket?) throws -> Admission {
        var writer = try spool.open(jobID: job.id, document: job.documentCount + 1)
        // Pages are counted from what the printer prints: the document after decompression.
        writer = PageCountingWriter(inner: writer, format: job.format, readsSpoolFile: spool.keepsFiles)
        if job.compression == "gzip" { writer = try GzipInflatingWriter(inner: writer) }
        return .document(
            DocumentIntake(
                printer: self, job: job, request: request, caller: caller, writer: writer, last: last,
                unsupported: ticket?.unsupported ?? []))
    }

    /// Called by the intake when the whole document has arrived; the answer, on `answerLoop`, once the job's record
    /// is durable.
    func documentReceived(_ intake: DocumentIntake, _ document: SpooledDocument, answerOn answerLoop: any EventLoop) -> EventLoopFuture<IPPMessage> {
        var job = intake.job
        // The state as the spool has it now: the job may have been held or canceled while its document arrived.
        if let stored = store.job(id: job.id) {
            job.stateValue = stored.stateValue
            job.reasonList = stored.reasonList
            job.template = stored.template
            job.completedAt = stored.completedAt
        }
        job.documentCount += 1
        job.documentBytes += document.bytes
        job.documentDigest = document.digest
        job.documentPath = document.path
        job.formatDetected = document.detectedFormat
        if node.fault(Self.documentFormatFault) {
            return answerLoop.makeSucceededFuture(
                documentFormatError(intake, job, "the printer could not interpret the \(job.format) document (fault \(Self.documentFormatFault))"))
        }
        switch document.pages {
        case .counted(let pages):
            // A raster page is laid out for one size of paper: printed on another it would come out cut or shrunk.
            if let size = document.pageSizes.first(where: { description.media(forPageSize: $0) == nil }) {
                let (width, length) = size.hundredthsOfMillimetre
                let millimetres = { (hundredths: Int) in "\((hundredths + 5) / 100).\((hundredths + 5) / 10 % 10)" }
                let why =
                    "a page is \(size.width)×\(size.length) pt (\(millimetres(width))×\(millimetres(length)) mm), "
                    + "none of the media MiG has (media-supported: \(description.media.joined(separator: ", ")))"
                return answerLoop.makeSucceededFuture(documentFormatError(intake, job, why))
            }
            job.pages = Int32(clamping: pages)
        case .unreadable("application/octet-stream", let why):
            // Auto-sensing found no format MiG prints: refused as RFC 8011 says of application/octet-stream the
            // printer cannot handle (as ippeveprinter refuses it), never printed as a page guessed from its size.
            return answerLoop.makeSucceededFuture(
                documentFormatError(intake, job, why, reason: "unsupported-document-format", status: .documentFormatNotSupported))
        case .unreadable(_, let why):
            return answerLoop.makeSucceededFuture(documentFormatError(intake, job, why))
        case .unexamined:
            break
        }
        if intake.last {
            job.awaitingDocuments = false
            job.impressions = impressions(for: job)
            if !job.state.isFinal { job.reasons = job.state == .pendingHeld ? [Self.heldReason] : [] }
        } else if !job.state.isFinal {
            job.reasons = job.reasons.filter { $0 != "job-incoming" && $0 != "job-data-insufficient" } + ["job-data-insufficient"]
            armDocumentTimer(job.id)
        }
        let received = job
        // Acknowledged only once durable: the job then survives a crash (and with sync-to-disk a power loss). Until then
        // it is not received and does not print; a commit that failed aborts it, so it never prints behind the error
        // the client is told. (Under simulation the commit is inline: all of this runs now, in this order.)
        return store.update(job).map { [self] () -> IPPMessage in
            node.trace(
                "document-received",
                [
                    ("bytes", "\(document.bytes)"), ("digest", String((document.digest ?? "stored").prefix(16))),
                    ("job", "\(received.id)"),
                ])
            engine.kick()
            if node.planted(.migBusyAfterQueueing), intake.request.operation == .printJob, node.fault(Self.busyFault) {
                return Self.error(to: intake.request, .busy, "The printer is busy; try again later.")
            }
            // The answer tells the job's state now: processing if the printer took it at once. (Planted bug: the job
            // answered is the printer's newest, another client's when two uploads overlap.)
            let answered = node.planted(.migAnswerNamesNewestJob) ? newestJob ?? received.id : received.id
            let current = store.job(id: answered) ?? received
            let status: IPPStatus = intake.unsupported.isEmpty ? .successfulOK : .successfulOKIgnoredOrSubstitutedAttributes
            var response = IPPMessage.response(to: intake.request, status: status)
            addUnsupported(intake.unsupported, to: &response)
            addJobSummary(current, intake.caller, to: &response)
            return response
        }.recover { [self] error in
            abortUnstored(received.id, error)
            return Self.error(to: intake.request, .internalError, "The job spool failed: \(error)")
        }.hop(to: answerLoop)
    }

    /// The commit that was to hold a job's document failed, and its client is told so: the job is aborted, in the spool
    /// as far as it still takes writes and at once in memory, so it never prints.
    private func abortUnstored(_ id: Int64, _ error: any Error) {
        guard var job = store.job(id: id), !job.state.isFinal else { return }
        disarmDocumentTimer(id)
        job.state = .aborted
        job.reasons = ["aborted-by-system"]
        job.completedAt = node.clock.unixSeconds
        engine.removeDocument(of: &job)
        save(job)
        node.trace("document-refused", [("error", "the job spool failed: \(error)"), ("job", "\(id)")])
        engine.forget(id)
    }

    /// The document does not read as its format: the job is aborted with document-format-error (or, when no format
    /// was recognised in it at all, unsupported-document-format), and the answer says why.
    private func documentFormatError(
        _ intake: DocumentIntake, _ job: Job, _ why: String, reason: String = "document-format-error",
        status: IPPStatus = .documentFormatError
    ) -> IPPMessage {
        var job = job
        job.state = .aborted
        job.reasons = [reason]
        job.awaitingDocuments = false
        job.completedAt = node.clock.unixSeconds
        engine.removeDocument(of: &job)
        disarmDocumentTimer(job.id)
        save(job)
        node.trace(reason, [("job", "\(job.id)"), ("why", why)])
        var response = Self.error(to: intake.request, status, "Job \(job.id) aborted (\(reason)): \(why).")
        addJobSummary(job, intake.caller, to: &response)
        return response
    }

    /// Called by the intake when the document could not be taken: the job is aborted, nothing half-stored.
    func documentFailed(_ intake: DocumentIntake, _ error: SpoolError) -> IPPMessage {
        var job = intake.job
        job.state = .aborted
        job.reasons = [error.isCompression ? "compression-error" : "aborted-by-system"]
        job.completedAt = node.clock.unixSeconds
        save(job)
        node.trace("document-refused", [("error", "\(error)"), ("job", "\(job.id)")])
        let status: IPPStatus =
            switch error {
            case .tooLarge: .requestEntityTooLarge
            case .compression: .compressionError
            case .storage: .internalError
            }
        return Self.error(to: intake.request, status, "Job \(job.id) aborted: \(error).")
    }

    /// The upload ended without a complete document (connection lost): the job never existed for the client.
    func documentAbandoned(_ intake: DocumentIntake) {
        var job = intake.job
        job.state = .aborted
        job.reasons = ["aborted-by-system"]
        job.completedAt = node.clock.unixSeconds
        save(job)
        node.trace("upload-abandoned", [("job", "\(job.id)")])
    }

    /// Impressions printed: the document's own page count when it was counted (else one per bytes-per-page of it),
    /// the selected page-ranges of it, `number-up` of them on each impression, times copies. Sides change sheets, not
    /// impressions.
    private func impressions(for job: Job) -> Int32 {
        let estimate = max(1, (job.documentBytes + description.bytesPerPage - 1) / description.bytesPerPage)
        let pages = job.pages.map(Int64.init) ?? estimate
        var selected = pages
        if !job.pageRanges.isEmpty {
            selected = job.pageRanges.split(separator: ",").reduce(0) { total, range in
                let bounds = range.split(separator: "-").compactMap { Int64($0) }
                guard bounds.count == 2 else { return total }
                return total + max(0, min(bounds[1], pages) - bounds[0] + 1)
            }
        }
        let numberUp = Int64(JobTemplate(stored: job.template)["number-up"]?.first?.integerValue ?? 1)
        let perCopy = (max(1, selected) + numberUp - 1) / max(1, numberUp)
        return Int32(clamping: perCopy * Int64(job.copies))
    }

    private func validateJob(_ request: IPPMessage, _ caller: Caller) throws -> IPPMessage {
        try refuseWhenBusy(request)
        let ticket = try ticket(for: request)
        var response = IPPMessage.response(
            to: request, status: ticket.unsupported.isEmpty ? .successfulOK : .successfulOKIgnoredOrSubstitutedAttributes)
        addUnsupported(ticket.unsupported, to: &response)
        return response
    }

    private func createJob(_ request: IPPMessage, _ caller: Caller) throws -> IPPMessage {
        try refuseWhenBusy(request)
        let ticket = try ticket(for: request)
        let job = try newJob(request, ticket, caller: caller, reason: "job-data-insufficient")
        node.trace("job-created", [("format", ticket.format), ("job", "\(job.id)"), ("user", caller.user)])
        armDocumentTimer(job.id)
        var response = IPPMessage.response(
            to: request, status: ticket.unsupported.isEmpty ? .successfulOK : .successfulOKIgnoredOrSubstitutedAttributes)
        addUnsupported(ticket.unsupported, to: &response)
        addJobSummary(job, caller, to: &response)
        return response
    }

    private func sendDocument(_ request: IPPMessage, _ caller: Caller) throws -> Admission {
        var job = try ownedJob(request, caller)
        guard let last = request.operationAttributes?.lastDocument else {
            throw Refusal(request, .badRequest, "Missing required last-document operation attribute.")
        }
        guard job.awaitingDocuments, !job.state.isFinal else {
            throw Refusal(request, .notPossible, "Job \(job.id) is not waiting for documents (it is \(job.state.keyword)).")
        }
        guard job.documentCount == 0 else {
            throw Refusal(request, .multipleDocumentJobsNotSupported, "Job \(job.id) already has its document; MiG prints one document per job.")
        }
        if let format = request.documentFormat {
            guard description.documentFormats.contains(format) else {
                throw Refusal(request, .documentFormatNotSupported, "Document format \(format) is not supported.")
            }
            job.format = format
        }
        if let compression = request.compression {
            guard description.compressions.contains(compression) else {
                throw Refusal(request, .compressionNotSupported, "Compression \(compression) is not supported; expected none or gzip.")
            }
            job.compression = compression
        }
        job.reasons = job.reasons.filter { $0 != "job-data-insufficient" } + ["job-incoming"]
        // The document is on its way: the upload's own time-outs bound it from here.
        disarmDocumentTimer(job.id)
        return try intake(job, request: request, caller: caller, last: last, ticket: nil)
    }

    private func closeJob(_ request: IPPMessage, _ caller: Caller) throws -> IPPMessage {
        var job = try ownedJob(request, caller)
        guard job.awaitingDocuments, !job.state.isFinal else {
            throw Refusal(request, .notPossible, "Job \(job.id) is already closed (it is \(job.state.keyword)).")
        }
        disarmDocumentTimer(job.id)
        if job.documentCount == 0 {
            job.state = .aborted
            job.reasons = ["aborted-by-system"]
            job.completedAt = node.clock.unixSeconds
        } else {
            job.reasons = job.state == .pendingHeld ? [Self.heldReason] : []
            job.impressions = impressions(for: job)
        }
        job.awaitingDocuments = false
        store.update(job)
        engine.kick()
        var response = IPPMessage.response(to: request, status: .successfulOK)
        addJobSummary(job, caller, to: &response)
        return response
    }

    // MARK: Queries

    private func status() throws -> PrinterStatus {
        let queued = store.count(states: [.pending, .pendingHeld, .processing, .processingStopped])
        let now = node.clock.unixSeconds
        var reasons = ["none"]
        var message = engine.current == nil ? "Idle." : "Printing."
        if let stopped = engine.stopped {
            reasons = [stopped.reason]
            message = stopped.message
        }
        return PrinterStatus(
            state: engine.printerState, reasons: reasons, message: message, queuedJobs: queued,
            upTime: now, now: IPPDateTime(unixSeconds: now), stateChangeTime: engine.stateChangeTime,
            configChangeTime: engine.startedAt, pagesPrinted: engine.pagesPrinted)
    }

    private func getPrinterAttributes(_ request: IPPMessage, _ caller: Caller) -> IPPMessage {
        guard let status = try? status() else { return Self.error(to: request, .internalError, "The job spool failed.") }
        let requested = Set(request.requestedAttributes ?? ["all"])
        let everything = requested.contains("all")
        var response = IPPMessage.response(to: request, status: .successfulOK)
        response.addGroup(.printer) { group in
            for attribute in description.attributes(status: status, address: caller.address) {
                let named = requested.contains(attribute.name)
                let inGroup =
                    switch attribute.group {
                    case .description: requested.contains("printer-description")
                    case .template: requested.contains("job-template")
                    }
                // media-col-database lists every medium in full, so PWG 5100.7 returns it only when asked for by
                // name, never for `all` or `job-template` (get-printer-attributes-suite.test checks both).
                if attribute.name == "media-col-database" && !named { continue }
                if everything || named || inGroup { group.add(attribute.name, values: attribute.values) }
            }
        }
        return response
    }

    private func getJobs(_ request: IPPMessage, _ caller: Caller) throws -> IPPMessage {
        // job-ids (PWG 5100.11, advertised by job-ids-supported) names the jobs; then which-jobs defaults to all.
        let ids = request.operationAttributes?["job-ids"]?.integerValues
        let which = request.operationAttributes?.whichJobs ?? (ids == nil ? "not-completed" : "all")
        let states: [IPPJobState]?
        switch which {
        case "not-completed": states = [.pending, .pendingHeld, .processing, .processingStopped]
        case "completed": states = [.canceled, .aborted, .completed]
        case "all": states = nil
        case "aborted": states = [.aborted]
        case "canceled": states = [.canceled]
        case "pending": states = [.pending]
        case "pending-held": states = [.pendingHeld]
        case "processing": states = [.processing, .processingStopped]
        default:
            throw Refusal(
                response: unsupportedResponse(
                    request, .attributesOrValuesNotSupported,
                    "which-jobs '\(which)' is not supported; expected one of \(PrinterDescription.whichJobs.joined(separator: ", ")).",
                    request.operationAttributes?[IPPAttributeName.whichJobs]))
        }
        let mine = request.operationAttributes?.myJobs ?? false
        let limit = request.operationAttributes?.limit.map { Int(max(0, $0)) }
        // Finished jobs newest first, others in the order they will print (as CUPS lists them).
        var jobs = store.jobs(states: states, user: mine ? caller.user : nil, limit: ids == nil ? limit : nil, newestFirst: which == "completed")
        if let ids {
            jobs = Array(jobs.filter { ids.contains(Int32(clamping: $0.id)) }.prefix(limit ?? Int.max))
        }
        let requested = request.requestedAttributes ?? ["job-id", "job-uri"]
        var response = IPPMessage.response(to: request, status: .successfulOK)
        for job in jobs {
            response.addGroup(.job) { group in addJobAttributes(job, caller, requested: requested, to: &group) }
        }
        return response
    }

    private func getJobAttributes(_ request: IPPMessage, _ caller: Caller) throws -> IPPMessage {
        let job = try anyJob(request)
        var response = IPPMessage.response(to: request, status: .successfulOK)
        response.addGroup(.job) { group in
            addJobAttributes(job, caller, requested: request.requestedAttributes ?? ["all"], to: &group)
        }
        return response
    }

    // MARK: Cancel and identify

    private func cancelJob(_ request: IPPMessage, _ caller: Caller) throws -> IPPMessage {
        var job = try ownedJob(request, caller)
        guard !job.state.isFinal else {
            throw Refusal(request, .notPossible, "Job \(job.id) is already \(job.state.keyword) and cannot be canceled.")
        }
        cancel(&job, by: caller.user)
        return IPPMessage.response(to: request, status: .successfulOK)
    }

    private func cancel(_ job: inout Job, by user: String) {
        // The pages printed so far stay counted: a counter a client has read never goes back.
        if engine.current == job.id { job.impressionsCompleted = engine.printed }
        disarmDocumentTimer(job.id)
        job.state = .canceled
        job.reasons = ["job-canceled-by-user"]
        job.completedAt = node.clock.unixSeconds
        engine.removeDocument(of: &job)
        save(job)
        node.trace("job-canceled", [("by", user), ("job", "\(job.id)")])
        engine.forget(job.id)
    }

    private func cancelMyJobs(_ request: IPPMessage, _ caller: Caller) throws -> IPPMessage {
        var jobs = store.jobs(states: [.pending, .pendingHeld, .processing, .processingStopped], user: caller.user)
        if let ids = request.operationAttributes?["job-ids"]?.integerValues {
            jobs = jobs.filter { ids.contains(Int32(clamping: $0.id)) }
        }
        for var job in jobs { cancel(&job, by: caller.user) }
        return IPPMessage.response(to: request, status: .successfulOK)
    }

    private func identifyPrinter(_ request: IPPMessage, _ caller: Caller) -> IPPMessage {
        let actions = request.operationAttributes?["identify-actions"]?.stringValues ?? ["display"]
        node.trace("identify", [("actions", actions.joined(separator: ",")), ("by", caller.user)])
        return IPPMessage.response(to: request, status: .successfulOK)
    }

    // MARK: Job lookup and description

    /// Records a change nobody waits for (the answer does not depend on it being durable yet); a failed write is traced.
    func save(_ job: Job) {
        store.update(job).whenFailure { [node] error in node.trace("spool-error", [("error", "\(error)")]) }
    }

    /// The job named by job-id (with printer-uri) or job-uri.
    func anyJob(_ request: IPPMessage) throws -> Job {
        let operation = request.operationAttributes
        var id: Int64?
        if let jobID = operation?.jobID {
            id = Int64(jobID)
        } else if let uri = operation?.jobURI {
            id = uri.split(separator: "/").last.flatMap { Int64($0) }
        }
        guard let id else { throw Refusal(request, .badRequest, "Missing required job-id (with printer-uri) or job-uri operation attribute.") }
        guard id > 0, let job = store.job(id: id) else { throw Refusal(request, .notFound, "Job #\(id) does not exist.") }
        return job
    }

    func ownedJob(_ request: IPPMessage, _ caller: Caller) throws -> Job {
        let job = try anyJob(request)
        guard job.user == caller.user else {
            throw Refusal(request, .notAuthorized, "Job \(job.id) belongs to another user.")
        }
        return job
    }
}

extension PlantedBug {
    /// MiG decides the printer is too busy only after it queued the Print-Job and took its document, and answers
    /// server-error-busy: the client retries, and the document prints twice.
    public static let migBusyAfterQueueing = PlantedBug("mig.busy-after-queueing")
    /// MiG keeps the job it is receiving in one printer-wide field, as a printer with one input would, and answers an
    /// upload with the job created last: when two clients' uploads overlap, the first is told the second's job.
    public static let migAnswerNamesNewestJob = PlantedBug("mig.answer-names-newest-job")
}
