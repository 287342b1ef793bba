import Foundation
import TestSupport
import Testing

/// `workbench serve` with the SCPms actor: the listed URL works with curl, and a registration the client
/// was told about (201) survives `kill -9` of the server.
@Suite(.serialized) struct SCPmsServeTests {
    /// Starts `workbench serve` and returns it with its `listening scpms` URL.
    static func serve(database: String) throws -> (ServedProcess, String) {
        let serve = try WorkbenchBinary.serve(
            [
                "--only", "scpms", "--set", "scpms.port=0", "--set", "scpms.tls-port=0", "--set", "scpms.database=\(database)",
                "--state-dir", NSTemporaryDirectory() + "workbench-scpms-serve-\(getpid())",
            ],
            until: { $0.contains("listening scpms http://") && $0.hasSuffix("\n") })
        let line = try #require(serve.lines.first { $0.hasPrefix("listening scpms ") })
        return (serve, String(line.dropFirst("listening scpms ".count)))
    }

    /// curl trusting the test CA (the HTTPS listener's certificate is Fixtures/tls/server.pem).
    static func curl(_ arguments: [String]) throws -> String {
        let run = try ExternalProcess.run(
            "/usr/bin/curl", ["-sS", "-g", "--max-time", "10", "--cacert", Repository.fixture("tls/ca.pem")] + arguments)
        #expect(run.status == 0, "curl \(arguments): \(run.stderr)")
        return run.stdout
    }

    @Test func theListedURLWorksAndRegistrationsSurviveKill9() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scpms-serve-\(UInt64.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("scpms.sqlite").path

        let (first, url) = try Self.serve(database: database)
        #expect(url.hasPrefix("https://demo:password@127.0.0.1:"), "HTTPS is listed first")
        #expect(url.hasSuffix("/com.workbench.demo"))
        // The URL carries the demo credentials, so curl passes the Basic check and meets the APPCID check.
        #expect(try Self.curl(["-o", "/dev/null", "-w", "%{http_code}", url]) == "403")
        let base = String(url.dropLast("/com.workbench.demo".count))
        let registered = try Self.curl([
            "-w", "\n%{http_code}", "-H", "Content-Type: application/json", "-d", "{}",
            "\(base)/odata/applications/latest/com.workbench.demo/Connections",
        ])
        #expect(registered.hasSuffix("\n201"))
        let id = try #require(registered.split(separator: "\"").drop { $0 != "ApplicationConnectionId" }.dropFirst(2).first)
        #expect(first.kill() == .signalled(SIGKILL))

        let (second, again) = try Self.serve(database: database)
        #expect(try Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "X-SMP-APPCID: \(id)", again]) == "200")
        #expect(second.stop() == .exited(0))
    }
}
