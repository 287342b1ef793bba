import NIOCore
import NIOHTTP1
import NIOSSL
import SCPms
import Wire
import WireHTTP

/// What SAP Mobile Services answers an app: device registration (OData v2 `Connections`), the application
/// endpoint guarded by `X-SMP-APPCID` with the app's OData service behind it, Basic authentication with a
/// challenge, and client log upload — over HTTPS when ``Configuration/tls`` is set, and plain HTTP unless switched off.
///
/// Fault points: ``unavailableFault`` answers 503, ``internalErrorFault`` answers 500 (to any request) and fails
/// the store's write of an administrator's delete (``deleteRegistration(_:)``).
///
/// Live, each request is answered on the loop that holds its connection: the server's state is its database
/// (``RegistrationStore``, whose reads and commits run on the database's threads) and caches behind locks, with
/// nothing only the node's own loop may touch, so a request need not cross to that loop and back.
public final class SCPmsServer: Sendable {
    /// How the server is set up.
    public struct Configuration: Sendable {
        /// The HTTPS listener: its port and the server certificate (PEM) with its key.
        public struct TLS: Sendable {
            public var port: Int
            public var certificatePath: String
            public var privateKeyPath: String

            public init(port: Int = 443, certificatePath: String, privateKeyPath: String) {
                self.port = port
                self.certificatePath = certificatePath
                self.privateKeyPath = privateKeyPath
            }
        }

        /// The plain HTTP port (when ``servesPlainHTTP``).
        public var port: Int
        public var servesPlainHTTP = true
        /// nil: no HTTPS listener.
        public var tls: TLS?
        /// SQLite file; `nil` keeps registrations in memory.
        public var databasePath: String?
        /// An application and a user created at start (kept if they exist; the password is reset).
        public var applicationId: String
        public var user: String
        public var password: String
        public var logUploadEnabled: Bool
        /// Registration bodies are small; a larger one is refused with 413 (log uploads use the server's limit).
        public var maxRegistrationBytes: Int
        public var limits: HTTPServer.Limits

        public init(
            port: Int = 80, databasePath: String? = nil, applicationId: String = "com.workbench.demo",
            user: String = "demo", password: String = "password", logUploadEnabled: Bool = true,
            maxRegistrationBytes: Int = 16 * 1024, limits: HTTPServer.Limits = HTTPServer.Limits()
        ) {
            self.port = port
            self.databasePath = databasePath
            self.applicationId = applicationId
            self.user = user
            self.password = password
            self.logUploadEnabled = logUploadEnabled
            self.maxRegistrationBytes = maxRegistrationBytes
            self.limits = limits
        }
    }

    public static let unavailableFault = "scpms.unavailable"
    public static let internalErrorFault = "scpms.internal-error"
    /// The realm of the Basic challenge.
    public static let realm = "SAP Mobile Services"
    /// Most log lines accepted in one upload.
    public static let maxLogLines = 10_000

    public let node: Node
    public let configuration: Configuration
    public let store: RegistrationStore
    private let http: HTTPServer?
    private let https: HTTPServer?

    private init(node: Node, configuration: Configuration, store: RegistrationStore, http: HTTPServer?, https: HTTPServer?) {
        self.node = node
        self.configuration = configuration
        self.store = store
        self.http = http
        self.https = https
    }

    /// Opens the store, creates the configured application and user, and starts listening.
    public static func start(on node: Node, configuration: Configuration = Configuration()) async throws -> SCPmsServer {
        node.faults.declare(unavailableFault)
        node.faults.declare(internalErrorFault)
        let store = try RegistrationStore(path: configuration.databasePath, node: node)
        try store.putApplication(configuration.applicationId, logUploadEnabled: configuration.logUploadEnabled)
        try store.putUser(configuration.user, password: configuration.password, salt: node.secrets.bytes(PasswordHashing.saltBytes))
        guard configuration.servesPlainHTTP || configuration.tls != nil else {
            throw SCPmsServerError("neither plain HTTP nor HTTPS is configured; the server would not listen at all")
        }
        var https: HTTPServer?
        if let tls = configuration.tls {
            let context = try serverContext(tls)
            let routes = Routes(node: node, store: store, maxRegistrationBytes: configuration.maxRegistrationBytes, scheme: "https")
            https = try await HTTPServer.start(
                on: node, port: tls.port, limits: configuration.limits,
                setup: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addTLSServerHandler(NIOSSLServerHandler(context: context), node: node)
                    }
                },
                handlerLoop: .connection, handler: { request in await routes.answer(request) }
            ).get()
        }
        var http: HTTPServer?
        if configuration.servesPlainHTTP {
            let routes = Routes(node: node, store: store, maxRegistrationBytes: configuration.maxRegistrationBytes, scheme: "http")
            http = try await HTTPServer.start(on: node, port: configuration.port, limits: configuration.limits, handlerLoop: .connection) {
                request in await routes.answer(request)
            }.get()
        }
        node.trace(
            "started",
            [
                ("application", configuration.applicationId), ("https-port", https.map { "\($0.listener.port)" } ?? "none"),
                ("port", http.map { "\($0.listener.port)" } ?? "none"),
            ])
        return SCPmsServer(node: node, configuration: configuration, store: store, http: http, https: https)
    }

    private static func serverContext(_ tls: Configuration.TLS) throws -> NIOSSLContext {
        do {
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(tls.certificatePath).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: tls.privateKeyPath, format: .pem)))
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw SCPmsServerError("cannot load the server certificate \(tls.certificatePath) or key \(tls.privateKeyPath): \(error)")
        }
    }

    /// `https://host:port` when HTTPS is on, else `http://host:port` — the `{base}` of every SCPms URL.
    public var baseURL: String { httpsBaseURL ?? httpBaseURL ?? "" }
    /// The plain listener's `http://host:port`, if it runs.
    public var httpBaseURL: String? { http?.baseURL }
    /// The TLS listener's `https://host:port`, if it runs.
    public var httpsBaseURL: String? { https.map { "https://\($0.listener.host):\($0.listener.port)" } }

    /// The application endpoint `{base}/{appId}` with the demo credentials in it, ready for curl (HTTPS when on).
    public var applicationURLWithCredentials: String { withCredentials(baseURL) + "/\(configuration.applicationId)" }

    /// The same over plain HTTP, if that listener runs.
    public var plainApplicationURLWithCredentials: String? {
        httpBaseURL.map { withCredentials($0) + "/\(configuration.applicationId)" }
    }

    private func withCredentials(_ base: String) -> String {
        guard let separator = base.range(of: "://") else { return base }
        return String(base[..<separator.upperBound]) + "\(configuration.user):\(configuration.password)@" + String(base[separator.upperBound...])
    }

    /// Deletes a registration server-side (an administrator in the cockpit); returns whether it existed.
    ///
    /// The store's write can fail (``internalErrorFault``, as a locked database or a full disk would): it is tried
    /// once more, and a second failure is thrown as ``StoreWriteFailed`` — the registration stays, and the
    /// administrator is told. Each failed attempt is traced (`store-write-failed operation=delete`), so a run that
    /// came near the double failure shows it.
    @discardableResult
    public func deleteRegistration(_ id: String) throws -> Bool {
        if node.fault(Self.internalErrorFault) {
            node.trace("store-write-failed", [("attempt", "1"), ("id", id), ("operation", "delete")])
            if node.fault(Self.internalErrorFault) {
                node.trace("store-write-failed", [("attempt", "2"), ("id", id), ("operation", "delete")])
                if node.planted(.scpmsDeleteErrorSwallowed) {
                    // Planted bug: the second failure is dropped; the cockpit is told the registration is gone, while
                    // the row, and so the id, lives on.
                    node.trace("registration-deleted", [("by", "admin"), ("found", "true"), ("id", id)])
                    return true
                }
                node.trace("registration-delete-failed", [("by", "admin"), ("id", id)])
                throw StoreWriteFailed(operation: "delete", id: id)
            }
        }
        let deleted = try store.deleteConnection(id)
        node.trace("registration-deleted", [("by", "admin"), ("found", "\(deleted)"), ("id", id)])
        return deleted
    }

    /// The store failed a write twice (the attempt and its retry); nothing was changed.
    public struct StoreWriteFailed: Error, CustomStringConvertible {
        public let operation: String
        public let id: String
        public var description: String { "the store failed the \(operation) of registration \(id) twice (an internal error); it is unchanged" }
    }

    /// Adds a user (or changes their password).
    public func addUser(_ name: String, password: String) throws {
        try store.putUser(name, password: password, salt: node.secrets.bytes(PasswordHashing.saltBytes))
        node.trace("user-added", [("user", name)])
    }

    /// Adds an application (or switches its log upload).
    public func addApplication(_ id: String, logUploadEnabled: Bool) throws {
        try store.putApplication(id, logUploadEnabled: logUploadEnabled)
        node.trace("application-added", [("application", id), ("log-upload", logUploadEnabled ? "on" : "off")])
    }

    public func stop() async throws {
        try await http?.stop().get()
        try await https?.stop().get()
        node.trace("stopped")
    }
}

/// The server cannot start as configured.
public struct SCPmsServerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension PlantedBug {
    /// An administrator's delete whose store write fails twice (an internal error, and again on the one retry) is
    /// reported done instead of failed: the error is swallowed, the registration stays, and its id keeps opening sessions.
    public static let scpmsDeleteErrorSwallowed = PlantedBug("scpms.delete-error-swallowed")
}
