import Kernel
import NIOCore
import SCPms
import SCPmsClient
import SCPmsServer
import Synchronization
import TestSupport
import Testing
import Wire
import WireHTTP

/// The session manager over HTTPS (the original's accept-any trust, or the test CA), its OData provider, the
/// delegate's `applicationConnectionIdFor:` headers, and the root logger's upload.
@Suite struct SCPmsHTTPSAndODataClientTests {
    static let app = "com.workbench.demo"

    struct World {
        let kernel: Kernel
        let phone: Node
        let server: SCPmsServer
        let host: String

        func manager(
            trust: SCPmsServerTrust, store: any SCPmsSettingsStore = InMemorySCPmsSettingsStore(),
            delegate: (any SCPmsSessionManagerDelegate)? = nil,
            _ configure: (inout SCPmsSessionManager.Configuration) -> Void = { _ in }
        ) throws -> SCPmsSessionManager {
            var configuration = SCPmsSessionManager.Configuration(
                backendURL: "https://\(host)", applicationId: SCPmsHTTPSAndODataClientTests.app,
                serverTrust: trust)
            configure(&configuration)
            return try SCPmsSessionManager(node: phone, configuration: configuration, store: store, delegate: delegate)
        }

        func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T { try kernel.run("work", work) }

        func start(_ manager: SCPmsSessionManager, password: String = "password") throws -> Result<SCPmsSessionManager.Session, SCPmsSessionError> {
            try run {
                do throws(SCPmsSessionError) { return .success(try await manager.startSession(user: "demo", password: password)) } catch {
                    return .failure(error)
                }
            }
        }

        var warnings: Int { kernel.trace.all.filter { $0.event == "scpms-warning" && $0["server-trust"] == "any" }.count }
    }

    /// SCPms with HTTPS on `host` (the test certificate names `scpms` but not `backend`).
    static func world(host: String = "scpms") throws -> World {
        let kernel = Kernel(seed: 9)
        let node = kernel.node(host)
        var configuration = SCPmsServer.Configuration()
        configuration.tls = .init(certificatePath: Repository.fixture("tls/server.pem"), privateKeyPath: Repository.fixture("tls/server.key"))
        let settings = configuration
        let server = try kernel.run("start") { try await SCPmsServer.start(on: node, configuration: settings) }
        return World(kernel: kernel, phone: kernel.node("phone"), server: server, host: host)
    }

    static let ca = SCPmsServerTrust.caFile(Repository.fixture("tls/ca.pem"))

    @Test func theProviderReadsTheServiceWithTheTestCAAndIsRefusedOnceRevoked() throws {
        let world = try Self.world()
        let manager = try world.manager(trust: Self.ca)
        let session = try world.start(manager).get()
        #expect(world.warnings == 0, "trusting the CA is not the original's accept-any")
        let provider = manager.createODataProvider(withName: "WorkbenchDemo")
        #expect(provider.serviceRoot == "https://scpms:443/com.workbench.demo/")

        let metadata = try world.run { try await provider.metadata() }
        #expect(metadata.contains(#"<EntityType Name="Product">"#))
        let all = try world.run { try await provider.fetch("Products") }
        #expect(all.map { $0.properties["ProductID"] } == ["1", "2", "3", "4", "5", "6"])
        #expect(all[0].uri == "https://scpms/com.workbench.demo/Products(1)")
        #expect(all[0].type == "WorkbenchDemo.Product")
        #expect(all[1].properties["InStock"] == "false")
        let page = try world.run { try await provider.fetch("Products", query: [("$top", "2"), ("$skip", "2")]) }
        #expect(page.map { $0.properties["Name"] } == ["Flat Screen 24", "Wireless Mouse"])
        let quoted = try world.run { try await provider.fetch("Products", query: [("$filter", "Category eq 'Accessories'")]) }
        #expect(quoted.map { $0.properties["ProductID"] } == ["4", "5"])
        let one = try world.run { try await provider.fetch("Products", key: 6) }
        #expect(one.properties["Price"] == "229.00")

        let missing = try world.run { () -> SCPmsODataError? in
            do throws(SCPmsODataError) {
                _ = try await provider.fetch("Products", key: 7)
                return nil
            } catch { return error }
        }
        #expect(missing?.httpStatus == 404)
        #expect(missing?.odataCode == "ResourceNotFound")

        #expect(try world.server.deleteRegistration(session.applicationConnectionId))
        let revoked = try world.run { () -> SCPmsODataError? in
            do throws(SCPmsODataError) {
                _ = try await provider.fetch("Products")
                return nil
            } catch { return error }
        }
        #expect(revoked?.code == .applicationConnectionIdRefused)
        #expect(revoked?.httpStatus == 403)
        #expect(world.kernel.loop.violations.isEmpty)
    }

    @Test func theOriginalAcceptAnyTrustWarnsOnceAndTheCATrustRefusesAForeignName() throws {
        // `backend` is not among the certificate's names: the CA trust refuses it, accept-any talks to it.
        let world = try Self.world(host: "backend")
        let careful = try world.manager(trust: Self.ca)
        guard case .failure(let refused) = try world.start(careful) else {
            Issue.record("the CA trust accepted a foreign name")
            return
        }
        #expect(refused.code == .unknownNetworkError)
        #expect(world.kernel.trace.all.filter { $0.event == "registered" }.isEmpty)

        let trusting = try world.manager(trust: .acceptAnyCertificate)
        #expect(try world.start(trusting).get().registration == .new)
        #expect(try world.start(trusting).get().registration == .existing)
        #expect(world.warnings == 1, "one warning per session manager")
    }

    @Test func anUnreadableCAIsRefusedWhenTheManagerIsMade() throws {
        let world = try Self.world()
        #expect(throws: SCPmsSessionError.self) { try world.manager(trust: .caFile("/nonexistent/ca.pem")) }
    }

    /// Adds a header through the original's hook and counts how often it was asked.
    final class HeaderDelegate: SCPmsSessionManagerDelegate {
        let asked = Mutex(0)
        func sessionManager(_ manager: SCPmsSessionManager, applicationConnectionIdFor session: SCPmsURLSession) -> String? {
            asked.withLock { $0 += 1 }
            #expect(session.sessionDescription == "X-SMP-APPCID Check")
            #expect(!session.setHeader("Bad\r\nHeader", "x"))
            session.setHeader("X-Custom-Header", "from-delegate")
            return nil
        }
    }

    @Test func theDelegatesHeadersGoWithEveryRequest() throws {
        let kernel = Kernel(seed: 4)
        let fake = kernel.node("fake")
        let seen = Mutex<[String]>([])
        _ = try kernel.run("fake") {
            try await HTTPServer.start(on: fake, port: 80) { request in
                seen.withLock { $0.append("\(request.method) \(request.headers.first(name: "X-Custom-Header") ?? "-")") }
                if request.method == .POST {
                    return HTTPResponse(status: .created, body: ByteBuffer(string: #"{"d":{"ApplicationConnectionId":"ID-1"}}"#))
                }
                return HTTPResponse(status: .ok, body: ByteBuffer(string: #"{"d":{"results":[]}}"#))
            }.get()
        }
        let delegate = HeaderDelegate()
        let manager = try SCPmsSessionManager(
            node: kernel.node("phone"), configuration: .init(backendURL: "http://fake", applicationId: Self.app),
            store: InMemorySCPmsSettingsStore(), delegate: delegate)
        _ = try kernel.run("session") { try await manager.startSession(user: "demo", password: "password") }
        _ = try kernel.run("read") { try await manager.createODataProvider(withName: "x").fetch("Products") }
        #expect(delegate.asked.withLock { $0 } == 1)
        #expect(seen.withLock { $0 } == ["POST from-delegate", "GET from-delegate"])
    }

    /// Answers the original's hook with a fixed id, as the original app's delegate supplies the stored X-SMP-APPCID.
    final class IdDelegate: SCPmsSessionManagerDelegate {
        let id: String
        init(_ id: String) { self.id = id }
        func sessionManager(_ manager: SCPmsSessionManager, applicationConnectionIdFor session: SCPmsURLSession) -> String? { id }
    }

    @Test func theIdTheDelegateGivesIsChecked() throws {
        let world = try Self.world()
        let registered = try world.start(try world.manager(trust: .acceptAnyCertificate)).get().applicationConnectionId
        let store = InMemorySCPmsSettingsStore()
        let given = IdDelegate(registered)
        let session = try world.start(try world.manager(trust: .acceptAnyCertificate, store: store, delegate: given)).get()
        #expect(session == SCPmsSessionManager.Session(applicationConnectionId: registered, registration: .existing))
        #expect(store.load().applicationConnectionId == registered)
        let garbled = IdDelegate("not an id")
        let refused = try world.start(try world.manager(trust: .acceptAnyCertificate, delegate: garbled))
        #expect(refused.failure?.code == .applicationConnectionIdRefused)
        #expect(try world.server.store.connectionCount() == 1)
    }

    @Test func theRootLoggerKeepsErrorsAndTheSessionEndUploadsThem() throws {
        let world = try Self.world()
        let manager = try world.manager(trust: .acceptAnyCertificate)
        #expect(manager.rootLogger.level == .error)
        #expect(world.kernel.trace.all.contains { $0.event == "scpms-logger-attached" && $0["level"] == "ERROR" })
        _ = try world.start(manager, password: "wrong")
        #expect(manager.rootLogger.pending.map(\.message) == ["Registration denied with status code 401"])
        #expect(manager.rootLogger.pending.first?.source == "SCPSessionLogger")
        _ = try world.start(manager).get()
        // "Registered successfully…" is INFO: below the original app's level, not kept.
        #expect(manager.rootLogger.pending.count == 1)
        manager.rootLogger.logger(named: "App").error("sync failed")

        let ended = try world.run { await manager.end() }
        #expect(ended == .success(2))
        #expect(manager.rootLogger.pending.isEmpty)
        #expect(try world.server.store.logs(applicationId: Self.app).map(\.message) == ["Registration denied with status code 401", "sync failed"])
        #expect(try world.run { await manager.end() } == nil, "a session ends once")
    }

    @Test func theOriginalAppsBodylessRegistrationAndTheDeviceNameAsUserName() throws {
        let world = try Self.world()
        let literal = try world.manager(trust: .acceptAnyCertificate) { $0.registrationBody = .noBody }
        let first = try world.start(literal).get()
        let store = world.server.store
        let stored = try world.kernel.run("look") { try await store.connection(first.applicationConnectionId, applicationId: Self.app) }
        #expect(stored?.settings == ConnectionSettings())
        let named = try world.manager(trust: .acceptAnyCertificate) { $0.deviceName = "Roberto’s iPhone" }
        let second = try world.start(named).get()
        let secondStored = try world.kernel.run("look") { try await store.connection(second.applicationConnectionId, applicationId: Self.app) }
        #expect(secondStored?.settings["UserName"] == "Roberto’s iPhone")
        let shown = world.kernel.trace.all.filter { $0.event == "registered" }.map { $0["user-name"] }
        #expect(shown == ["", "Roberto’s iPhone"])
    }
}
