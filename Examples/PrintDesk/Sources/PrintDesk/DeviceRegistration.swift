import Foundation
import NodeHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The device's registration with SAP Mobile Services (SCPms), written against ``HTTPDataLoading`` only: in the app it
/// runs on `URLSession`, in the team's tests on a `NodeURLSession` in the workbench's simulated world.
///
/// The app keeps the registration's id (an `ApplicationConnectionId`) in its settings and calls
/// ``ensureRegistered(storedId:)`` as it starts: the stored id is read back from the server, and when the server has
/// forgotten it (an administrator deleted the registration: `404`), or there is none, the device registers anew.
/// A `5xx` answer or a request that got no answer is tried again after ``Policy/retryDelay``, at most
/// ``Policy/attempts`` times in all. A registration whose answer was lost and is sent again leaves the first one on the
/// server unused, as the SCPms app's own session manager does: the id the app keeps is the one it was told.
public struct DeviceRegistration: Sendable {
    /// How hard the registration tries.
    public struct Policy: Sendable {
        /// Requests sent for one call in all, the first included.
        public var attempts = 4
        /// Wait after an answer of `5xx` or a request without an answer.
        public var retryDelay: Duration = .seconds(2)
        /// How long one request may take (its `timeoutInterval`).
        public var requestTimeout: TimeInterval = 30

        /// The defaults: four attempts, 2 s apart, 30 s a request.
        public init() {}
    }

    /// Where the device stands after ``ensureRegistered(storedId:)``.
    public enum Outcome: Sendable, Equatable {
        /// The server still has the stored registration.
        case existing(id: String)
        /// There was none stored: the device registered as `id`.
        case registered(id: String)
        /// The server had forgotten the stored registration `forgotten` (`404`): the device registered again as `id`.
        case reregistered(id: String, forgotten: String)

        /// The id to keep in the app's settings.
        public var id: String {
            switch self {
            case .existing(let id), .registered(let id), .reregistered(let id, _): id
            }
        }
    }

    /// Why the device is not registered.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        /// What went wrong, with the last answer or error.
        public let description: String
    }

    let connections: URL
    let authorization: String
    let deviceType: String
    let loader: any HTTPDataLoading
    let clock: any Clock<Duration>
    let policy: Policy

    /// A registration with the SCPms at `server` for `applicationId`.
    ///
    /// - parameters:
    ///   - server: the server's base URL, e.g. `https://mobile.example.com` (`http://scpms:80` in the simulated world).
    ///   - user: the Basic account the requests are sent with (up front, as the SCPms app does).
    ///   - loader: `URLSession.shared` in the app, a `NodeURLSession` in tests.
    ///   - clock: what waits between attempts: `ContinuousClock()` in the app, the node's clock in tests.
    public init(
        server: URL, applicationId: String, user: String, password: String, deviceType: String = "Android",
        loader: any HTTPDataLoading, clock: any Clock<Duration>, policy: Policy = Policy()
    ) {
        connections = server.appendingPathComponent("odata/applications/latest/\(applicationId)/Connections")
        authorization = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        self.deviceType = deviceType
        self.loader = loader
        self.clock = clock
        self.policy = policy
    }

    /// Makes sure the server knows this device: reads `storedId` back, and registers when there is none or the
    /// server has forgotten it.
    ///
    /// - returns: where the device stands; keep ``Outcome/id``.
    /// - throws: ``Failure`` when the server refused the account (`401`), answered something else unexpected, or gave
    ///   no usable answer within ``Policy/attempts``.
    public func ensureRegistered(storedId: String?) async throws(Failure) -> Outcome {
        guard let storedId else { return .registered(id: try await register()) }
        // Single quotes inside the key are doubled in OData; SCPms ids are UUIDs, but the app stores whatever it was given.
        let key = storedId.replacingOccurrences(of: "'", with: "''")
        let entity = URL(string: connections.absoluteString + "('\(key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? key)')")
        guard let entity else { throw Failure(description: "the stored id '\(storedId)' makes no URL") }
        let (status, _) = try await send(URLRequest(url: entity), "reading registration \(storedId)")
        switch status {
        case 200: return .existing(id: storedId)
        case 404: return .reregistered(id: try await register(), forgotten: storedId)
        default: throw Failure(description: "reading registration \(storedId): HTTP \(status)")
        }
    }

    /// `POST …/Connections` with the device's settings; the new id from the answer's body.
    private func register() async throws(Failure) -> String {
        var request = URLRequest(url: connections)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"DeviceType":"\#(deviceType)"}"#.utf8)
        let (status, body) = try await send(request, "registering")
        guard status == 201 else { throw Failure(description: "registering: HTTP \(status)") }
        guard let created = try? JSONDecoder().decode(Created.self, from: body) else {
            throw Failure(description: "registering: the answer holds no ApplicationConnectionId")
        }
        return created.d.id
    }

    /// Sends `request` with the account until it gets an answer that is no `5xx`; `401` ends it.
    private func send(_ request: URLRequest, _ what: String) async throws(Failure) -> (Int, Data) {
        var request = request
        request.timeoutInterval = policy.requestTimeout
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        var last = "no attempt"
        for attempt in 1...max(1, policy.attempts) {
            if attempt > 1 {
                do { try await clock.sleep(for: policy.retryDelay) } catch { throw Failure(description: "\(what): cancelled") }
            }
            do {
                let (body, response) = try await loader.data(for: request)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                if status == 401 { throw Failure(description: "\(what): the server refused the account (HTTP 401)") }
                if (500...599).contains(status) {
                    last = "HTTP \(status)"
                    continue
                }
                return (status, body)
            } catch let failure as Failure {
                throw failure
            } catch {
                last = "\(error.localizedDescription)"
            }
        }
        throw Failure(description: "\(what): no answer after \(policy.attempts) attempts; the last: \(last)")
    }

    /// The part of SCPms's `201` body the app needs: `{"d":{"ApplicationConnectionId":"…",…}}`.
    private struct Created: Decodable {
        struct Connection: Decodable {
            let id: String
            enum CodingKeys: String, CodingKey { case id = "ApplicationConnectionId" }
        }
        let d: Connection
    }
}
