import Foundation
import SCPms
import SCPmsClient
import SCPmsServer
import Synchronization
import TestSupport
import Testing
import Wire
import WireHTTP

/// The SCPms session manager through URLSession (FoundationNetworking on libcurl) against the registration actor on
/// real loopback sockets, next to the same flow through the NIO stack: the same observable results.
@Suite(.serialized) struct URLSessionSCPmsTests {
    static let app = "com.workbench.demo"

    /// The registration actor on the live wire, HTTP (and HTTPS with the test certificate, when asked).
    struct LiveSCPms {
        let trace = LiveTrace()
        let wire: LiveWire
        let server: SCPmsServer
        let phone: Node

        init(tls: Bool = false) async throws {
            wire = LiveWire(seed: 1, threads: 1, tracer: trace)
            var configuration = SCPmsServer.Configuration(port: 0)
            if tls {
                configuration.tls = .init(
                    port: 0, certificatePath: Repository.fixture("tls/server.pem"), privateKeyPath: Repository.fixture("tls/server.key"))
            }
            server = try await SCPmsServer.start(on: wire.node("scpms"), configuration: configuration)
            phone = wire.node("phone")
        }

        func manager(
            _ stack: HTTPStack, store: any SCPmsSettingsStore = InMemorySCPmsSettingsStore(), backendURL: String? = nil,
            delegate: (any SCPmsSessionManagerDelegate)? = nil, _ configure: (inout SCPmsSessionManager.Configuration) -> Void = { _ in }
        ) throws -> SCPmsSessionManager {
            var configuration = SCPmsSessionManager.Configuration(
                backendURL: backendURL ?? server.httpBaseURL ?? "", applicationId: URLSessionSCPmsTests.app, httpStack: stack)
            configure(&configuration)
            return try SCPmsSessionManager(node: phone, configuration: configuration, store: store, delegate: delegate)
        }

        func start(
            _ manager: SCPmsSessionManager, password: String = "password"
        ) async throws -> Result<SCPmsSessionManager.Session, SCPmsSessionError> {
            try await withDeadline(liveStepLimit, "start a session") {
                do throws(SCPmsSessionError) { return .success(try await manager.startSession(user: "demo", password: password)) } catch {
                    return .failure(error)
                }
            }
        }

        func stop() async throws {
            try await server.stop()
            try await wire.shutdown()
        }
    }

    /// What one run of the flow showed; ids differ from run to run, so only whether they were kept is compared.
    struct Observed: Equatable {
        var first: SCPmsSessionManager.Session.Registration?
        var relaunch: SCPmsSessionManager.Session.Registration?
        var relaunchKeptTheId = false
        var delegateEvents: [String] = []
        var logLinesUploaded: Int?
        var productIDs: [String] = []
        var wrongPassword: SCPmsSessionError?
        var afterOneRetry: SCPmsSessionManager.Session.Registration?
        var retries = 0
        var unavailable: SCPmsSessionError?
        /// `METHOD path` of every request the actor took, in order.
        var requests: [String] = []
        var challengesAnswered = 0
    }

    /// First launch (registers, answering the Basic challenge), relaunch (checks the stored id; the manager then sends
    /// credentials up front for the log upload and the OData read), a wrong password, and a 503 retried or reported.
    static func flow(_ stack: HTTPStack) async throws -> Observed {
        let live = try await LiveSCPms()
        var observed = Observed()
        let store = InMemorySCPmsSettingsStore()
        let first = try await live.start(try live.manager(stack, store: store)).get()
        observed.first = first.registration

        let delegate = RecordingDelegate()
        let relaunched = try live.manager(stack, store: store, delegate: delegate)
        let relaunch = try await live.start(relaunched).get()
        observed.relaunch = relaunch.registration
        observed.relaunchKeptTheId = relaunch.applicationConnectionId == first.applicationConnectionId
        let line = ClientLogLine(timestamp: "2026-01-01 00:00:00", severity: .error, message: "through \(stack)")
        observed.logLinesUploaded = try await withDeadline(liveStepLimit, "upload logs") { try await relaunched.uploadLogs([line]) }
        let provider = relaunched.createODataProvider(withName: "WorkbenchDemo")
        let products = try await withDeadline(liveStepLimit, "read Products") { try await provider.fetch("Products") }
        observed.productIDs = products.compactMap { $0.properties["ProductID"] }
        observed.delegateEvents = delegate.events

        observed.wrongPassword = try await live.start(try live.manager(stack), password: "wrong").failure

        live.wire.faults.set(SCPmsServer.unavailableFault, .times(1))
        let patient = try live.manager(stack) {
            $0.serviceUnavailableRetries = 1
            $0.retryDelay = .milliseconds(50)
        }
        observed.afterOneRetry = try await live.start(patient).get().registration
        observed.retries = live.trace.events("phone", "scpms-retry").count
        live.wire.faults.set(SCPmsServer.unavailableFault, .times(1))
        observed.unavailable = try await live.start(try live.manager(stack)).failure

        observed.requests = live.trace.requests(to: "scpms")
        observed.challengesAnswered = live.trace.events("phone", "scpms-challenge-answered").count
        try await live.stop()
        return observed
    }

    @Test func theRegistrationFlowThroughURLSessionShowsWhatTheNIOStackShows() async throws {
        let nio = try await Self.flow(.nio)
        let urlsession = try await Self.flow(.urlsession)
        #expect(urlsession == nio)
        // And what both showed is the flow's own story.
        #expect(urlsession.first == .new)
        #expect(urlsession.relaunch == .existing)
        #expect(urlsession.relaunchKeptTheId)
        #expect(urlsession.delegateEvents.count == 2 && urlsession.delegateEvents.last == "logs 1")
        #expect(urlsession.logLinesUploaded == 1)
        #expect(urlsession.productIDs == ["1", "2", "3", "4", "5", "6"])
        #expect(urlsession.wrongPassword?.code == .invalidCredentials)
        #expect(urlsession.wrongPassword?.httpStatus == 401)
        #expect(urlsession.wrongPassword?.detail.hasSuffix("the user or password is wrong") == true, "the 401's body came back")
        #expect(urlsession.afterOneRetry == .new)
        #expect(urlsession.retries == 1)
        #expect(urlsession.unavailable?.code == .serviceUnavailable)
        #expect(urlsession.unavailable?.httpStatus == 503)
        let registration = "POST /odata/applications/latest/\(Self.app)/Connections"
        #expect(
            Array(urlsession.requests.prefix(7)) == [
                registration, registration,  // the challenge, then its answer
                "GET /\(Self.app)", "GET /\(Self.app)",  // the relaunch's check: challenged again (a new manager)
                "POST /mobileservices/application/\(Self.app)/clientlogs/v1/runtime/log/application/\(Self.app)",  // credentials up front
                "GET /\(Self.app)/Products",
                registration,  // the wrong password: challenged…
            ])
        #expect(urlsession.challengesAnswered == 4, "first launch, relaunch, wrong password, and the registration after a 503")
    }

    /// libcurl-backed URLSession takes no trust roots per session and never asks its delegate about server trust: a
    /// CA or accept-any is refused when the manager is made, and the system's roots do not know the test CA.
    @Test func httpsThroughURLSessionTrustsOnlyTheSystemsRoots() async throws {
        let live = try await LiveSCPms(tls: true)
        let port = try #require(live.server.httpsBaseURL?.split(separator: ":").last.map(String.init))
        let backend = "https://localhost:\(port)"
        let ca = SCPmsServerTrust.caFile(Repository.fixture("tls/ca.pem"))

        let nio = try live.manager(.nio, backendURL: backend) { $0.serverTrust = ca }
        #expect(try await live.start(nio).get().registration == .new, "the NIO stack trusts the test CA")

        for trust in [ca, .acceptAnyCertificate] {
            #expect {
                _ = try live.manager(.urlsession, backendURL: backend) { $0.serverTrust = trust }
            } throws: { error in
                (error as? SCPmsSessionError)?.detail.contains("needs the nio stack: URLSession on Linux trusts only the system's roots") == true
            }
        }
        let system = try live.manager(.urlsession, backendURL: backend) { $0.serverTrust = .systemDefault }
        let refused = try await live.start(system).failure
        #expect(refused?.code == .unknownNetworkError)
        #expect(refused?.httpStatus == nil)
        #expect(
            refused?.detail.contains("SSL certificate problem: unable to get local issuer certificate (NSURLErrorDomain -1)") == true,
            "\(String(describing: refused))")
        #expect(live.trace.requests(to: "scpms").count == 2, "only the NIO registration's two requests got through")
        try await live.stop()
    }
}

/// The delegate's view of outcomes, as short lines.
final class RecordingDelegate: SCPmsSessionManagerDelegate {
    private let recorded = Mutex<[String]>([])
    var events: [String] { recorded.withLock { $0 } }

    func sessionManager(_ manager: SCPmsSessionManager, checkDidSucceedWith applicationConnectionId: String) {
        recorded.withLock { $0.append("check ok") }
    }
    func sessionManager(_ manager: SCPmsSessionManager, checkDidFailWith error: SCPmsSessionError) {
        recorded.withLock { $0.append("check failed \(error.code.rawValue)") }
    }
    func sessionManager(_ manager: SCPmsSessionManager, registerDidSucceedWith applicationConnectionId: String) {
        recorded.withLock { $0.append("register ok") }
    }
    func sessionManager(_ manager: SCPmsSessionManager, logUploadDidFinishWith result: Result<Int, SCPmsLogUploadError>) {
        recorded.withLock { $0.append((try? result.get()).map { "logs \($0)" } ?? "logs failed") }
    }
}
