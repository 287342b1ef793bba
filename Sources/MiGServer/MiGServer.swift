import Foundation
import IPP
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization
import Wire
import WireHTTP

/// The Mobile Integration Gateway of Dispatcher Paragon as a simulated actor: IPP over HTTP/1.1 at
/// `/ipp/print`, IPPS on port 8050 like the real MiG (or plain HTTP behind a TLS proxy), Basic accounts, a
/// job spool in SQLite and a simulated printer behind it.
public final class MiGServer: @unchecked Sendable {
    // @unchecked Sendable: `printer` and `store` are used only on `node.eventLoop`, the actor's home loop (its
    // timers run there, and connections on other loops reach it through `node.onHome`); `accounts` never changes after
    // the start; the listeners are behind a lock.
    /// A MiG account as configured.
    public struct AccountSetting: Sendable {
        public var user: String
        public var password: String
        /// Requests must carry a valid client certificate forwarded by the TLS proxy (`SSL_CLIENT_CERT`).
        public var requiresClientCertificate: Bool

        public init(user: String, password: String, requiresClientCertificate: Bool = false) {
            self.user = user
            self.password = password
            self.requiresClientCertificate = requiresClientCertificate
        }
    }

    public struct Configuration: Sendable {
        /// IPPS (TLS) port; nil for none.
        public var tlsPort: Int? = 8050
        /// Plain HTTP port (for running behind a TLS proxy, or for tools without TLS); nil for none.
        public var plainPort: Int? = 631
        /// Server certificate chain and key (PEM files) for IPPS.
        public var certificatePath: String?
        public var privateKeyPath: String?
        /// The CA that issues client certificates, for accounts that require one (PEM file).
        public var clientCAPath: String?
        public var accounts = [AccountSetting(user: "demo", password: "demo-password")]
        public var realm = "MiG"
        public var printer = PrinterDescription()
        /// SQLite file of the spool; nil keeps it in memory.
        public var databasePath: String?
        /// Directory for document files; nil keeps only their size and digest.
        public var spoolDirectory: String?
        /// Keep a document in the spool once its job has ended (cupsd's `PreserveJobFiles Yes`); by default it is
        /// removed when the job is completed, canceled or aborted, and only the job's record stays.
        public var preserveJobFiles = false
        /// How many jobs the spool keeps, finished ones included (cupsd's `MaxJobs`, 500 by default; 0: no limit).
        /// A new job beyond it makes the oldest finished job be forgotten (its record and its document); when all
        /// are still active, the new job is refused with server-error-too-many-jobs.
        public var maxJobs = 500
        /// fsync documents, the spool directory and commits (group-committed, see `JobStore`) before answering:
        /// acknowledged jobs then survive a power loss, not only `kill -9` (which they always survive). Off here
        /// (simulation keeps the spool in memory); `workbench serve` turns it on.
        public var syncToDisk = false
        /// The secret MiG's TLS proxy sends in `X-MiG-Proxy-Secret` with every request it forwards. A forwarded
        /// `SSL_CLIENT_CERT` is believed only with it: the certificate itself is public, so a header anyone can
        /// type proves nothing. nil: forwarded certificates are never believed (clients must present theirs in
        /// the TLS handshake on MiG's IPPS port).
        public var proxySecret: String?
        /// Get-Printer-Attributes and Validate-Job are answered without credentials; job operations still need them.
        public var anonymousDiscovery = false
        /// How long a connection may wait before sending a request head.
        public var headerTimeout: TimeAmount = .seconds(30)
        /// How long an upload may pause between two chunks.
        public var bodyIdleTimeout: TimeAmount = .seconds(30)
        /// How long after its head a request's IPP attributes must be complete, however steadily they trickle.
        public var attributesTimeout: TimeAmount = .seconds(60)
        /// How long after its attributes a request's document must be complete: 1 GiB at 1 MB/s fits.
        public var documentTimeout: TimeAmount = .seconds(3_600)

        public init() {}
    }

    public let node: Node
    public let configuration: Configuration
    let printer: MiGPrinter
    let store: JobStore
    let decoder = IPPDecoder()
    let certificateCheck: ClientCertificateCheck?
    /// The accounts by name, as configured (read on every connection's loop, to authenticate without the actor).
    let accounts: [String: Account]
    private let listeners: NIOLockedValueBox<[(scheme: String, listener: any Listener)]>
    /// Set by ``crash()``: its process is gone, so its connections end without it doing anything more.
    let crashed = Atomic(false)

    private init(
        node: Node, configuration: Configuration, store: JobStore, printer: MiGPrinter, certificateCheck: ClientCertificateCheck?,
        accounts: [String: Account]
    ) {
        self.node = node
        self.accounts = accounts
        self.configuration = configuration
        self.store = store
        self.printer = printer
        self.certificateCheck = certificateCheck
        listeners = NIOLockedValueBox([])
    }

    /// Opens the spool (recovering jobs interrupted by a crash), then listens.
    /// Every fault point MiG checks: the printer's device problems, a job that aborts, the printer too busy to accept,
    /// a document it cannot interpret.
    public static let faultPoints =
        PrintEngine.deviceFaults.map(\.point) + [PrintEngine.abortFault, MiGPrinter.busyFault, MiGPrinter.documentFormatFault]

    /// The IPP operations MiG answers (its `operations-supported`), by name.
    public static var operationNames: [String] { PrinterDescription.operations.compactMap(\.name) }

    public static func start(on node: Node, configuration: Configuration = Configuration()) -> EventLoopFuture<MiGServer> {
        node.eventLoop.flatSubmit {
            // Files and SQLite on the blocking threads (inline under simulation), the printer on the actor's loop.
            node.blocking { try Spool.open(on: node, configuration: configuration) }.flatMap { spool in
                let server = make(on: node, configuration: configuration, spool: spool)
                return server.listen().map { server }
            }
        }
    }

    /// What MiG keeps on disk, opened: the job store (jobs read back, interrupted ones recovered), the accounts, the
    /// document spool and the client CA.
    private struct Spool: Sendable {
        let store: JobStore
        let accounts: [String: Account]
        let recovered: (requeued: Int, aborted: Int)
        let documents: any DocumentSpool
        let certificateCheck: ClientCertificateCheck?

        static func open(on node: Node, configuration: Configuration) throws -> Spool {
            let store = try JobStore(
                path: configuration.databasePath, syncToDisk: configuration.syncToDisk, node: node, maxJobs: configuration.maxJobs)
            var accounts: [String: Account] = [:]
            for account in configuration.accounts {
                let salt = node.secrets.bytes(8).map { String(format: "%02x", $0) }.joined()
                accounts[account.user] = try store.setAccount(
                    user: account.user, password: account.password, salt: salt,
                    requiresClientCertificate: account.requiresClientCertificate)
            }
            let recovered = try store.recoverAfterRestart()
            let limit = configuration.printer.maxDocumentBytes
            // Read after the recovery, which only changes states: the files the records still name.
            let named = Set(store.jobs().compactMap { $0.documentPath.map { URL(fileURLWithPath: $0).lastPathComponent } })
            let documents: any DocumentSpool =
                try configuration.spoolDirectory.map { directory -> any DocumentSpool in
                    // A simulated node's documents go on its simulated disk, never the machine's.
                    if let disk = node.disk {
                        // Planted bug: the record is synced before the answer, the document file left to the OS.
                        let syncs = configuration.syncToDisk && !node.planted(.migDocumentLeftUnsynced)
                        return try DiskSpool(directory: directory, disk: disk, limit: limit, syncToDisk: syncs, documents: named)
                    }
                    return try FileSpool(directory: directory, limit: limit, syncToDisk: configuration.syncToDisk, documents: named)
                } ?? DigestSpool(limit: limit)
            let check = try configuration.clientCAPath.map { try ClientCertificateCheck(caPEM: String(contentsOfFile: $0, encoding: .utf8)) }
            return Spool(store: store, accounts: accounts, recovered: recovered, documents: documents, certificateCheck: check)
        }
    }

    private static func make(on node: Node, configuration: Configuration, spool: Spool) -> MiGServer {
        let orphans = spool.documents.orphansRemoved
        if spool.recovered.requeued + spool.recovered.aborted + orphans > 0 {
            node.trace(
                "spool-recovered",
                [("aborted", "\(spool.recovered.aborted)"), ("orphans-removed", "\(orphans)"), ("requeued", "\(spool.recovered.requeued)")])
        }
        let printer = MiGPrinter(
            node: node, description: configuration.printer, store: spool.store, spool: spool.documents,
            preservesDocuments: configuration.preserveJobFiles)
        let server = MiGServer(
            node: node, configuration: configuration, store: spool.store, printer: printer, certificateCheck: spool.certificateCheck,
            accounts: spool.accounts)
        printer.engine.kick()
        return server
    }

    private func listen() -> EventLoopFuture<Void> {
        var started: [EventLoopFuture<(String, any Listener)>] = []
        if let port = configuration.tlsPort {
            do {
                guard let certificate = configuration.certificatePath, let key = configuration.privateKeyPath else {
                    throw MiGServerError("IPPS needs certificatePath and privateKeyPath")
                }
                var tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
                if let clientCA = configuration.clientCAPath {
                    // Mutual TLS for deployments without a proxy: ask for a client certificate (naming the CA), take
                    // the connection without one. The handshake proves the client holds the key; whether the
                    // certificate is acceptable is decided per account by `certificateCheck`, on the node's clock.
                    tls.certificateVerification = .optionalVerification
                    tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(clientCA))
                }
                let context = try NIOSSLContext(configuration: tls)
                started.append(listen(port: port, scheme: "ipps", tls: context))
            } catch {
                return node.eventLoop.makeFailedFuture(error)
            }
        }
        if let port = configuration.plainPort {
            started.append(listen(port: port, scheme: "ipp", tls: nil))
        }
        return EventLoopFuture.whenAllSucceed(started, on: node.eventLoop).map { bound in
            self.listeners.withLockedValue { $0 = bound.map { (scheme: $0.0, listener: $0.1) } }
            self.node.trace("started", bound.map { ($0.0, "\($0.1.port)") })
        }
    }

    static let receiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 2048, initial: 64 * 1024, maximum: 256 * 1024)

    private func listen(port: Int, scheme: String, tls: NIOSSLContext?) -> EventLoopFuture<(String, any Listener)> {
        // Connections on every loop: TLS, HTTP framing, IPP decoding and the document's bytes use every core; the
        // handler reaches the printer through `node.onHome`.
        node.listen(port: port, connections: .every) { [self] channel in
            channel.eventLoop.makeCompletedFuture {
                // Documents arrive in reads of 64 KiB from the first one (NIO starts every connection at 2 KiB and
                // doubles: a Print-Job on a new connection took six reads and three spool writes to reach 64 KiB),
                // and up to 256 KiB once the client keeps the socket full. The read-ahead bound is unchanged.
                try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.receiveBuffers)
                if let tls {
                    // BoringSSL would check the chain on the wall clock; MiG checks it on the node's, per account.
                    try channel.pipeline.syncOperations.addTLSServerHandler(
                        NIOSSLServerHandler(context: tls) { _, verdict in
                            verdict.succeed(.certificateVerified)
                        }, node: node)
                }
                try channel.pipeline.syncOperations.addHandler(HeaderUnfolder())
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(answeringBadRequestsOf: node)
                try channel.pipeline.syncOperations.addHandler(MiGHTTPHandler(server: self, scheme: scheme))
            }
        }.map { (scheme, $0) }
    }

    var host: String { listeners.withLockedValue { $0.first?.listener.host } ?? node.name }

    func port(scheme: String) -> Int { listeners.withLockedValue { $0.first { $0.scheme == scheme }?.listener.port } ?? 0 }

    /// URLs clients use as-is: `ipps://demo:…@host:8050/ipp/print` (with the first account's credentials, as
    /// ipptool takes them) and the plain one.
    public var endpoints: [(label: String, url: String)] {
        let credentials = configuration.accounts.first.map { "\($0.user):\($0.password)@" } ?? ""
        return listeners.withLockedValue { listeners in
            listeners.map { ($0.scheme, "\($0.scheme)://\(credentials)\($0.listener.host):\($0.listener.port)/ipp/print") }
        }
    }

    /// The authenticated user, or the refusal to send.
    /// - parameter presented: the DER certificate the client presented in the TLS handshake on the IPPS port.
    func authenticate(_ headers: HTTPHeaders, presented: [UInt8]?) -> Result<String, MiGHTTPHandler.Reply> {
        let challenge: HTTPHeaders = ["WWW-Authenticate": "Basic realm=\"\(configuration.realm)\""]
        let credentials: BasicCredentials
        switch BasicCredentials.parse(headers.first(name: "Authorization")) {
        case .missing:
            return .failure(
                .init(status: .unauthorized, headers: challenge, body: "authentication required: send the Basic credentials of a MiG account"))
        case .malformed(let why):
            return .failure(.init(status: .unauthorized, headers: challenge, body: "unusable Authorization header: \(why)"))
        case .valid(let valid):
            credentials = valid
        }
        guard let account = accounts[credentials.user], account.accepts(password: credentials.password) else {
            node.trace("auth-failed", [("user", credentials.user)])
            return .failure(.init(status: .unauthorized, headers: challenge, body: "wrong user name or password"))
        }
        if account.requiresClientCertificate {
            guard let check = certificateCheck else {
                return .failure(
                    .init(status: .forbidden, body: "account \(account.user) requires a client certificate, but MiG has no client CA configured"))
            }
            let now = Date(timeIntervalSince1970: Double(node.clock.unixSeconds))
            let verdict: Result<String, CertificateProblem>
            if let presented {
                verdict = check.check(der: presented, now: now)
            } else if let forwarded = headers.first(name: "SSL_CLIENT_CERT") ?? headers.first(name: "SSL-Client-Cert") {
                verdict = fromTrustedProxy(headers) ? check.check(forwarded: forwarded, now: now) : .failure(.notFromProxy)
            } else {
                verdict = .failure(.missing)
            }
            switch verdict {
            case .failure(let problem):
                node.trace("certificate-refused", [("user", account.user)])
                return .failure(.init(status: .forbidden, body: "account \(account.user) requires a valid client certificate: \(problem)"))
            case .success(let subject):
                // Whose certificate opened the account, and how it arrived: a deployment's audit line.
                node.trace("certificate-accepted", [("subject", subject), ("user", account.user), ("via", presented == nil ? "proxy" : "handshake")])
            }
        }
        return .success(account.user)
    }

    /// Whether the request carries the proxy's secret (compared in constant time).
    private func fromTrustedProxy(_ headers: HTTPHeaders) -> Bool {
        guard let secret = configuration.proxySecret, !secret.isEmpty, let presented = headers.first(name: "X-MiG-Proxy-Secret") else {
            return false
        }
        return secretsMatch(presented, secret)
    }

    /// Jobs as the spool holds them (for scenarios and tests).
    public func jobs() throws -> [Job] { store.jobs() }

    /// The hex SHA-256 of the document file `job` names, read back from the node's simulated disk: what a restart
    /// would print. Nil when the spool keeps no such file there (digests only, the machine's files, or no document).
    ///
    /// - throws: `DiskError` when the record names a file the disk does not hold or cannot read.
    public func documentDigestOnDisk(of job: Job) throws(DiskError) -> String? {
        guard let spool = printer.spool as? DiskSpool, let path = job.documentPath else { return nil }
        return try spool.digest(of: path)
    }

    /// Stops listening and printing; the spool stays on disk. Completes once every change made before is committed,
    /// so the wire can shut down under it without a write in flight.
    public func stop() -> EventLoopFuture<Void> {
        let listeners = self.listeners.withLockedValue { $0 }
        node.trace("stopped")
        return node.eventLoop.flatSubmit {
            self.printer.engine.stop()
            for timer in self.printer.documentTimers.values { timer.cancel() }
            return EventLoopFuture.andAllComplete(listeners.map { $0.listener.close() }, on: self.node.eventLoop)
                .flatMap { self.store.flush() }
        }
    }
}

extension MiGServer {
    /// Stops at once, as the process dying would (a scenario's `crash`): the printer stops mid-page and no document
    /// timer fires, and nothing is flushed: what the spool's database had not synced is for the node's disk to keep or
    /// lose. The world resets the connections and closes the ports.
    public func crash() -> EventLoopFuture<Void> {
        crashed.store(true, ordering: .releasing)
        return node.eventLoop.submit {
            self.printer.engine.stop()
            for timer in self.printer.documentTimers.values { timer.cancel() }
        }
    }
}

public struct MiGServerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
