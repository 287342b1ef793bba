import Foundation
import Kernel
import NIOCore
import NIOHTTP1
import NIOSSL
import SCPms
import SCPmsServer
import TestSupport
import Testing
import Wire
import WireHTTP

/// SCPms over HTTPS on the simulated wire (the test CA's server certificate, as MiG uses), the app's OData
/// service behind `{base}/{appId}`, and the original app's literal registration request.
@Suite struct SCPmsHTTPSODataTests {
    static let app = "com.workbench.demo"
    static let demo = BasicCredentials(user: "demo", password: "password").headerValue

    typealias World = SCPmsServerTests.World

    static func world(servesPlainHTTP: Bool = true) throws -> World {
        let kernel = Kernel(seed: 5)
        let node = kernel.node("scpms")
        var configuration = SCPmsServer.Configuration()
        configuration.servesPlainHTTP = servesPlainHTTP
        configuration.tls = .init(certificatePath: Repository.fixture("tls/server.pem"), privateKeyPath: Repository.fixture("tls/server.key"))
        let settings = configuration
        let server = try kernel.run("start scpms") { try await SCPmsServer.start(on: node, configuration: settings) }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(Repository.fixture("tls/ca.pem")))
        return World(kernel: kernel, phone: kernel.node("phone"), server: server, trust: try NIOSSLContext(configuration: tls))
    }

    @Test func registeredAppReadsItsODataServiceOverHTTPS() throws {
        let world = try Self.world()
        #expect(world.server.baseURL == "https://scpms:443")
        let id = try world.register("{}")
        let headers: HTTPHeaders = ["Authorization": Self.demo, "X-SMP-APPCID": id]

        let root = try world.send(.GET, "/\(Self.app)", headers: headers)
        #expect(root.status == .ok)
        #expect(root.text == #"{"d":{"EntitySets":["Products"]}}"#)
        #expect(root.headers.first(name: "X-SMP-APPCID") == id)

        let metadata = try world.send(.GET, "/\(Self.app)/$metadata", headers: headers)
        #expect(metadata.status == .ok)
        #expect(metadata.headers.first(name: "Content-Type") == "application/xml")
        #expect(metadata.text.contains(#"<EntitySet Name="Products" EntityType="WorkbenchDemo.Product"/>"#))

        let page = try world.send(.GET, "/\(Self.app)/Products?$top=2&$skip=1&$format=json", headers: headers)
        #expect(page.status == .ok)
        #expect(page.headers.first(name: "DataServiceVersion") == "2.0")
        // The URI is built from the Host header as sent (HTTPClient names the port when it is not 80).
        #expect(page.text.hasPrefix(#"{"d":{"results":[{"__metadata":{"uri":"https://scpms:443/com.workbench.demo/Products(2)""#))
        let filtered = try world.send(.GET, "/\(Self.app)/Products?$filter=Category%20eq%20%27Monitors%27", headers: headers)
        #expect(filtered.text.contains(#""Name":"Flat Screen 24""#))
        #expect(filtered.text.components(separatedBy: "__metadata").count == 2)

        let bad = try world.send(.GET, "/\(Self.app)/Products?$orderby=Name", headers: headers)
        #expect(bad.status == .badRequest)
        #expect(
            bad.text.hasPrefix(#"{"error":{"code":"BadRequest","message":{"lang":"en","value":"system query option '$orderby' is not supported here"#)
        )
        #expect(try world.send(.GET, "/\(Self.app)/Products(9)", headers: headers).status == .notFound)
        #expect(try world.send(.DELETE, "/\(Self.app)/Products(1)", headers: headers).status == .methodNotAllowed)

        // Without an id, with an unknown one, and once the registration is deleted: 403, no data.
        #expect(try world.send(.GET, "/\(Self.app)/Products").status == .forbidden)
        #expect(try world.server.deleteRegistration(id))
        let revoked = try world.send(.GET, "/\(Self.app)/Products", headers: headers)
        #expect(revoked.status == .forbidden)
        #expect(!revoked.text.contains("results"))
        #expect(world.kernel.trace.all.contains { $0.event == "appcid-refused" && $0["reason"] == "unknown" })
        #expect(world.kernel.loop.violations.isEmpty)
    }

    @Test func httpsOnlyWhenPlainIsOff() async throws {
        let world = try Self.world(servesPlainHTTP: false)
        #expect(world.server.httpBaseURL == nil)
        _ = try world.register("{}")
        #expect(throws: (any Error).self) {
            try world.kernel.run("plain") { [phone = world.phone] in
                try await HTTPClient.send(HTTPRequest(), host: "scpms", port: 80, on: phone, timeout: .seconds(5))
            }
        }
    }

    /// The fixture's request, parsed back into method, target and headers.
    static func originalRequest() throws -> HTTPRequest {
        let text = try String(contentsOfFile: Repository.fixture("scpms/original-registration.http"), encoding: .utf8)
        let head = try #require(text.components(separatedBy: "\r\n\r\n").first)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        var headers = HTTPHeaders()
        for line in lines {
            let parts = line.split(separator: ":", maxSplits: 1)
            headers.add(name: String(parts[0]), value: parts[1].trimmingCharacters(in: .whitespaces))
        }
        #expect(text.hasSuffix("\r\n\r\n"), "the original app's POST has no body")
        return HTTPRequest(method: HTTPMethod(rawValue: String(requestLine[0])), target: String(requestLine[1]), headers: headers)
    }

    @Test func theOriginalAppsLiteralRegistrationIsAcceptedAsSent() throws {
        let world = try Self.world()
        let request = try Self.originalRequest()
        #expect(request.headers.first(name: "Content-Length") == "0")
        let response = try world.send(request.method, request.target, headers: request.headers)
        #expect(response.status == .created)
        #expect(response.text.contains(#""DeviceType":"Unknown""#))
        #expect(response.text.contains(#""UserName":null"#))
        let registered = try #require(world.kernel.trace.all.first { $0.event == "registered" })
        #expect(registered["body-bytes"] == "0")
        #expect(registered["user"] == "demo")
        #expect(registered["user-name"] == "")
    }
}
