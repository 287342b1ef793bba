import NIOCore
import NIOHTTP1
import SCPms
import Wire
import WireHTTP

/// What SAP Mobile Services answers an app: device registration (OData v2 `Connections`), the application
/// endpoint guarded by `X-SMP-APPCID`, Basic authentication with a challenge, and client log upload.
///
/// Fault points: ``unavailableFault`` answers 503, ``internalErrorFault`` answers 500 (to any request).
public final class SCPmsServer: Sendable {
    /// How the server is set up.
    public struct Configuration: Sendable {
        public var port: Int
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

        public init(port: Int = 80, databasePath: String? = nil, applicationId: String = "com.workbench.demo",
                    user: String = "demo", password: String = "password", logUploadEnabled: Bool = true,
                    maxRegistrationBytes: Int = 16 * 1024, limits: HTTPServer.Limits = HTTPServer.Limits()) {
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
    private let http: HTTPServer

    private init(node: Node, configuration: Configuration, store: RegistrationStore, http: HTTPServer) {
        self.node = node
        self.configuration = configuration
        self.store = store
        self.http = http
    }

    /// Opens the store, creates the configured application and user, and starts listening.
    public static func start(on node: Node, configuration: Configuration = Configuration()) async throws -> SCPmsServer {
        node.faults.declare(unavailableFault)
        node.faults.declare(internalErrorFault)
        let store = try RegistrationStore(path: configuration.databasePath)
        try store.putApplication(configuration.applicationId, logUploadEnabled: configuration.logUploadEnabled)
        try store.putUser(configuration.user, password: configuration.password, salt: node.secrets.bytes(16))
        let routes = Routes(node: node, store: store, maxRegistrationBytes: configuration.maxRegistrationBytes)
        let http = try await HTTPServer.start(on: node, port: configuration.port, limits: configuration.limits) { request in
            routes.answer(request)
        }.get()
        node.trace("started", [("application", configuration.applicationId), ("port", "\(http.listener.port)")])
        return SCPmsServer(node: node, configuration: configuration, store: store, http: http)
    }

    /// `http://host:port` — the `{base}` of every SCPms URL.
    public var baseURL: String { http.baseURL }
    public var host: String { http.listener.host }
    public var port: Int { http.listener.port }

    /// The application endpoint `{base}/{appId}` with the demo credentials in it, ready for curl.
    public var applicationURLWithCredentials: String {
        "http://\(configuration.user):\(configuration.password)@\(host):\(port)/\(configuration.applicationId)"
    }

    /// Deletes a registration server-side (an administrator in the cockpit); returns whether it existed.
    @discardableResult
    public func deleteRegistration(_ id: String) throws -> Bool {
        let deleted = try store.deleteConnection(id, applicationId: nil)
        node.trace("registration-deleted", [("by", "admin"), ("found", "\(deleted)"), ("id", id)])
        return deleted
    }

    /// Adds a user (or changes their password).
    public func addUser(_ name: String, password: String) throws {
        try store.putUser(name, password: password, salt: node.secrets.bytes(16))
        node.trace("user-added", [("user", name)])
    }

    /// Adds an application (or switches its log upload).
    public func addApplication(_ id: String, logUploadEnabled: Bool) throws {
        try store.putApplication(id, logUploadEnabled: logUploadEnabled)
        node.trace("application-added", [("application", id), ("log-upload", logUploadEnabled ? "on" : "off")])
    }

    public func stop() async throws {
        try await http.stop().get()
        node.trace("stopped")
    }
}
