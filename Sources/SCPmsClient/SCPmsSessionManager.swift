import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import SCPms
import Synchronization
import URLSessionHTTP
import Wire
import WireHTTP

/// The app side of SAP Mobile Services: starts a session (checks the stored registration with
/// `X-SMP-APPCID`, registers the device when there is none or the server forgot it), answers the server-trust
/// challenge of an `https://` backend as configured and the Basic challenge with the stored credentials, keeps
/// the app's root log at the original app's level and uploads it on demand and when the session ends, and hands out an
/// OData provider for the app's service (``createODataProvider(withName:)``).
///
/// Rewritten from the original `SCPSessionManager` (gist robypag/fcce9711…). Where it deviates, the code says
/// why; in short: the registration sends its body and treats only a transport *error* as a failure (the original's
/// guard was inverted), no optional response is force-unwrapped, either empty credential is refused, and a
/// refused id leads to a new registration instead of a dead end.
///
/// Two surfaces: `async` methods that return or throw, and the delegate, told of every outcome by both.
public final class SCPmsSessionManager: Sendable {
    /// Where and as what the app talks to SCPms.
    public struct Configuration: Sendable {
        /// `https://host[:port][/prefix]` (or `http://`) — the `{base}` (the original's `cpmsUrlString`).
        public var backendURL: String
        /// How an `https://` backend's certificate is judged; the original accepts any (a warning goes in the trace).
        public var serverTrust: SCPmsServerTrust
        /// The device's name: the original's `UIDevice.current.name`, sent as `UserName` in the registration body.
        public var deviceName: String
        /// What the registration POST carries: the original's `registrationInfo` dictionary, or nothing at all (what
        /// the original actually sent: it built the dictionary and never attached it).
        public var registrationBody: RegistrationBody
        /// The root logger's level (the original sets `Logger.root.logLevel = .error`).
        public var logLevel: ClientLogLine.Severity
        /// The application's id on SCPms (e.g. `com.workbench.demo`), part of every path: 1…128 letters, digits,
        /// `.`, `-`, `_`.
        public var applicationId: String
        /// Sent as `DeviceType` / `DeviceModel` (the original read them from `UIDevice`).
        public var deviceType: String
        /// Sent as `DeviceModel` in the registration body, e.g. `iOS 17.5`.
        public var deviceModel: String
        /// Register again, once, when the application endpoint refuses the stored id.
        public var registersAgainWhenRefused: Bool
        /// How many times a 503 is retried, and after how long.
        public var serviceUnavailableRetries: Int
        /// How long to wait before each retry of a 503.
        public var retryDelay: Duration
        /// Per HTTP exchange.
        public var timeout: Duration
        /// What the requests go through: the project's NIO client (both wirings), or `URLSession` as the original app
        /// (live only; for `https://`, only with ``SCPmsServerTrust/systemDefault`` — docs/urlsession.md says why).
        public var httpStack: HTTPStack

        /// By default: an iPhone with the device-info registration body, any certificate accepted (as the original), the
        /// error log level, 30 s per exchange, no 503 retries, a new registration when the id is refused, and the NIO stack.
        public init(
            backendURL: String, applicationId: String, deviceType: String = "iPhone", deviceModel: String = "iOS 17.5",
            registersAgainWhenRefused: Bool = true, serviceUnavailableRetries: Int = 0, retryDelay: Duration = .seconds(2),
            timeout: Duration = .seconds(30), serverTrust: SCPmsServerTrust = .acceptAnyCertificate,
            deviceName: String = "iPhone", registrationBody: RegistrationBody = .deviceInfo, logLevel: ClientLogLine.Severity = .error,
            httpStack: HTTPStack = .nio
        ) {
            self.backendURL = backendURL
            self.serverTrust = serverTrust
            self.deviceName = deviceName
            self.registrationBody = registrationBody
            self.logLevel = logLevel
            self.applicationId = applicationId
            self.deviceType = deviceType
            self.deviceModel = deviceModel
            self.registersAgainWhenRefused = registersAgainWhenRefused
            self.serviceUnavailableRetries = serviceUnavailableRetries
            self.retryDelay = retryDelay
            self.timeout = timeout
            self.httpStack = httpStack
        }
    }

    /// The body of the registration POST.
    public enum RegistrationBody: String, Sendable {
        /// `{"DeviceType": …, "DeviceModel": …, "UserName": <device name>}` — the original's `registrationInfo`.
        case deviceInfo = "device-info"
        /// No body (`Content-Length: 0`), as the original app's request went out.
        case noBody = "none"
    }

    /// A started session.
    public struct Session: Sendable, Equatable {
        /// How the registration came about.
        public enum Registration: String, Sendable {
            /// The stored id was accepted.
            case existing
            /// There was no stored id; the device registered.
            case new
            /// The server had forgotten the stored id; the device registered again.
            case again
        }

        /// The device's registration id (`X-SMP-APPCID`), stored and sent with later requests.
        public let applicationConnectionId: String
        /// Whether the stored id was accepted, or the device registered for the first time or again.
        public let registration: Registration

        /// A session as `startSession(user:password:)` returns it: the id in use and how it came about.
        public init(applicationConnectionId: String, registration: Registration) {
            self.applicationConnectionId = applicationConnectionId
            self.registration = registration
        }
    }

    /// The phone the app runs on: its network carries the requests, its clock times the retries, its trace
    /// records the outcomes.
    public let node: Node
    /// Where the backend is and how the manager talks to it, fixed when the manager is made.
    public let configuration: Configuration
    /// Where the registration id and the credentials are kept; a new manager given the same store
    /// models a relaunch of the app.
    public let store: any SCPmsSettingsStore
    let backend: BackendURL
    /// The configured HTTP stack, talking to the backend with the configured trust.
    let transport: any HTTPTransport
    let state = Mutex(State())
    /// The app's root logger, attached for upload (``uploadLogs()``, ``end()``).
    public let rootLogger: SCPmsRootLogger
    /// The original's `Logger.shared(named: "SCPSessionLogger")`.
    let logger: SCPmsLogger
    /// The HTTP session the delegate is asked about; its extra headers go with every request.
    public let urlSession = SCPmsURLSession(sessionDescription: "X-SMP-APPCID Check")

    struct State {
        weak var delegate: (any SCPmsSessionManagerDelegate)?
        /// Set once a challenge was answered successfully: later requests send credentials up front, as
        /// URLSession does with `.forSession` credentials for a protection space.
        var sendsCredentialsUpFront = false
        var uploadInProgress = false
        /// The accept-any-certificate warning went into the trace (once per session manager).
        var warnedAboutTrust = false
        var ended = false
    }

    /// A session manager for `configuration`'s application on `node`, keeping the registration in `store` and
    /// telling `delegate` (held weakly) how each check, registration and upload ends; it sends nothing until a
    /// session starts.
    ///
    /// - throws: ``SCPmsSessionError`` `.endpointNotFound` when `backendURL` is not an `http(s)://` URL,
    ///   `.unknownNetworkError` when the trusted CA cannot be loaded, or when `URLSession` is asked to trust other
    ///   than the system's roots.
    public init(
        node: Node, configuration: Configuration, store: any SCPmsSettingsStore,
        delegate: (any SCPmsSessionManagerDelegate)? = nil
    ) throws(SCPmsSessionError) {
        guard let backend = BackendURL(configuration.backendURL) else {
            throw SCPmsSessionError(.endpointNotFound, "backend URL '\(configuration.backendURL)' is not https://host[:port][/path] or http://…")
        }
        guard SCPmsRoute.isValidId(configuration.applicationId) else {
            throw SCPmsSessionError(.endpointNotFound, "application id '\(configuration.applicationId)' is not 1…128 letters, digits, '.', '-', '_'")
        }
        self.node = node
        self.configuration = configuration
        self.store = store
        self.backend = backend
        transport = try Self.transport(to: backend, configuration, node: node)
        let root = SCPmsRootLogger(level: configuration.logLevel, clock: node.clock)
        rootLogger = root
        logger = root.logger(named: "SCPSessionLogger")
        state.withLock { $0.delegate = delegate }
        // The original's init: `Logger.root.logLevel = …; try SAPcpmsLogUploader.attachToRootLogger()`.
        node.trace("scpms-logger-attached", [("level", configuration.logLevel.rawValue)])
    }

    private static func transport(
        to backend: BackendURL, _ configuration: Configuration, node: Node
    ) throws(SCPmsSessionError) -> any HTTPTransport {
        let origin = HTTPOrigin(usesTLS: backend.usesTLS, host: backend.host, port: backend.port)
        switch configuration.httpStack {
        case .nio:
            let tls = try backend.usesTLS ? configuration.serverTrust.context() : nil
            return NIOHTTPTransport(node: node, origin: origin, tls: tls, timeout: .nanoseconds(configuration.timeout.nanoseconds))
        case .urlsession:
            // libcurl-backed URLSession never asks its delegate about server trust and takes no trust roots per session.
            guard !backend.usesTLS || configuration.serverTrust == .systemDefault else {
                throw SCPmsSessionError(
                    .unknownNetworkError,
                    "server trust '\(configuration.serverTrust.name)' needs the nio stack: URLSession on Linux trusts only the system's roots")
            }
            return URLSessionTransport(origin: origin.onMachine(of: node), timeout: configuration.timeout)
        }
    }

    /// Asked for the id as a session starts and told of every check, registration and log upload
    /// as it ends; held weakly.
    public var delegate: (any SCPmsSessionManagerDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    // MARK: Async surface

    /// Starts a session for `user`: stores the credentials, checks the stored registration, and registers
    /// when there is none (or, if configured, when the server refused it).
    ///
    /// - throws: ``SCPmsSessionError``; `.emptyCredentials` at once when user or password is empty.
    public func startSession(user: String, password: String) async throws(SCPmsSessionError) -> Session {
        // The original refused only when *both* were empty; either one empty cannot authenticate.
        guard !user.isEmpty, !password.isEmpty else {
            logger.error("Attempt to start a new session without providing User and Password", location: "startSession")
            let error = SCPmsSessionError(.emptyCredentials, "user and password are both required")
            delegate?.sessionManager(self, checkDidFailWith: error)
            throw error
        }
        var settings = store.load()
        // The original asks its delegate for the id (and lets it add headers) as the session starts.
        if let given = delegate?.sessionManager(self, applicationConnectionIdFor: urlSession), !given.isEmpty {
            guard SCPmsRoute.isValidId(given) else {
                let error = SCPmsSessionError(
                    .applicationConnectionIdRefused, "the delegate's application connection id '\(given)' is not 1…128 letters, digits, '.', '-', '_'"
                )
                delegate?.sessionManager(self, checkDidFailWith: error)
                throw error
            }
            settings.applicationConnectionId = given
            store.save(settings)
        }
        if settings.user != user || settings.password != password {
            settings.user = user
            settings.password = password
            store.save(settings)
            state.withLock { $0.sendsCredentialsUpFront = false }
        }
        guard let storedId = settings.applicationConnectionId else {
            node.trace("scpms-no-registration")
            return Session(applicationConnectionId: try await registerApplication(), registration: .new)
        }
        do {
            try await check(storedId)
            delegate?.sessionManager(self, checkDidSucceedWith: storedId)
            return Session(applicationConnectionId: storedId, registration: .existing)
        } catch {
            delegate?.sessionManager(self, checkDidFailWith: error)
            guard error.code == .applicationConnectionIdRefused, configuration.registersAgainWhenRefused else { throw error }
            var forgotten = store.load()
            forgotten.applicationConnectionId = nil
            store.save(forgotten)
            node.trace("scpms-register-again", [("refused", storedId)])
            return Session(applicationConnectionId: try await registerApplication(), registration: .again)
        }
    }

    /// Registers the device with the stored credentials; stores and returns the new ApplicationConnectionId.
    public func registerApplication() async throws(SCPmsSessionError) -> String {
        do {
            let id = try await register()
            delegate?.sessionManager(self, registerDidSucceedWith: id)
            return id
        } catch {
            delegate?.sessionManager(self, registerDidFailWith: error)
            throw error
        }
    }

    /// Uploads what the root logger kept (on demand; ``end()`` does it too); returns how many lines went.
    /// Lines logged while the upload runs stay for the next one.
    public func uploadLogs() async throws(SCPmsLogUploadError) -> Int {
        let pending = rootLogger.pending
        let sent = try await uploadLogs(pending)
        rootLogger.removeUploaded(pending.count)
        return sent
    }

    /// Ends the session as the original's `deinit` does: uploads the root logger's entries (if any). Returns the
    /// upload's outcome, nil when there was nothing to upload or the session had already ended.
    public func end() async -> Result<Int, SCPmsLogUploadError>? {
        let first = state.withLock { state in
            defer { state.ended = true }
            return !state.ended
        }
        guard first else { return nil }
        let pending = rootLogger.pending.count
        node.trace("scpms-session-ended", [("pending-log-lines", "\(pending)")])
        guard pending > 0 else { return nil }
        do { return .success(try await uploadLogs()) } catch { return .failure(error) }
    }

    /// The original's `createODataProvider(withName:)`: a provider for the app's OData service at `{base}/{appId}/`,
    /// sending through this session manager (credentials, X-SMP-APPCID, the delegate's headers, TLS trust).
    public func createODataProvider(withName name: String) -> SCPmsODataProvider {
        SCPmsODataProvider(serviceName: name, manager: self)
    }

    /// Uploads log lines for the registered device.
    ///
    /// - returns: the number of lines the server accepted.
    public func uploadLogs(_ lines: [ClientLogLine]) async throws(SCPmsLogUploadError) -> Int {
        let result: Result<Int, SCPmsLogUploadError>
        do { result = .success(try await upload(lines)) } catch { result = .failure(error) }
        delegate?.sessionManager(self, logUploadDidFinishWith: result)
        return try result.get()
    }

    // MARK: Delegate surface

    /// The original's shape: refuses empty credentials at once, then reports the outcome to the delegate only.
    public func startSession(user: String, password: String) throws(SCPmsSessionError) {
        guard !user.isEmpty, !password.isEmpty else {
            throw SCPmsSessionError(.emptyCredentials, "user and password are both required")
        }
        _ = node.task { _ = try? await self.startSession(user: user, password: password) }
    }

    /// Registers; the outcome goes to the delegate.
    public func registerApplication() {
        _ = node.task { _ = try? await self.registerApplication() }
    }

    /// Uploads; the outcome goes to the delegate.
    public func uploadLogs(_ lines: [ClientLogLine]) {
        _ = node.task { _ = try? await self.uploadLogs(lines) }
    }
}

extension Duration {
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
