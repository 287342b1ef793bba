import Foundation
import JSONEscaping
import Kernel
import NIOCore
import NIOHTTP1
import NIOSSL
import SCPms
import SCPmsServer
import Testing
import Wire
import WireHTTP

/// The registration endpoint on the simulated wire: what SCPms answers, and how it refuses bad input.
@Suite struct SCPmsServerTests {
    static let app = "com.workbench.demo"
    static let collection = "/odata/applications/latest/\(app)/Connections"
    static let demo = BasicCredentials(user: "demo", password: "password").headerValue

    struct World {
        let kernel: Kernel
        let phone: Node
        let server: SCPmsServer
        /// Set: requests go over HTTPS (port 443) trusting this context; nil: plain HTTP on 80.
        var trust: NIOSSLContext? = nil

        func send(
            _ method: HTTPMethod, _ target: String, headers: HTTPHeaders = ["Authorization": SCPmsServerTests.demo],
            body: String? = nil
        ) throws -> HTTPResponse {
            let request = HTTPRequest(method: method, target: target, headers: headers, body: body.map { ByteBuffer(string: $0) })
            guard let trust else {
                return try kernel.run("send") { [phone] in try await HTTPClient.send(request, host: "scpms", port: 80, on: phone) }
            }
            return try kernel.run("send") { [phone] in
                try await HTTPClient.send(request, host: "scpms", port: 443, on: phone) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: trust, serverHostname: "scpms"))
                    }
                }
            }
        }

        func register(_ body: String = #"{"DeviceType": "iPhone", "DeviceModel": "iOS 17", "UserName": "demo"}"#) throws -> String {
            let response = try send(
                .POST, SCPmsServerTests.collection, headers: ["Authorization": SCPmsServerTests.demo, "Content-Type": "application/json"], body: body)
            #expect(response.status == .created)
            let cookie = try #require(response.headers.first(name: "Set-Cookie"))
            return String(cookie.dropFirst("X-SMP-APPCID=".count).prefix { $0 != ";" })
        }

        var count: Int { (try? server.store.connectionCount()) ?? -1 }
    }

    static func world(_ configuration: SCPmsServer.Configuration = SCPmsServer.Configuration(), seed: UInt64 = 3) throws -> World {
        let kernel = Kernel(seed: seed)
        let node = kernel.node("scpms")
        let server = try kernel.run("start scpms") { try await SCPmsServer.start(on: node, configuration: configuration) }
        return World(kernel: kernel, phone: kernel.node("phone"), server: server)
    }

    @Test func registrationAnswers201WithLocationCookieAndODataBody() throws {
        let world = try Self.world()
        let response = try world.send(
            .POST, Self.collection, headers: ["Authorization": Self.demo, "Content-Type": "application/json"],
            body: #"{"DeviceType": "iPhone", "DeviceModel": "iOS 17", "UserName": "demo"}"#)
        #expect(response.status == .created)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
        let d = try #require(object["d"] as? [String: Any])
        let id = try #require(d["ApplicationConnectionId"] as? String)
        #expect(id.count == 36)
        #expect(response.headers.first(name: "Location") == "http://scpms\(Self.collection)('\(id)')")
        #expect(response.headers.first(name: "Set-Cookie") == "X-SMP-APPCID=\(id); Path=/; HttpOnly")
        #expect(d["CreatedAt"] as? String == "/Date(1767225600000)/")
        #expect(d["DeviceType"] as? String == "iPhone")
        #expect((d["__metadata"] as? [String: Any])?["uri"] as? String == "http://scpms\(Self.collection)('\(id)')")
        #expect(world.kernel.loop.violations.isEmpty)
    }

    @Test func connectionIdsComeFromTheSeed() throws {
        let first = try Self.world(seed: 11).register()
        let again = try Self.world(seed: 11).register()
        let other = try Self.world(seed: 12).register()
        #expect(first == again)
        #expect(first != other)
    }

    @Test func emptyBodyRegistersWithDefaults() throws {
        let world = try Self.world()
        let id = try world.register("")
        let read = try world.send(.GET, "/odata/applications/v1/\(Self.app)/Connections('\(id)')")
        #expect(read.status == .ok)
        #expect(read.text.contains(#""DeviceType":"Unknown""#))
    }

    @Test func basicChallengeAndCredentialProblems() throws {
        let world = try Self.world()
        let missing = try world.send(.POST, Self.collection, headers: [:], body: "{}")
        #expect(missing.status == .unauthorized)
        #expect(missing.headers.first(name: "WWW-Authenticate") == "Basic realm=\"SAP Mobile Services\"")
        let wrong = try world.send(
            .POST, Self.collection, headers: ["Authorization": BasicCredentials(user: "demo", password: "nope").headerValue], body: "{}")
        #expect(wrong.status == .unauthorized)
        #expect(wrong.text == "the user or password is wrong\n")
        let garbled = try world.send(.POST, Self.collection, headers: ["Authorization": "Basic %%%"], body: "{}")
        #expect(garbled.status == .badRequest)
        #expect(garbled.text.contains("not valid base64"))
        let bearer = try world.send(.POST, Self.collection, headers: ["Authorization": "Bearer x"], body: "{}")
        #expect(bearer.status == .badRequest)
        #expect(world.count == 0)
    }

    @Test func unknownApplicationIs404() throws {
        let world = try Self.world()
        let response = try world.send(.POST, "/odata/applications/latest/com.other/Connections", body: "{}")
        #expect(response.status == .notFound)
        #expect(response.text == "unknown application 'com.other'\n")
        #expect(try world.send(.GET, "/com.other").status == .notFound)
    }

    @Test func readUpdateDeleteAndThen404() throws {
        let world = try Self.world()
        let id = try world.register()
        let path = "\(Self.collection)('\(id)')"
        let put = try world.send(
            .PUT, path, headers: ["Authorization": Self.demo, "Content-Type": "application/json"], body: #"{"DeviceType": "iPad"}"#)
        #expect(put.status == .noContent)
        #expect(try world.send(.GET, path).text.contains(#""DeviceType":"iPad""#))
        #expect(try world.send(.DELETE, path).status == .ok)
        #expect(try world.send(.DELETE, path).status == .notFound)
        #expect(try world.send(.GET, path).status == .notFound)
        #expect(world.count == 0)
    }

    @Test func theApplicationEndpointNeedsARegisteredAPPCID() throws {
        let world = try Self.world()
        let id = try world.register()
        let none = try world.send(.GET, "/\(Self.app)")
        #expect(none.status == .forbidden)
        #expect(none.text.contains("no X-SMP-APPCID"))
        #expect(try world.send(.GET, "/\(Self.app)", headers: ["Authorization": Self.demo, "X-SMP-APPCID": id]).status == .ok)
        #expect(try world.send(.GET, "/\(Self.app)", headers: ["Authorization": Self.demo, "Cookie": "a=b; X-SMP-APPCID=\(id)"]).status == .ok)
        let head = try world.send(.HEAD, "/\(Self.app)", headers: ["Authorization": Self.demo, "X-SMP-APPCID": id])
        #expect(head.status == .ok)
        #expect(head.body.readableBytes == 0)
        let unknown = try world.send(.GET, "/\(Self.app)", headers: ["Authorization": Self.demo, "X-SMP-APPCID": "NOT-REGISTERED"])
        #expect(unknown.status == .forbidden)
        let long = try world.send(.GET, "/\(Self.app)", headers: ["Authorization": Self.demo, "X-SMP-APPCID": String(repeating: "A", count: 129)])
        #expect(long.text.contains("at most 128"))
        // A registration belongs to the user who made it.
        try world.server.addUser("eve", password: "secret")
        let eve = BasicCredentials(user: "eve", password: "secret").headerValue
        #expect(try world.send(.GET, "/\(Self.app)", headers: ["Authorization": eve, "X-SMP-APPCID": id]).status == .forbidden)
        #expect(try world.send(.DELETE, "\(Self.collection)('\(id)')", headers: ["Authorization": eve]).status == .forbidden)
        #expect(world.count == 1)
    }

    @Test func malformedBodiesAndIdsStoreNothing() throws {
        let world = try Self.world(SCPmsServer.Configuration(maxRegistrationBytes: 1000))
        let json = ["Authorization": Self.demo, "Content-Type": "application/json"] as HTTPHeaders
        #expect(try world.send(.POST, Self.collection, headers: json, body: #"{"DeviceType": "#).text.contains("not valid JSON"))
        #expect(try world.send(.POST, Self.collection, headers: json, body: #"{"Nope": "x"}"#).status == .badRequest)
        #expect(try world.send(.POST, Self.collection, headers: json, body: String(repeating: " ", count: 2000)).status == .payloadTooLarge)
        let xml = try world.send(
            .POST, Self.collection, headers: ["Authorization": Self.demo, "Content-Type": "application/atom+xml"], body: "<entry/>")
        #expect(xml.status == .unsupportedMediaType)
        let badId = try world.send(.GET, "\(Self.collection)('1%27%20OR%20%271%27=%271')")
        #expect(badId.status == .badRequest)
        #expect(badId.text.contains("characters other than"))
        #expect(try world.send(.GET, "\(Self.collection)(42)").status == .badRequest)
        let patch = try world.send(.PATCH, Self.collection)
        #expect(patch.status == .methodNotAllowed)
        #expect(patch.headers.first(name: "Allow") == "POST")
        #expect(world.count == 0)
        let id = try world.register()
        #expect(try world.send(.PUT, "\(Self.collection)('\(id)')", headers: json, body: "[]").status == .badRequest)
        #expect(try world.send(.GET, "\(Self.collection)('\(id)')").text.contains(#""DeviceType":"iPhone""#))
    }

    @Test func sqlMetacharactersRoundTrip() throws {
        let world = try Self.world()
        let nasty = #"Robert'); DROP TABLE connection;-- "quoted" \ %_ ? :name"#
        let body = JSONString.quoted(nasty)
        let id = try world.register(#"{"UserName": \#(body), "CustomCustom1": \#(body)}"#)
        let read = try world.send(.GET, "\(Self.collection)('\(id)')")
        let d = try #require((try JSONSerialization.jsonObject(with: Data(read.body.readableBytesView)) as? [String: Any])?["d"] as? [String: Any])
        #expect(d["UserName"] as? String == nasty)
        #expect(d["CustomCustom1"] as? String == nasty)
        #expect(world.count == 1)
    }

    @Test func faultPointsAnswer503And500() throws {
        let world = try Self.world()
        world.kernel.faults.set(SCPmsServer.unavailableFault, .times(1))
        #expect(try world.send(.POST, Self.collection, body: "{}").status == .serviceUnavailable)
        world.kernel.faults.set(SCPmsServer.internalErrorFault, .times(1))
        #expect(try world.send(.POST, Self.collection, body: "{}").status == .internalServerError)
        #expect(world.count == 0)
        _ = try world.register()
        #expect(world.count == 1)
    }

    @Test func logUploadAnswers204_400_403_404() throws {
        let world = try Self.world()
        let id = try world.register()
        let path = "/mobileservices/application/\(Self.app)/clientlogs/v1/runtime/log/application/\(Self.app)?deviceId=\(id)"
        let headers: HTTPHeaders = ["Authorization": Self.demo, "X-SMP-APPCID": id]
        let line = ClientLogLine(timestamp: "2026-01-01 00:00:01", severity: .error, message: "boom #1").text
        #expect(try world.send(.POST, path, headers: headers, body: line + "\n" + line).status == .noContent)
        #expect(try world.server.store.logs(applicationId: Self.app).map(\.message) == ["boom #1", "boom #1"])
        let bad = try world.send(.POST, path, headers: headers, body: line + "\nnot a log line")
        #expect(bad.status == .badRequest)
        #expect(bad.text.contains("line 2"))
        #expect(try world.server.store.logs(applicationId: Self.app).count == 2)
        #expect(try world.send(.POST, path, headers: ["Authorization": Self.demo], body: line).status == .forbidden)
        let noDevice = "/mobileservices/application/\(Self.app)/clientlogs/v1/runtime/log/application/\(Self.app)"
        #expect(try world.send(.POST, noDevice, headers: headers, body: line).status == .badRequest)
        let otherApp = "/mobileservices/application/com.other/clientlogs/v1/runtime/log/application/com.other?deviceId=\(id)"
        #expect(try world.send(.POST, otherApp, headers: headers, body: line).status == .notFound)
        try world.server.addApplication(Self.app, logUploadEnabled: false)
        let disabled = try world.send(.POST, path, headers: headers, body: line)
        #expect(disabled.status == .forbidden)
        #expect(disabled.text.contains("disabled"))
    }

    /// Under simulation the database is a file on the node's simulated disk (the machine's file system is not touched):
    /// a registration answered 201 survives a crash of the node, and the server started again on what the disk kept
    /// knows it. (On a real disk, `SCPmsServeTests` restarts `serve` on the same file.)
    @Test func registrationsSurviveACrashOfTheNode() throws {
        let path = "/var/scpms-\(#line)/scpms.sqlite"
        let configuration = SCPmsServer.Configuration(databasePath: path)
        let world = try Self.world(configuration)
        let id = try world.register()
        try world.kernel.run("crash scpms") { try await world.server.stop() }
        #expect(world.kernel.crash(node: "scpms").lost == 0, "every commit was synced before its answer")
        let node = world.kernel.node("scpms")
        let restarted = try world.kernel.run("restart scpms") { try await SCPmsServer.start(on: node, configuration: configuration) }
        let again = World(kernel: world.kernel, phone: world.phone, server: restarted)
        #expect(again.count == 1)
        #expect(try again.send(.GET, "/\(Self.app)", headers: ["Authorization": Self.demo, "X-SMP-APPCID": id]).status == .ok)
        #expect(!FileManager.default.fileExists(atPath: path), "the file is on the simulated disk only")
    }
}
