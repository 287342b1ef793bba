import Foundation
import SCPmsServer
import TestSupport
import Testing
import Wire

/// The registration actor on real loopback sockets, driven by a real third-party client (curl).
@Suite(.serialized) struct SCPmsCurlInteropTests {
    /// Runs curl; returns its standard output (with `-i`, the status line and headers first).
    static func curl(_ arguments: [String]) throws -> String {
        let run = try ExternalProcess.run("/usr/bin/curl", ["-sS", "-g", "--max-time", "10"] + arguments)
        #expect(run.status == 0, "curl \(arguments) exited with \(run.status): \(run.stderr)")
        return run.stdout
    }

    /// The last response of the output: with `--anyauth`, curl prints the 401 it answered first.
    static func final(_ response: String) -> Substring {
        response.ranges(of: "HTTP/1.1 ").last.map { response[$0.lowerBound...] } ?? Substring(response)
    }

    static func status(_ response: String) -> String {
        String(final(response).split(separator: "\r\n").first?.split(separator: " ").dropFirst().first ?? "")
    }

    static func header(_ name: String, _ response: String) -> String? {
        final(response).split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    @Test func registerChallengeAPPCIDCheckAndDeleteWithCurl() async throws {
        let wire = LiveWire(seed: 1, threads: 1)
        let server = try await SCPmsServer.start(on: wire.node("scpms"), configuration: SCPmsServer.Configuration(port: 0))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scpms-curl-\(UInt64.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jar = directory.appendingPathComponent("cookies").path
        let base = server.baseURL
        let app = "\(base)/\(server.configuration.applicationId)"
        let collection = "\(base)/odata/applications/latest/\(server.configuration.applicationId)/Connections"

        // Register, answering the Basic challenge only when asked (--anyauth), and keep the cookie.
        let registered = try Self.curl([
            "-i", "--anyauth", "-u", "demo:password", "-c", jar, "-H", "Content-Type: application/json",
            "-d", #"{"DeviceType": "Android", "DeviceModel": "Pixel", "UserName": "demo"}"#, collection,
        ])
        #expect(Self.status(registered) == "201")
        #expect(registered.hasPrefix("HTTP/1.1 401"), "curl sent credentials only after the challenge")
        let location = try #require(Self.header("Location", registered))
        let id = String(try #require(location.split(separator: "'").dropFirst().first))
        #expect(location == "\(collection)('\(id)')")
        #expect(Self.header("Set-Cookie", registered) == "X-SMP-APPCID=\(id); Path=/; HttpOnly")
        #expect(registered.contains(#""ApplicationConnectionId":"\#(id)""#))

        // No credentials: the Basic challenge.
        let challenged = try Self.curl(["-i", app])
        #expect(Self.status(challenged) == "401")
        #expect(Self.header("WWW-Authenticate", challenged) == "Basic realm=\"SAP Mobile Services\"")

        // The application endpoint: 403 without the id, 200 with the cookie curl kept, or with the header.
        #expect(Self.status(try Self.curl(["-i", "-u", "demo:password", app])) == "403")
        #expect(Self.status(try Self.curl(["-i", "-u", "demo:password", "-b", jar, app])) == "200")
        #expect(Self.status(try Self.curl(["-i", "-u", "demo:password", "-H", "X-SMP-APPCID: \(id)", app])) == "200")

        // Delete, then it is gone.
        #expect(Self.status(try Self.curl(["-i", "-u", "demo:password", "-X", "DELETE", location])) == "200")
        #expect(Self.status(try Self.curl(["-i", "-u", "demo:password", "-X", "DELETE", location])) == "404")
        #expect(Self.status(try Self.curl(["-i", "-u", "demo:password", "-b", jar, app])) == "403")

        try await server.stop()
        try await wire.shutdown()
    }

    /// HTTPS with the test CA's certificate (Fixtures/tls, as MiG): openssl shows it, the original app's literal request
    /// goes through `openssl s_client`, and curl --cacert registers, reads the app's OData service and is refused
    /// once the registration is deleted.
    @Test func httpsODataWithOpensslAndCurl() async throws {
        let wire = LiveWire(seed: 1, threads: 1)
        var configuration = SCPmsServer.Configuration(port: 0)
        configuration.tls = .init(
            port: 0, certificatePath: Repository.fixture("tls/server.pem"),
            privateKeyPath: Repository.fixture("tls/server.key"))
        let server = try await SCPmsServer.start(on: wire.node("scpms"), configuration: configuration)
        let https = try #require(server.httpsBaseURL)
        let port = try #require(https.split(separator: ":").last.map(String.init))
        let ca = Repository.fixture("tls/ca.pem")
        let base = "https://localhost:\(port)"
        let app = "\(base)/\(server.configuration.applicationId)"

        // openssl s_client shows the server certificate and verifies it against the test CA.
        let shown = try ExternalProcess.run(
            "/usr/bin/openssl",
            [
                "s_client", "-connect", "127.0.0.1:\(port)", "-servername", "scpms",
                "-CAfile", ca, "-verify_return_error", "-showcerts",
            ], input: Data())
        #expect(shown.stdout.contains("subject=O = Workbench Test, CN = tls-server"), "\(shown.output)")
        #expect(shown.stdout.contains("issuer=O = Workbench Test, CN = Workbench Test CA"), "\(shown.output)")
        #expect(shown.stdout.contains("Verify return code: 0 (ok)"), "\(shown.output)")

        // The original app's registration request, byte for byte (no body), through a real TLS client.
        let literal = try Data(contentsOf: URL(fileURLWithPath: Repository.fixture("scpms/original-registration.http")))
        let replayed = try ExternalProcess.run(
            "/usr/bin/openssl",
            [
                "s_client", "-connect", "127.0.0.1:\(port)", "-servername", "scpms",
                "-CAfile", ca, "-quiet",
            ], input: literal)
        #expect(replayed.stdout.hasPrefix("HTTP/1.1 201 Created\r\n"), "\(replayed.output)")
        #expect(replayed.stdout.contains(#""DeviceType":"Unknown""#))

        // Without the CA, curl refuses the certificate (exit 60): the test CA is really what is trusted.
        let untrusted = try ExternalProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", "\(base)/"])
        #expect(untrusted.status == 60, "\(untrusted.output)")

        let registered = try Self.curl([
            "-i", "--cacert", ca, "-u", "demo:password", "-H", "Content-Type: application/json", "-d", "{}",
            "\(base)/odata/applications/latest/\(server.configuration.applicationId)/Connections",
        ])
        #expect(Self.status(registered) == "201")
        let location = try #require(Self.header("Location", registered))
        #expect(location.hasPrefix("https://localhost:\(port)/"))
        let id = String(try #require(location.split(separator: "'").dropFirst().first))
        let auth = ["--cacert", ca, "-u", "demo:password", "-H", "X-SMP-APPCID: \(id)"]

        let metadata = try Self.curl(["-i"] + auth + ["\(app)/$metadata"])
        #expect(Self.status(metadata) == "200")
        #expect(Self.header("Content-Type", metadata) == "application/xml")
        #expect(metadata.contains(#"<EntitySet Name="Products" EntityType="WorkbenchDemo.Product"/>"#))

        let page = try Self.curl(auth + ["\(app)/Products?$top=2&$skip=1&$format=json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(page.utf8)) as? [String: Any])
        let results = try #require((object["d"] as? [String: Any])?["results"] as? [[String: Any]])
        #expect(results.map { $0["ProductID"] as? Int } == [2, 3])
        #expect((results[0]["__metadata"] as? [String: Any])?["uri"] as? String == "https://localhost:\(port)/com.workbench.demo/Products(2)")

        let filtered = try Self.curl(
            auth + [
                "-G", "--data-urlencode", "$filter=Category eq 'Notebooks'", "--data-urlencode", "$format=json",
                "\(app)/Products",
            ])
        #expect(filtered.contains(#""Name":"Notebook Basic 15""#) && filtered.contains(#""Name":"Notebook Professional 17""#))
        #expect(!filtered.contains("Monitors"))
        let one = try Self.curl(auth + ["\(app)/Products(4)?$format=json"])
        #expect(
            one.hasPrefix(
                #"{"d":{"__metadata":{"uri":"https://localhost:\#(port)/com.workbench.demo/Products(4)","type":"WorkbenchDemo.Product"},"ProductID":4,"#
            ))
        let unsupported = try Self.curl(["-i"] + auth + ["\(app)/Products?$orderby=Name"])
        #expect(Self.status(unsupported) == "400")
        #expect(unsupported.contains(#"{"error":{"code":"BadRequest","message":{"lang":"en","value":"system query option '$orderby'"#))

        // Deleted: the same request is refused.
        #expect(Self.status(try Self.curl(["-i", "--cacert", ca, "-u", "demo:password", "-X", "DELETE", location])) == "200")
        let refused = try Self.curl(["-i"] + auth + ["\(app)/Products?$format=json"])
        #expect(Self.status(refused) == "403")
        #expect(!refused.contains("results"))

        try await server.stop()
        try await wire.shutdown()
    }
}
