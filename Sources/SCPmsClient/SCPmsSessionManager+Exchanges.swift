import Foundation
import NIOCore
import NIOHTTP1
import SCPms
import Synchronization
import Wire
import WireHTTP

/// The exchanges behind the public surface: the registration check, the registration, the log upload, and
/// the one place that answers Basic challenges and retries 503s.
extension SCPmsSessionManager {
    /// GET `{base}/{appId}` with the stored id.
    func check(_ id: String) async throws(SCPmsSessionError) {
        let response = try await send(.GET, backend.path("/\(configuration.applicationId)"), headers: ["X-SMP-APPCID": id])
        let status = Int(response.status.code)
        node.trace("scpms-check", [("status", "\(status)")])
        switch status {
        case 200: return
        case 403:
            throw SCPmsSessionError(
                .applicationConnectionIdRefused, httpStatus: status,
                "the server refused X-SMP-APPCID \(id): \(response.text.trimmingCharacters(in: [" ", "\n"]))")
        default: throw SCPmsSessionError.from(status: status, during: "the registration check", body: response.text)
        }
    }

    /// POST `{base}/odata/applications/latest/{appId}/Connections`.
    func register() async throws(SCPmsSessionError) -> String {
        let settings = store.load()
        guard let user = settings.user, !user.isEmpty, let password = settings.password, !password.isEmpty else {
            throw SCPmsSessionError(.emptyCredentials, "no stored credentials; start a session first")
        }
        // The original's `registrationInfo` (UserName is the device's name, as the original has it), or — what the original
        // really sent, having never attached the dictionary — no body at all.
        let body: String? =
            switch configuration.registrationBody {
            case .deviceInfo:
                ODataJSON.text(
                    .object([
                        ("DeviceType", .string(configuration.deviceType)), ("DeviceModel", .string(configuration.deviceModel)),
                        ("UserName", .string(configuration.deviceName)),
                    ]))
            case .noBody: nil
            }
        let response: HTTPResponse
        do {
            response = try await send(
                .POST, backend.path("/odata/applications/latest/\(configuration.applicationId)/Connections"),
                headers: ["Accept": "application/json", "Content-Type": "application/json"], body: body)
        } catch {
            logger.error("Got error while trying to register the device: \(error)", location: "registerApplication")
            throw error
        }
        let status = Int(response.status.code)
        // The original's guard read `error != nil else { fail }`: it reported every success as a failure and
        // force-unwrapped the error. Here any status but 201 fails, and 201 is parsed without unwrapping.
        guard status == 201 else {
            node.trace("scpms-register-failed", [("status", "\(status)")])
            logger.error("Registration denied with status code \(status)", location: "registerApplication")
            // 403 to a registration means the user may not register for this application.
            if status == 403 {
                throw SCPmsSessionError(
                    .invalidCredentials, httpStatus: status, "the registration was forbidden: \(response.text.trimmingCharacters(in: [" ", "\n"]))")
            }
            throw SCPmsSessionError.from(status: status, during: "the registration", body: response.text)
        }
        guard let id = Self.applicationConnectionId(in: response.body), SCPmsRoute.isValidId(id) else {
            node.trace("scpms-register-failed", [("status", "201"), ("reason", "no-id")])
            logger.error("Unable to find Application Connection ID in response payload", location: "registerApplication")
            throw SCPmsSessionError(
                .applicationConnectionIdNotInPayload, httpStatus: status,
                "the 201 answer has no usable d.ApplicationConnectionId")
        }
        var stored = store.load()
        stored.applicationConnectionId = id
        store.save(stored)
        node.trace("scpms-registered", [("id", id)])
        logger.info("Registered successfully with ID \(id)", location: "registerApplication")
        return id
    }

    static func applicationConnectionId(in body: ByteBuffer) -> String? {
        let json = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))
        return ((json as? [String: Any])?["d"] as? [String: Any])?["ApplicationConnectionId"] as? String
    }

    func upload(_ lines: [ClientLogLine]) async throws(SCPmsLogUploadError) -> Int {
        guard !lines.isEmpty else { throw .emptyLogFiles }
        guard let id = store.load().applicationConnectionId else { throw .notRegistered }
        let started = state.withLock { state in
            defer { state.uploadInProgress = true }
            return !state.uploadInProgress
        }
        guard started else { throw .uploadAlreadyInProgress }
        defer { state.withLock { $0.uploadInProgress = false } }
        // The format is one line per entry: a line break inside a field would split the entry.
        let body =
            lines.map { line in
                ClientLogLine(
                    timestamp: line.timestamp, severity: line.severity, correlationId: line.correlationId.flattened,
                    source: line.source.flattened, location: line.location.flattened, message: line.message.flattened
                ).text
            }.joined(separator: "\n") + "\n"
        let app = configuration.applicationId
        let response: HTTPResponse
        do {
            response = try await send(
                .POST, backend.path("/mobileservices/application/\(app)/clientlogs/v1/runtime/log/application/\(app)?deviceId=\(id)"),
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
    func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders, body: String? = nil) async throws(SCPmsSessionError) -> HTTPResponse {
        var request = HTTPRequest(method: method, target: target, headers: headers, body: body.map { ByteBuffer(string: $0) })
        let defaultPort = backend.usesTLS ? 443 : 80
        request.headers.replaceOrAdd(name: "Host", value: backend.port == defaultPort ? backend.host : "\(backend.host):\(backend.port)")
        for (name, value) in urlSession.headers where !request.headers.contains(name: name) { request.headers.add(name: name, value: value) }
        let upFront = state.withLock { $0.sendsCredentialsUpFront }
        if upFront, let credentials = storedCredentials { request.headers.replaceOrAdd(name: "Authorization", value: credentials.headerValue) }
        let (response, answered) = try await exchange(request, answeringChallenges: !upFront)
        if response.isBasicChallenge, !upFront, !answered, storedCredentials == nil {
            throw SCPmsSessionError(.emptyCredentials, httpStatus: 401, "the server asks for credentials and none are stored")
        }
        if answered, response.status != .unauthorized { state.withLock { $0.sendsCredentialsUpFront = true } }
        if response.status == .unauthorized { state.withLock { $0.sendsCredentialsUpFront = false } }
        return response
    }

    var storedCredentials: BasicCredentials? {
        let settings = store.load()
        guard let user = settings.user, let password = settings.password else { return nil }
        return BasicCredentials(user: user, password: password)
    }

    /// Sends `request`, retrying 503s. A Basic challenge is answered (once) with the stored credentials by the
    /// transport — the NIO transport sends again, URLSession's delegate answers — and the attempts after it carry
    /// them, with the 503 retries counted afresh from there.
    func exchange(_ request: HTTPRequest, answeringChallenges: Bool) async throws(SCPmsSessionError) -> (HTTPResponse, answered: Bool) {
        var request = request
        var answered = false
        var attempt = 0
        while true {
            warnAboutAcceptAnyTrustOnce()
            let answer = ChallengeAnswer(manager: self)
            let response: HTTPResponse
            do {
                response = try await transport.send(request, answering: answeringChallenges && !answered ? answer.answer : nil)
            } catch {
                node.trace("scpms-network-error", [("error", "\(error)")])
                throw SCPmsSessionError(.unknownNetworkError, "no answer from \(backend.host):\(backend.port): \(error)")
            }
            if let credentials = answer.given {
                answered = true
                attempt = 0
                request.headers.replaceOrAdd(name: "Authorization", value: credentials.headerValue)
            }
            guard response.status == .serviceUnavailable, attempt < configuration.serviceUnavailableRetries else { return (response, answered) }
            attempt += 1
            node.trace("scpms-retry", [("attempt", "\(attempt)"), ("status", "503")])
            do { try await node.clock.sleep(for: configuration.retryDelay) } catch {
                throw SCPmsSessionError(.serviceUnavailable, httpStatus: 503, "cancelled while waiting to retry")
            }
        }
    }

    /// With the original's accept-any trust, the first exchange with an `https://` backend puts a warning in the
    /// trace: the app would talk to anyone presenting any certificate.
    func warnAboutAcceptAnyTrustOnce() {
        guard backend.usesTLS, configuration.serverTrust == .acceptAnyCertificate else { return }
        let first = state.withLock { state in
            defer { state.warnedAboutTrust = true }
            return !state.warnedAboutTrust
        }
        if first {
            node.trace("scpms-warning", [("server-trust", "any"), ("why", "every server certificate is accepted, as in the seed (testing only)")])
        }
    }
}

/// One exchange's answer to a Basic challenge: the stored credentials (the challenge goes in the trace), and
/// whether they were given.
private final class ChallengeAnswer: Sendable {
    let manager: SCPmsSessionManager
    private let credentials = Mutex<BasicCredentials?>(nil)

    init(manager: SCPmsSessionManager) { self.manager = manager }

    var given: BasicCredentials? { credentials.withLock { $0 } }

    var answer: BasicChallengeAnswer {
        { [self] in
            guard let stored = manager.storedCredentials else { return nil }
            manager.node.trace("scpms-challenge-answered")
            credentials.withLock { $0 = stored }
            return stored
        }
    }
}

extension String {
    fileprivate var flattened: String {
        replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    }
}
