import Foundation
import NIOCore
import NIOHTTP1
import SCPms
import Synchronization
import Wire
import WireHTTP

/// The app side of SAP Mobile Services: starts a session (checks the stored registration with
/// `X-SMP-APPCID`, registers the device when there is none or the server forgot it), answers the Basic
/// challenge with the stored credentials, and uploads client logs.
///
/// Rewritten from the seed's `SCPSessionManager` (gist robypag/fcce9711…). Where it deviates, the code says
/// why; in short: the registration sends its body and treats only a transport *error* as a failure (the seed's
/// guard was inverted), no optional response is force-unwrapped, either empty credential is refused, and a
/// refused id leads to a new registration instead of a dead end.
///
/// Two surfaces: `async` methods that return or throw, and the delegate, told of every outcome by both.
public final class SCPmsSessionManager: Sendable {
    /// Where and as what the app talks to SCPms.
    public struct Configuration: Sendable {
        /// `http://host[:port][/prefix]` — the `{base}` (the seed's `cpmsUrlString`).
        public var backendURL: String
        public var applicationId: String
        /// Sent as `DeviceType` / `DeviceModel` (the seed read them from `UIDevice`).
        public var deviceType: String
        public var deviceModel: String
        /// Register again, once, when the application endpoint refuses the stored id.
        public var registersAgainWhenRefused: Bool
        /// How many times a 503 is retried, and after how long.
        public var serviceUnavailableRetries: Int
        public var retryDelay: Duration
        /// Per HTTP exchange.
        public var timeout: Duration

        public init(backendURL: String, applicationId: String, deviceType: String = "iPhone", deviceModel: String = "iOS 17.5",
                    registersAgainWhenRefused: Bool = true, serviceUnavailableRetries: Int = 0, retryDelay: Duration = .seconds(2),
                    timeout: Duration = .seconds(30)) {
            self.backendURL = backendURL
            self.applicationId = applicationId
            self.deviceType = deviceType
            self.deviceModel = deviceModel
            self.registersAgainWhenRefused = registersAgainWhenRefused
            self.serviceUnavailableRetries = serviceUnavailableRetries
            self.retryDelay = retryDelay
            self.timeout = timeout
        }
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

        public let applicationConnectionId: String
        public let registration: Registration

        public init(applicationConnectionId: String, registration: Registration) {
            self.applicationConnectionId = applicationConnectionId
            self.registration = registration
        }
    }

    public let node: Node
    public let configuration: Configuration
    public let store: any SCPmsSettingsStore
    private let backend: BackendURL
    private let state = Mutex(State())

    private struct State {
        weak var delegate: (any SCPmsSessionManagerDelegate)?
        /// Set once a challenge was answered successfully: later requests send credentials up front, as
        /// URLSession does with `.forSession` credentials for a protection space.
        var sendsCredentialsUpFront = false
        var uploadInProgress = false
    }

    /// - throws: ``SCPmsSessionError`` `.endpointNotFound` when `backendURL` is not an `http://` URL.
    public init(node: Node, configuration: Configuration, store: any SCPmsSettingsStore,
                delegate: (any SCPmsSessionManagerDelegate)? = nil) throws(SCPmsSessionError) {
        guard let backend = BackendURL(configuration.backendURL) else {
            throw SCPmsSessionError(.endpointNotFound, "backend URL '\(configuration.backendURL)' is not http://host[:port][/path]")
        }
        guard SCPmsRoute.isValidId(configuration.applicationId) else {
            throw SCPmsSessionError(.endpointNotFound, "application id '\(configuration.applicationId)' is not 1…128 letters, digits, '.', '-', '_'")
        }
        self.node = node
        self.configuration = configuration
        self.store = store
        self.backend = backend
        state.withLock { $0.delegate = delegate }
    }

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
        // The seed refused only when *both* were empty; either one empty cannot authenticate.
        guard !user.isEmpty, !password.isEmpty else {
            let error = SCPmsSessionError(.emptyCredentials, "user and password are both required")
            delegate?.sessionManager(self, checkDidFailWith: error)
            throw error
        }
        var settings = store.load()
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

    /// The seed's shape: refuses empty credentials at once, then reports the outcome to the delegate only.
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

    // MARK: Exchanges

    /// GET `{base}/{appId}` with the stored id.
    private func check(_ id: String) async throws(SCPmsSessionError) {
        let response = try await send(.GET, backend.path("/\(configuration.applicationId)"), headers: ["X-SMP-APPCID": id])
        let status = Int(response.status.code)
        node.trace("scpms-check", [("status", "\(status)")])
        switch status {
        case 200: return
        case 403:
            throw SCPmsSessionError(.applicationConnectionIdRefused, httpStatus: status,
                                    "the server refused X-SMP-APPCID \(id): \(response.text.trimmingCharacters(in: [" ", "\n"]))")
        default: throw SCPmsSessionError.from(status: status, during: "the registration check", body: response.text)
        }
    }

    /// POST `{base}/odata/applications/latest/{appId}/Connections`.
    private func register() async throws(SCPmsSessionError) -> String {
        let settings = store.load()
        guard let user = settings.user, !user.isEmpty, let password = settings.password, !password.isEmpty else {
            throw SCPmsSessionError(.emptyCredentials, "no stored credentials; start a session first")
        }
        // The seed built this dictionary but never attached it to the request; it also sent the device's
        // name as UserName, where SCPms expects the user.
        let body = ODataJSON.text(.object([
            ("DeviceType", .string(configuration.deviceType)), ("DeviceModel", .string(configuration.deviceModel)),
            ("UserName", .string(user)),
        ]))
        let response = try await send(.POST, backend.path("/odata/applications/latest/\(configuration.applicationId)/Connections"),
                                      headers: ["Accept": "application/json", "Content-Type": "application/json"], body: body)
        let status = Int(response.status.code)
        // The seed's guard read `error != nil else { fail }`: it reported every success as a failure and
        // force-unwrapped the error. Here any status but 201 fails, and 201 is parsed without unwrapping.
        guard status == 201 else {
            node.trace("scpms-register-failed", [("status", "\(status)")])
            // 403 to a registration means the user may not register for this application.
            if status == 403 {
                throw SCPmsSessionError(.invalidCredentials, httpStatus: status, "the registration was forbidden: \(response.text.trimmingCharacters(in: [" ", "\n"]))")
            }
            throw SCPmsSessionError.from(status: status, during: "the registration", body: response.text)
        }
        guard let id = Self.applicationConnectionId(in: response.body), SCPmsRoute.isValidId(id) else {
            node.trace("scpms-register-failed", [("status", "201"), ("reason", "no-id")])
            throw SCPmsSessionError(.applicationConnectionIdNotInPayload, httpStatus: status,
                                    "the 201 answer has no usable d.ApplicationConnectionId")
        }
        var stored = store.load()
        stored.applicationConnectionId = id
        store.save(stored)
        node.trace("scpms-registered", [("id", id)])
        return id
    }

    private static func applicationConnectionId(in body: ByteBuffer) -> String? {
        let json = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))
        return ((json as? [String: Any])?["d"] as? [String: Any])?["ApplicationConnectionId"] as? String
    }

    private func upload(_ lines: [ClientLogLine]) async throws(SCPmsLogUploadError) -> Int {
        guard !lines.isEmpty else { throw .emptyLogFiles }
        guard let id = store.load().applicationConnectionId else { throw .notRegistered }
        let started = state.withLock { state in
            defer { state.uploadInProgress = true }
            return !state.uploadInProgress
        }
        guard started else { throw .uploadAlreadyInProgress }
        defer { state.withLock { $0.uploadInProgress = false } }
        // The format is one line per entry: a line break inside a field would split the entry.
        let body = lines.map { line in
            ClientLogLine(timestamp: line.timestamp, severity: line.severity, correlationId: line.correlationId.flattened,
                          source: line.source.flattened, location: line.location.flattened, message: line.message.flattened).text
        }.joined(separator: "\n") + "\n"
        let app = configuration.applicationId
        let response: HTTPResponse
        do {
            response = try await send(.POST, backend.path("/mobileservices/application/\(app)/clientlogs/v1/runtime/log/application/\(app)?deviceId=\(id)"),
                                      headers: ["X-SMP-APPCID": id, "Content-Type": "text/plain; charset=utf-8"], body: body)
        } catch {
            throw .networkError(httpStatusCode: error.httpStatus ?? 0, error.detail)
        }
        let status = Int(response.status.code)
        node.trace("scpms-logs-uploaded", [("lines", "\(lines.count)"), ("status", "\(status)")])
        let said = response.text.trimmingCharacters(in: [" ", "\n"])
        switch status {
        case 204, 200: return lines.count
        case 403: throw .configurationNotEnabled(said)
        default: throw .networkError(httpStatusCode: status, said)
        }
    }

    /// One request, answering a Basic challenge once with the stored credentials, retrying 503s as configured.
    private func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders, body: String? = nil) async throws(SCPmsSessionError) -> HTTPResponse {
        var request = HTTPRequest(method: method, target: target, headers: headers, body: body.map { ByteBuffer(string: $0) })
        let upFront = state.withLock { $0.sendsCredentialsUpFront }
        if upFront, let credentials = storedCredentials { request.headers.replaceOrAdd(name: "Authorization", value: credentials.headerValue) }
        var response = try await exchange(request)
        if response.status == .unauthorized, !upFront,
           response.headers.first(name: "WWW-Authenticate")?.lowercased().hasPrefix("basic") == true {
            guard let credentials = storedCredentials else {
                throw SCPmsSessionError(.emptyCredentials, httpStatus: 401, "the server asks for credentials and none are stored")
            }
            node.trace("scpms-challenge-answered")
            request.headers.replaceOrAdd(name: "Authorization", value: credentials.headerValue)
            response = try await exchange(request)
            if response.status != .unauthorized { state.withLock { $0.sendsCredentialsUpFront = true } }
        }
        if response.status == .unauthorized { state.withLock { $0.sendsCredentialsUpFront = false } }
        return response
    }

    private var storedCredentials: BasicCredentials? {
        let settings = store.load()
        guard let user = settings.user, let password = settings.password else { return nil }
        return BasicCredentials(user: user, password: password)
    }

    private func exchange(_ request: HTTPRequest) async throws(SCPmsSessionError) -> HTTPResponse {
        var attempt = 0
        while true {
            let response: HTTPResponse
            do {
                response = try await HTTPClient.send(request, host: backend.host, port: backend.port, on: node,
                                                     timeout: .nanoseconds(configuration.timeout.nanoseconds))
            } catch {
                node.trace("scpms-network-error", [("error", "\(error)")])
                throw SCPmsSessionError(.unknownNetworkError, "no answer from \(backend.host):\(backend.port): \(error)")
            }
            guard response.status == .serviceUnavailable, attempt < configuration.serviceUnavailableRetries else { return response }
            attempt += 1
            node.trace("scpms-retry", [("attempt", "\(attempt)"), ("status", "503")])
            do { try await node.clock.sleep(for: configuration.retryDelay) } catch {
                throw SCPmsSessionError(.serviceUnavailable, httpStatus: 503, "cancelled while waiting to retry")
            }
        }
    }
}

/// `http://host[:port][/prefix]`, split once.
struct BackendURL: Sendable {
    let host: String
    let port: Int
    let prefix: String

    init?(_ text: String) {
        guard text.hasPrefix("http://") else { return nil }
        let rest = text.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        while path.hasSuffix("/") { path.removeLast() }
        let hostPort = authority.split(separator: "@").last.map(String.init) ?? ""
        let parts = hostPort.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { return nil }
        self.host = String(host)
        if parts.count == 2 {
            guard let port = Int(parts[1]), (1...65_535).contains(port) else { return nil }
            self.port = port
        } else {
            port = 80
        }
        prefix = path
    }

    func path(_ suffix: String) -> String { prefix + suffix }
}

extension String {
    fileprivate var flattened: String {
        replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    }
}

extension Duration {
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
