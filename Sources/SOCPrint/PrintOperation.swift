import Synchronization

/// One print, as the app's `PrintingViewController` runs it: one SSH connection, then the rows of the "Printing
/// Progress" dialog one after another — housekeeping, the converters (uploaded once, then recognised by digest),
/// the document, conversion, trimming, n-up, PostScript, `lpr` — with the app's titles, skip rules and failure alerts.
///
/// The flow reads only stdout of each command, as the app does (``SSHConnectivity/runCommand(_:)``): empty means
/// success, anything else is the failure's message. Nothing is deleted after printing; the next print's housekeeping
/// does it.
public final class PrintOperation: Sendable {
    /// Answers a question the flow asks (the mobile-data prompt, the cancel confirmation): true for "Yes".
    public typealias Ask = @Sendable (Alert) async -> Bool

    /// How a print ended: its status, the failed row and its alert if it failed, what was uploaded, and the
    /// dialog's final rows.
    public struct Outcome: Sendable {
        /// Whether the job reached the printer, stopped on an error, or was stopped.
        public enum Status: String, Sendable, CaseIterable {
            /// Every applicable row finished: `lpr` took the job without a word.
            case printed
            /// A row failed; ``PrintOperation/Outcome/failedStep`` and ``PrintOperation/Outcome/alert`` say which and why.
            case failed
            /// Cancel was confirmed, "No" was answered to the mobile-data prompt, or `run()` was called a second time.
            case cancelled
        }
        /// Whether the job was sent to the printer, failed at a row, or was cancelled.
        public let status: Status
        /// The failed row and the alert shown for it (title and message).
        public let failedStep: PrintStep?
        /// The alert shown for the failed row (the host's output, if any, as its message); nil unless the print failed.
        public let alert: Alert?
        /// Remote paths uploaded in full during this print, in order.
        public let uploaded: [String]
        /// The dialog's rows at the end.
        public let rows: [PrintRow]

        /// The dialog as the console shows it.
        public var dialog: String { PrintingText.dialog(rows, finished: true) }
    }

    private struct State {
        var rows: [PrintRow]
        var cancelled = false
        var started = false
        var finished = false
        var uploaded: [String] = []
    }

    /// What is printed: the document, printer, pages per sheet and page range the print screen checked.
    public let request: PrintRequest
    private let connectivity: SSHConnectivity
    private let converters: ConverterManifest
    private let transport: UploadTransport
    private let network: NetworkKind
    private let ask: Ask
    private let state: Mutex<State>
    private let continuation: AsyncStream<[PrintRow]>.Continuation

    /// The dialog's rows after every change, for a UI to bind to: the newest snapshot is kept when the reader is
    /// slower than the uploads (so intermediate byte counts may be skipped, never a row's final state). One reader.
    public let progress: AsyncStream<[PrintRow]>

    /// A print of `request`, not started yet: ``run()`` logs in and works through the rows.
    ///
    /// - parameters:
    ///   - connectivity: the SSH connection to the print host; ``run()`` logs in on it and closes it at the end.
    ///   - request: what to print: the document, printer, pages per sheet and page range.
    ///   - converters: the converter jars to upload when the host's copies are missing or differ, with their digests.
    ///   - transport: SCP as the iOS app (libssh2), SFTP as the Android app (JSch).
    ///   - network: the phone's network; on mobile data the converter upload asks first.
    ///   - ask: answers the mobile-data prompt and the cancel confirmation.
    public init(
        connectivity: SSHConnectivity, request: PrintRequest, converters: ConverterManifest,
        transport: UploadTransport = .scp, network: NetworkKind = .wifi, ask: @escaping Ask
    ) {
        self.connectivity = connectivity
        self.request = request
        self.converters = converters
        self.transport = transport
        self.network = network
        self.ask = ask
        state = Mutex(State(rows: Self.rows(for: request, converters: converters)))
        (progress, continuation) = AsyncStream.makeStream(of: [PrintRow].self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The dialog's rows now.
    public var rows: [PrintRow] { state.withLock { $0.rows } }

    /// The dialog as text, with "Cancel" while printing and "Close" after.
    public var dialog: String { state.withLock { PrintingText.dialog($0.rows, finished: $0.finished) } }

    /// The rows for a request, with their titles; rows that do not apply are `.skipped`.
    public static func rows(for request: PrintRequest, converters: ConverterManifest) -> [PrintRow] {
        let pdf = PrintPaths.isPDF(request.fileName)
        let perSheet = request.pagesPerSheet
        return PrintStep.allCases.map { step in
            let title: String
            var applies = true
            switch step {
            case .connecting: title = "Connecting to server"
            case .housekeeping: title = "Some housekeeping"
            case .uploadDocumentConverter:
                title = "Uploading DOC converter"
                applies = !pdf
            case .uploadFormatter:
                title = "Uploading PDF Formatter"
                applies = perSheet != .one
            case .uploadDocument: title = "Uploading \(request.fileName)"
            case .convertToPDF:
                title = "Converting to PDF"
                applies = !pdf
            case .trim:
                if case .custom(let first, let last) = request.range {
                    title = "Trim PDF to page \(first) to \(last)"
                } else {
                    title = "Trim PDF"
                    applies = false
                }
            case .format:
                title = "Formatting to \(perSheet.rawValue) pages/sheet"
                applies = perSheet != .one
            case .convertToPostScript: title = "Converting to Postscript"
            case .send: title = "Sending to \(request.printer)"
            }
            let total: Int64? =
                switch step {
                case .uploadDocumentConverter: converters.documentConverter.payload.size
                case .uploadFormatter: (perSheet == .six ? converters.multivalent : converters.nUp).payload.size
                case .uploadDocument: request.document.size
                default: nil
                }
            return PrintRow(step: step, title: title, state: applies ? .pending : .skipped, total: total)
        }
    }

    /// The Cancel button while printing: asks "Are you sure you want to cancel this print operation?" and on Yes
    /// stops the print — an upload in flight stops at its next chunk, a command in flight finishes first.
    ///
    /// - returns: whether the print was cancelled (No, or a print already over, leaves it alone).
    @discardableResult
    public func cancel() async -> Bool {
        guard !state.withLock({ $0.finished }) else { return false }
        guard await ask(.confirmCancel) else { return false }
        return state.withLock { state in
            guard !state.finished else { return false }
            state.cancelled = true
            return true
        }
    }

    private enum Stop: Error {
        case failed(PrintStep, Alert)
        case cancelled
    }

    /// Prints. A second call does nothing and answers `.cancelled` with the rows as they are.
    public func run() async -> Outcome {
        let again = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        if again { return Outcome(status: .cancelled, failedStep: nil, alert: nil, uploaded: [], rows: rows) }
        let outcome: Outcome.Status
        var failure: (step: PrintStep, alert: Alert)?
        do {
            try await steps()
            outcome = .printed
        } catch .failed(let step, let alert) {
            failure = (step, alert)
            outcome = .failed
        } catch {
            outcome = .cancelled
        }
        await connectivity.disconnect()
        let result = state.withLock { state -> Outcome in
            state.finished = true
            if let failure { state.rows[failure.step.rawValue].state = .failed }
            for index in state.rows.indices {
                if case .running = state.rows[index].state { state.rows[index].state = .pending }
            }
            return Outcome(status: outcome, failedStep: failure?.step, alert: failure?.alert, uploaded: state.uploaded, rows: state.rows)
        }
        continuation.yield(result.rows)
        continuation.finish()
        connectivity.node.trace(
            "print-finished",
            [
                ("file", request.fileName), ("printer", request.printer), ("status", outcome.rawValue),
                ("step", failure.map { result.rows[$0.step.rawValue].title } ?? ""),
            ])
        return result
    }

    private func steps() async throws(Stop) {
        let request = self.request
        let pdf = PrintPaths.isPDF(request.fileName)

        try begin(.connecting)
        let login = await connectivity.connect()
        guard login.serverFound else { throw .failed(.connecting, .serverUnreachable) }
        guard login.authorised else { throw .failed(.connecting, .credentialsWrong) }
        finish(.connecting)

        try begin(.housekeeping)
        for command in PrintPaths.housekeeping { _ = await connectivity.runCommand(command) }
        finish(.housekeeping)

        if !pdf {
            try await uploadConverter(
                converters.documentConverter, row: .uploadDocumentConverter, askOnMobileData: true,
                failure: "Upload of document converter failed")
        }
        if request.pagesPerSheet != .one {
            try await uploadConverter(
                request.pagesPerSheet == .six ? converters.multivalent : converters.nUp, row: .uploadFormatter,
                askOnMobileData: false, failure: "Upload of PDF formatter failed")
        }

        try begin(.uploadDocument, footer: PrintingText.uploadFooter(sent: 0, of: request.document.size))
        try await upload(
            request.document, to: PrintPaths.uploadPath(request.fileName), row: .uploadDocument, failure: "Upload of your document failed")

        // The app goes on from socPrint/source.pdf whatever the extension was ("x.pdfa" uploads as source.pdfa).
        var document = PrintPaths.directory + "source.pdf"
        if !pdf {
            try begin(.convertToPDF, footer: PrintingText.slowStep)
            let output = await connectivity.runCommand(PrintPaths.convertToPDF(request.fileName, converter: converters.documentConverter))
            guard output.isEmpty else { throw .failed(.convertToPDF, Alert("Converting your document to PDF failed", output)) }
            finish(.convertToPDF)
        }

        if case .custom(let first, let last) = request.range {
            try begin(.trim, footer: PrintingText.slowStep)
            let trim = PrintPaths.trim(from: first, to: last, input: document)
            let output = await connectivity.runCommand(trim.command)
            // Only Ghostscript's complaint about the first page counts; its other chatter is ignored, as in the app.
            if let phrase = output.range(of: "Requested FirstPage is greater than the number of pages in the file") {
                throw .failed(.trim, Alert("Trim PDF to page \(first) to \(last) failed", String(output[phrase.lowerBound...])))
            }
            document = trim.output
            finish(.trim)
        }

        if request.pagesPerSheet != .one {
            try begin(.format)
            let format = PrintPaths.format(request.pagesPerSheet, input: document, manifest: converters)
            _ = await connectivity.runCommand(format.command)
            document = format.output
            finish(.format)
        }

        try begin(.convertToPostScript, footer: PrintingText.slowStep)
        let converted = await connectivity.runCommand(PrintPaths.toPostScript(document, fileName: request.fileName))
        guard converted.isEmpty else { throw .failed(.convertToPostScript, Alert("Conversion to Postscript failed", converted)) }
        finish(.convertToPostScript)

        try begin(.send)
        let sent = await connectivity.runCommand(PrintPaths.send(printer: request.printer, fileName: request.fileName))
        guard sent.isEmpty else { throw .failed(.send, Alert("Printing command error", sent)) }
        finish(.send)
    }

    /// A converter row: cached when the host's `md5` starts with the manifest's digest, otherwise uploaded (after
    /// asking, for the document converter on mobile data — "No" ends the print without an error).
    private func uploadConverter(_ converter: ConverterManifest.Converter, row: PrintStep, askOnMobileData: Bool, failure: String) async throws(Stop)
    {
        let size = converter.payload.size
        try begin(row, footer: PrintingText.uploadFooter(sent: 0, of: size))
        let digest = await connectivity.runCommand(PrintPaths.md5(converter))
        if digest.hasPrefix(converter.md5) {
            connectivity.node.trace("converter-cached", [("file", converter.fileName)])
            state.withLock { $0.rows[row.rawValue].sent = size }
            finish(row, footer: PrintingText.uploadFooter(sent: size, of: size))
            return
        }
        if askOnMobileData && network == .wwan {
            guard await ask(.mobileData) else { throw .cancelled }
            try checkCancelled()
        }
        try await upload(converter.payload, to: converter.remotePath, row: row, failure: failure)
    }

    private func upload(_ source: UploadSource, to path: String, row: PrintStep, failure: String) async throws(Stop) {
        let ok = await connectivity.upload(source, to: path, transport: transport) { [self] sent in
            let footer = PrintingText.uploadFooter(sent: Int64(clamping: sent), of: source.size)
            let (rows, cancelled) = state.withLock { state in
                state.rows[row.rawValue].state = .running(footer: footer)
                state.rows[row.rawValue].sent = Int64(clamping: sent)
                return (state.rows, state.cancelled)
            }
            continuation.yield(rows)
            return !cancelled
        }
        try checkCancelled()
        guard ok else { throw .failed(row, Alert(failure, "")) }
        state.withLock { $0.uploaded.append(path) }
        finish(row, footer: PrintingText.uploadFooter(sent: source.size, of: source.size))
    }

    private func checkCancelled() throws(Stop) {
        if state.withLock({ $0.cancelled }) { throw .cancelled }
    }

    private func begin(_ step: PrintStep, footer: String? = nil) throws(Stop) {
        try checkCancelled()
        set(step, .running(footer: footer))
    }

    private func finish(_ step: PrintStep, footer: String? = nil) {
        let keep: String? = state.withLock { state in
            if case .running(let text) = state.rows[step.rawValue].state { return text }
            return nil
        }
        // A done row keeps its footer, "This could take a while..." included (as in the original app's screenshot).
        set(step, .done(footer: footer ?? keep))
    }

    private func set(_ step: PrintStep, _ rowState: PrintRow.State) {
        let rows = state.withLock { state in
            state.rows[step.rawValue].state = rowState
            return state.rows
        }
        continuation.yield(rows)
        let name = if case .running = rowState { "running" } else { "done" }
        connectivity.node.trace("print-step", [("row", rows[step.rawValue].title), ("state", name)])
    }
}
