import Kernel
import NIOCore
import SCPms
import SCPmsClient
import SCPmsServer
import Synchronization
import Testing
import Wire
import WireHTTP

/// The session manager against the real registration actor (and, for broken answers, a fake server) on the
/// simulated wire.
@Suite struct SCPmsSessionManagerTests {
    static let app = "com.workbench.demo"

    struct World {
        let kernel: Kernel
        let phone: Node
        let server: SCPmsServer

        func manager(
            _ store: any SCPmsSettingsStore, delegate: (any SCPmsSessionManagerDelegate)? = nil,
            _ configure: (inout SCPmsSessionManager.Configuration) -> Void = { _ in }
        ) throws -> SCPmsSessionManager {
            var configuration = SCPmsSessionManager.Configuration(backendURL: "http://scpms", applicationId: SCPmsSessionManagerTests.app)
            configure(&configuration)
            return try SCPmsSessionManager(node: phone, configuration: configuration, store: store, delegate: delegate)
        }

        func start(
            _ manager: SCPmsSessionManager, user: String = "demo", password: String = "password"
        ) throws -> Result<SCPmsSessionManager.Session, SCPmsSessionError> {
            try kernel.run("start session") {
                do throws(SCPmsSessionError) { return .success(try await manager.startSession(user: user, password: password)) } catch {
                    return .failure(error)
                }
            }
        }
    }

    static func world() throws -> World {
        let kernel = Kernel(seed: 5)
        let node = kernel.node("scpms")
        let server = try kernel.run("start") { try await SCPmsServer.start(on: node) }
        return World(kernel: kernel, phone: kernel.node("phone"), server: server)
    }

    @Test func firstLaunchRegistersAndARelaunchReusesTheStoredId() throws {
        let world = try Self.world()
        let store = InMemorySCPmsSettingsStore()
        let first = try world.start(try world.manager(store)).get()
        #expect(first.registration == .new)
        #expect(store.load() == SCPmsStoredSettings(applicationConnectionId: first.applicationConnectionId, user: "demo", password: "password"))
        let relaunched = try world.start(try world.manager(store)).get()
        #expect(relaunched == SCPmsSessionManager.Session(applicationConnectionId: first.applicationConnectionId, registration: .existing))
        #expect(try world.server.store.connectionCount() == 1)
        let registrations = world.server.store
        let body = try world.kernel.run("look") { try await registrations.connection(first.applicationConnectionId, applicationId: Self.app) }
        #expect(body?.settings["DeviceType"] == "iPhone")
        #expect(body?.settings["UserName"] == "iPhone", "the original app sends the device's name as UserName")
        #expect(world.kernel.trace.all.contains { $0.event == "scpms-challenge-answered" })
        #expect(world.kernel.loop.violations.isEmpty)
    }

    @Test func aForgottenIdIsRegisteredAgainOrReported() throws {
        let world = try Self.world()
        let store = InMemorySCPmsSettingsStore()
        let first = try world.start(try world.manager(store)).get()
        try world.server.deleteRegistration(first.applicationConnectionId)
        let strict = try world.start(try world.manager(store) { $0.registersAgainWhenRefused = false })
        #expect(strict.failure?.code == .applicationConnectionIdRefused)
        #expect(strict.failure?.httpStatus == 403)
        let again = try world.start(try world.manager(store)).get()
        #expect(again.registration == .again)
        #expect(again.applicationConnectionId != first.applicationConnectionId)
        #expect(store.load().applicationConnectionId == again.applicationConnectionId)
    }

    @Test func credentialsErrors() throws {
        let world = try Self.world()
        let wrong = try world.start(try world.manager(InMemorySCPmsSettingsStore()), password: "wrong")
        #expect(wrong.failure?.code == .invalidCredentials)
        #expect(wrong.failure?.httpStatus == 401)
        for (user, password) in [("", ""), ("demo", ""), ("", "password")] {
            let empty = try world.start(try world.manager(InMemorySCPmsSettingsStore()), user: user, password: password)
            #expect(empty.failure?.code == .emptyCredentials)
        }
        let manager = try world.manager(InMemorySCPmsSettingsStore())
        #expect(throws: SCPmsSessionError.self) { try manager.startSession(user: "", password: "x") }
        let register = try world.kernel.run("register") { () -> SCPmsSessionError? in
            do throws(SCPmsSessionError) {
                _ = try await manager.registerApplication()
                return nil
            } catch { return error }
        }
        #expect(register?.code == .emptyCredentials)
        #expect(try world.server.store.connectionCount() == 0)
    }

    @Test func serviceUnavailableIsReportedOrRetriedOnTheNodeClock() throws {
        let world = try Self.world()
        world.kernel.faults.set(SCPmsServer.unavailableFault, .times(1))
        let down = try world.start(try world.manager(InMemorySCPmsSettingsStore()))
        #expect(down.failure?.code == .serviceUnavailable)
        #expect(down.failure?.httpStatus == 503)
        world.kernel.faults.set(SCPmsServer.internalErrorFault, .times(1))
        #expect(try world.start(try world.manager(InMemorySCPmsSettingsStore())).failure?.code == .serviceUnavailable)

        world.kernel.faults.set(SCPmsServer.unavailableFault, .times(1))
        let before = world.kernel.now
        let patient = try world.start(
            try world.manager(InMemorySCPmsSettingsStore()) {
                $0.serviceUnavailableRetries = 1
                $0.retryDelay = .seconds(3)
            })
        #expect(patient.failure == nil)
        #expect(world.kernel.now - before >= .seconds(3))
    }

    @Test func unknownApplicationAndUnreachableServer() throws {
        let world = try Self.world()
        let unknown = try world.start(try world.manager(InMemorySCPmsSettingsStore()) { $0.applicationId = "com.nobody" })
        #expect(unknown.failure?.code == .endpointNotFound)
        let nowhere = try world.start(try world.manager(InMemorySCPmsSettingsStore()) { $0.backendURL = "http://scpms:81" })
        #expect(nowhere.failure?.code == .unknownNetworkError)
        #expect(nowhere.failure?.httpStatus == nil)
        for bad in ["ftp://scpms", "https://", "https://scpms:0", "https://scpms:65536", "scpms"] {
            #expect(throws: SCPmsSessionError.self, "\(bad)") { try world.manager(InMemorySCPmsSettingsStore()) { $0.backendURL = bad } }
        }
    }

    @Test func brokenRegistrationAnswersAreTypedErrors() throws {
        let world = try Self.world()
        let fake = world.kernel.node("fake")
        _ = try world.kernel.run("fake") {
            try await HTTPServer.start(on: fake, port: 80) { request in
                request.path.hasSuffix("/Connections")
                    ? HTTPResponse(status: request.path.contains("com.ok200") ? .ok : .created, body: ByteBuffer(string: #"{"d": {}}"#))
                    : .text(.notFound, "no")
            }.get()
        }
        let manager = try world.manager(InMemorySCPmsSettingsStore()) { $0.backendURL = "http://fake" }
        let result = try world.start(manager)
        #expect(result.failure?.code == .applicationConnectionIdNotInPayload)
        #expect(manager.store.load().applicationConnectionId == nil)
        // Anything but 201 is a failed registration, even a 2xx.
        let ok200 = try world.start(
            try world.manager(InMemorySCPmsSettingsStore()) {
                $0.backendURL = "http://fake"
                $0.applicationId = "com.ok200"
            })
        #expect(ok200.failure?.code == .unknownNetworkError)
        #expect(ok200.failure?.httpStatus == 200)
    }

    @Test func logsUpload() throws {
        let world = try Self.world()
        let store = InMemorySCPmsSettingsStore()
        let manager = try world.manager(store)
        let line = ClientLogLine(timestamp: "2026-01-01 00:00:00", severity: .info, message: "two\nlines #1")
        func upload(_ lines: [ClientLogLine]) throws -> Result<Int, SCPmsLogUploadError> {
            try world.kernel.run("upload") {
                do throws(SCPmsLogUploadError) { return .success(try await manager.uploadLogs(lines)) } catch { return .failure(error) }
            }
        }
        #expect(try upload([line]).failure == .notRegistered)
        _ = try world.start(manager).get()
        #expect(try upload([]).failure == .emptyLogFiles)
        #expect(try upload([line, line]).get() == 2)
        #expect(try world.server.store.logs(applicationId: Self.app).map(\.message) == ["two lines #1", "two lines #1"])
        try world.server.addApplication(Self.app, logUploadEnabled: false)
        #expect(try upload([line]).failure?.name == "configurationNotEnabled")
    }

    @Test func theDelegateHearsEveryOutcome() throws {
        let world = try Self.world()
        let delegate = RecordingDelegate()
        let store = InMemorySCPmsSettingsStore()
        let manager = try world.manager(store, delegate: delegate)
        try manager.startSession(user: "demo", password: "password")
        world.kernel.advance(by: .seconds(5))
        let id = try #require(store.load().applicationConnectionId)
        #expect(delegate.events == ["register ok \(id)"])
        let relaunched = try world.manager(store, delegate: delegate)
        try relaunched.startSession(user: "demo", password: "password")
        world.kernel.advance(by: .seconds(5))
        relaunched.uploadLogs([ClientLogLine(timestamp: "2026-01-01 00:00:00", severity: .debug, message: "hi")])
        world.kernel.advance(by: .seconds(5))
        try world.server.deleteRegistration(id)
        try relaunched.startSession(user: "demo", password: "password")
        world.kernel.advance(by: .seconds(5))
        let newId = try #require(store.load().applicationConnectionId)
        #expect(
            delegate.events == [
                "register ok \(id)", "check ok \(id)", "logs 1",
                "check failed ApplicationConnectionIdRefused", "register ok \(newId)",
            ])
    }
}

final class RecordingDelegate: SCPmsSessionManagerDelegate {
    private let recorded = Mutex<[String]>([])
    var events: [String] { recorded.withLock { $0 } }
    private func add(_ event: String) { recorded.withLock { $0.append(event) } }

    func sessionManager(_ manager: SCPmsSessionManager, checkDidSucceedWith applicationConnectionId: String) {
        add("check ok \(applicationConnectionId)")
    }
    func sessionManager(_ manager: SCPmsSessionManager, checkDidFailWith error: SCPmsSessionError) { add("check failed \(error.code.rawValue)") }
    func sessionManager(_ manager: SCPmsSessionManager, registerDidSucceedWith applicationConnectionId: String) {
        add("register ok \(applicationConnectionId)")
    }
    func sessionManager(_ manager: SCPmsSessionManager, registerDidFailWith error: SCPmsSessionError) {
        add("register failed \(error.code.rawValue)")
    }
    func sessionManager(_ manager: SCPmsSessionManager, logUploadDidFinishWith result: Result<Int, SCPmsLogUploadError>) {
        add((try? result.get()).map { "logs \($0)" } ?? "logs failed")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
