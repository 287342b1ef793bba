import NIOCore
import PercentEncoding
import Synchronization
import Wire

/// The NUS SOC Print app on one phone, without its UI: settings, the document handed to it ("Open In"), and the
/// operations behind its screens — print, status, delete, quota. Each operation opens its own connection.
public final class SOCPrintApp: Sendable {
    /// The app's name on the URL bus.
    public static let busName = "nus-soc-print"
    /// iOS hands "Open In" documents over as `file://` URLs into the app's `Documents/Inbox`.
    public static let inboxURLPrefix = "file:///Documents/Inbox/"

    /// The phone: its network carries every connection, its bus delivers "Open In" URLs, its trace records what happened.
    public let node: Node
    /// The Settings screen's values (credentials, extra printer, server) that every operation reads.
    public let settings: SettingsStore
    /// The converter jars (or stand-ins) the print flow uploads to the host, with their digests.
    public let converters: ConverterManifest
    /// Where the quota page is (mysoc) and how its certificate is trusted.
    public let quota: QuotaClient
    /// SCP as on iOS, SFTP as on Android.
    public let transport: UploadTransport
    /// Pin the print host's key (the app accepted any).
    public let hostKeyPolicy: SSHConnectivity.HostKeyPolicy

    private struct State {
        var inbox: [String: [UInt8]] = [:]
        var document: OpenedDocument?
        var waiting: [EventLoopPromise<OpenedDocument>] = []
        var rejected: [String] = []
    }
    private let state = Mutex(State())

    /// An app with empty settings that uploads over SCP and accepts any host key unless told otherwise, as the iOS app;
    /// call ``SOCPrintApp/registerForDocuments()`` for it to receive "Open In" files.
    public init(
        node: Node, converters: ConverterManifest, quota: QuotaClient, transport: UploadTransport = .scp,
        settings: SettingsStore = SettingsStore(), hostKeyPolicy: SSHConnectivity.HostKeyPolicy = .acceptAny
    ) {
        self.node = node
        self.converters = converters
        self.quota = quota
        self.transport = transport
        self.settings = settings
        self.hostKeyPolicy = hostKeyPolicy
    }

    // MARK: Open In

    /// Declares the document types the app opens: `file://` URLs arrive on the node's bus from then on.
    @discardableResult
    public func registerForDocuments() -> Bool {
        node.bus.register(scheme: "file", owner: Self.busName, on: node.eventLoop) { [self] url, sender in receive(url, from: sender) }
    }

    /// What the system does before calling the app: copies the file into the app's `Documents/Inbox`, and returns
    /// the URL it then opens. The name is percent-encoded in the URL.
    public func deliverToInbox(name: String, bytes: [UInt8]) -> String {
        state.withLock { $0.inbox[name] = bytes }
        return Self.inboxURLPrefix + Percent.encode(name)
    }

    /// The document the print screen shows, if one was handed over.
    public var document: OpenedDocument? { state.withLock { $0.document } }

    /// Waits for the next document handed over (after ``deliverToInbox(name:bytes:)`` and a bus `open`).
    public func nextDocument() -> EventLoopFuture<OpenedDocument> {
        let promise = node.eventLoop.makePromise(of: OpenedDocument.self)
        state.withLock { $0.waiting.append(promise) }
        return promise.futureResult
    }

    /// The app's `application(_:open:)`: takes the file out of the inbox (the app moves it to tmp and clears
    /// `Documents/Inbox`) and makes it the print screen's document. URLs outside the inbox, names with a path, and
    /// files of other types are refused and traced.
    private func receive(_ url: String, from sender: String) {
        guard url.hasPrefix(Self.inboxURLPrefix), let name = Percent.decode(String(url.dropFirst(Self.inboxURLPrefix.count))),
            !name.isEmpty, !name.contains("/"), name != ".", name != ".."
        else {
            return refuse(url, from: sender, "not a file in Documents/Inbox")
        }
        guard Self.documentTypes.contains(PrintPaths.fileExtension(name).lowercased()) else {
            return refuse(url, from: sender, "not a document type the app opens (pdf, doc, docx, ppt, pptx, odt)")
        }
        let (document, waiting) = state.withLock { state -> (OpenedDocument?, [EventLoopPromise<OpenedDocument>]) in
            guard let bytes = state.inbox.removeValue(forKey: name) else { return (nil, []) }
            state.inbox.removeAll()
            let document = OpenedDocument(name: name, source: .bytes(bytes))
            state.document = document
            defer { state.waiting.removeAll() }
            return (document, state.waiting)
        }
        guard let document else { return refuse(url, from: sender, "no such file in Documents/Inbox") }
        node.trace("document-opened", [("from", sender), ("name", name), ("bytes", String(document.source.size))])
        for promise in waiting { promise.succeed(document) }
    }

    /// Why a handed-over URL was not opened; whoever waits for a document learns it.
    public struct OpenInRefused: Error, CustomStringConvertible {
        /// The URL that was handed over; empty when nothing was (``SOCPrintApp/stopWaitingForDocuments()``).
        public let url: String
        /// Why it was not opened, e.g. "no such file in Documents/Inbox".
        public let reason: String
        /// The URL and the reason, e.g. `Open In refused file:///…: no such file in Documents/Inbox`.
        public var description: String { "Open In refused \(url): \(reason)" }
    }

    /// Fails whoever waits in ``nextDocument()`` (nothing will be handed over, e.g. the URL found no app).
    public func stopWaitingForDocuments() { failWaiting(OpenInRefused(url: "", reason: "nothing was handed over")) }

    private func refuse(_ url: String, from sender: String, _ reason: String) {
        node.trace("open-in-refused", [("from", sender), ("reason", reason), ("url", url)])
        failWaiting(OpenInRefused(url: url, reason: reason))
    }

    private func failWaiting(_ error: OpenInRefused) {
        let waiting = state.withLock { state in
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for promise in waiting { promise.fail(error) }
    }

    /// The types the app declares (its Info.plist): PDF, DOC, DOCX, PPT, PPTX, ODT.
    public static let documentTypes: Set<String> = ["pdf", "doc", "docx", "ppt", "pptx", "odt"]

    // MARK: Screens

    /// The printers the print screen offers: Settings' printer first.
    public var printers: [String] { Printers.list(custom: settings.printer) }

    /// A connection for one operation, to the server in Settings.
    public func connectivity() -> SSHConnectivity? {
        guard let credentials = settings.credentials, let server = settings.serverAddress else { return nil }
        return SSHConnectivity(
            host: server.host, port: server.port, user: credentials.user, password: credentials.password,
            node: node, hostKeyPolicy: hostKeyPolicy)
    }

    /// The Print button: the screen's checks, then the print operation (not started: call `run()`), or the alert.
    public func print(
        _ screen: PrintScreen, network: NetworkKind = .wifi, transport: UploadTransport? = nil,
        ask: @escaping PrintOperation.Ask
    ) -> Result<PrintOperation, Alert> {
        switch screen.check(settings: settings, document: document) {
        case .failure(let alert): return .failure(alert)
        case .success(let request):
            guard let connectivity = connectivity() else { return .failure(.notSetUp) }
            return .success(
                PrintOperation(
                    connectivity: connectivity, request: request, converters: converters,
                    transport: transport ?? self.transport, network: network, ask: ask))
        }
    }

    /// "Check Status".
    public func status() async -> PrinterQueues.Report {
        guard let connectivity = connectivity() else { return PrinterQueues.Report(text: "", alert: .credentialsMissing) }
        return await PrinterQueues.status(connectivity, printers: printers)
    }

    /// "Delete pending jobs".
    public func deletePendingJobs() async -> PrinterQueues.Report {
        guard let connectivity = connectivity() else { return PrinterQueues.Report(text: "", alert: .credentialsMissing) }
        return await PrinterQueues.deleteAll(connectivity, printers: printers)
    }

    /// The quota screen's refresh, with the credentials in Settings.
    public func refreshQuota() async -> QuotaClient.Report {
        await quota.refresh(user: settings.username, password: settings.password)
    }
}
