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
        let registered = try Self.curl(["-i", "--anyauth", "-u", "demo:password", "-c", jar, "-H", "Content-Type: application/json",
                                        "-d", #"{"DeviceType": "Android", "DeviceModel": "Pixel", "UserName": "demo"}"#, collection])
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
}
