import DerivedCredential
import Foundation
import IvantiClient
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import Wire
import WireHTTP

/// The vault on disk, per-app access, state messages, renewal and the bus gateway.
@Suite struct VaultAndBusTests {
    /// Collects the URLs an app receives on `scheme`.
    final class Inbox: Sendable {
        let urls = Mutex<[String]>([])
        init(_ world: World, app: String, scheme: String) {
            let node = world.kernel.node(app)
            node.bus.register(scheme: scheme, owner: app, on: node.eventLoop) { [self] url, _ in urls.withLock { $0.append(url) } }
        }
        var all: [String] { urls.withLock { $0 } }
    }

    @Test func aStoredCredentialSurvivesAReopenAndIsSealedAtRest() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ivanti-vault-\(UInt64.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("vault.sqlite").path
        let configuration = IvantiClient.Configuration(databasePath: path)

        let first = try World(configuration: configuration)
        #expect(try first.send(Fixtures.payload([Fixtures.entry(.authentication)]))?.result == "stored")
        let attributes = try FileManager.default.attributesOfItem(atPath: path + ".key")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // The private key is not in the database file in clear.
        let database = try Data(contentsOf: URL(fileURLWithPath: path)) + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
        #expect(database.range(of: Data(Fixtures.bytes("authentication.key.der"))) == nil)

        let second = try World(seed: 2, configuration: configuration)
        #expect(try second.client.credentials(of: "phone").map(\.serialNumber) == ["SN-1"])
        // …and it still opens: the app reads its certificate back.
        let inbox = Inbox(second, app: "phone", scheme: "phone-ac")
        _ = second.open(AppConnectRequest.register(appScheme: "phone-ac").url.description)
        _ = second.open(AppConnectRequest.certificate(serial: "SN-1", tag: .authentication).url.description)
        let reply = try AppConnectReply(parsing: try #require(inbox.all.last))
        #expect(reply == .certificate(serial: "SN-1", tag: "Authentication", outcome: .granted(der: Fixtures.bytes("authentication.cert.der"))))
    }

    @Test func anAppCannotReadAnotherAppsCredential() throws {
        let world = try World()
        #expect(try world.send(Fixtures.payload([Fixtures.entry(.authentication)]))?.result == "stored")
        let mail = Inbox(world, app: "mail", scheme: "mail-ac")
        _ = world.open(AppConnectRequest.register(appScheme: "mail-ac").url.description, from: "mail")
        _ = world.open(AppConnectRequest.certificate(serial: "SN-1", tag: .authentication).url.description, from: "mail")
        let reply = try AppConnectReply(parsing: try #require(mail.all.last))
        #expect(
            reply
                == .certificate(
                    serial: "SN-1", tag: "Authentication", outcome: .denied(reason: "app mail holds no credential with serial number SN-1")))
        // The same answer as for a serial that does not exist at all: nothing leaks.
        _ = world.open(AppConnectRequest.certificate(serial: "SN-404", tag: .authentication).url.description, from: "mail")
        #expect(
            try AppConnectReply(parsing: try #require(mail.all.last))
                == .certificate(
                    serial: "SN-404", tag: "Authentication", outcome: .denied(reason: "app mail holds no credential with serial number SN-404")))
    }

    @Test func registeredAppsHearEveryStateChange() throws {
        let world = try World()
        let inbox = Inbox(world, app: "phone", scheme: "phone-ac")
        _ = world.open(AppConnectRequest.register(appScheme: "phone-ac").url.description)
        world.client.setState { $0.authState = .retired }
        world.kernel.loop.runDue()
        let states = try inbox.all.map { try AppConnectReply(parsing: $0) }
        guard states.count == 2, case .state(let first) = states[0], case .state(let second) = states[1] else {
            Issue.record("expected two state messages, got \(inbox.all)")
            return
        }
        #expect(first.secureServices == .available && first.clientKey == world.client.publicKey)
        #expect(second.authState == .retired && second.secureServices == .unavailable)
    }

    @Test func renewalOpensTheCallbackSchemeOfTheAppsLatestCredential() throws {
        let world = try World()
        #expect(throws: IvantiClientError.self) { try world.client.requestNewCredential(app: "phone") }
        #expect(try world.send(Fixtures.payload([Fixtures.entry(.signing)]))?.result == "stored")
        let callback = Inbox(world, app: "phone", scheme: "providerdc")
        #expect(try world.client.requestNewCredential(app: "phone"))
        world.kernel.loop.runDue()
        #expect(callback.all == ["providerdc://new"])
    }

    @Test func installationDecidesWhichSchemesTheClientHandles() throws {
        let world = try World(configuration: IvantiClient.Configuration(installation: .old))
        let bus = world.kernel.node("phone").bus
        #expect(bus.canOpen("appconnect://") && !bus.canOpen("appconnectdc://"))
        world.client.setInstallation(.current)
        #expect(bus.canOpen("appconnect://") && bus.canOpen("appconnectdc://"))
        world.client.setInstallation(.missing)
        #expect(!bus.canOpen("appconnect://") && !bus.canOpen("appconnectdc://"))
    }

    @Test func theGatewayOpensURLsOnTheBus() throws {
        let world = try World(configuration: IvantiClient.Configuration(gatewayPort: 80))
        let inbox = Inbox(world, app: "phone", scheme: "phone-ac")
        let outside = world.kernel.node("laptop")
        func post(_ body: String, sender: String? = nil, method: HTTPMethod = .POST) throws -> HTTPResponse {
            var headers: HTTPHeaders = [:]
            if let sender { headers.add(name: URLBusGateway.senderHeader, value: sender) }
            let request = HTTPRequest(method: method, target: "/open", headers: headers, body: ByteBuffer(string: body))
            return try world.kernel.run("post") { try await HTTPClient.send(request, host: "ivanti", port: 80, on: outside) }
        }
        let opened = try post("appconnect://register?scheme=phone-ac\n", sender: "phone")
        #expect(opened.status == .accepted)
        #expect(
            opened.text
                == "opened for ivanti (scheme appconnect)\naccepted: registered app phone for AppConnect; its state goes to phone-ac://state\n")
        #expect(opened.headers.first(name: URLBusGateway.receiptHeader) == "accepted")
        world.kernel.loop.runDue()
        #expect(inbox.all.count == 1)
        // What the client refused, and why, as its trace says it.
        let refused = try post("appconnectdc://certificate?serial=1&tag=Bogus", sender: "phone")
        #expect(refused.status == .accepted, "an app handles the scheme")
        #expect(refused.headers.first(name: URLBusGateway.receiptHeader) == "refused")
        #expect(
            refused.text.hasPrefix("opened for ivanti (scheme appconnectdc)\nrefused: unknown-tag: tag=Bogus; expected one of "), "\(refused.text)")
        #expect(try post("nobody://x").status == .notFound)
        #expect(try post("two urls").status == .badRequest)
        #expect(try post("appconnect://x", sender: "bad sender").status == .badRequest)
        #expect(try post("", method: .GET).status == .methodNotAllowed)
        #expect(try post(String(repeating: "a", count: CredentialLimits.maxURLBytes + 10)).status == .payloadTooLarge)
    }
}
