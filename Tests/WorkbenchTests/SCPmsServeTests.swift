import Foundation
import Testing

/// `workbench serve` with the SCPms actor: the listed URL works with curl, and a registration the client
/// was told about (201) survives `kill -9` of the server.
@Suite(.serialized) struct SCPmsServeTests {
    /// Starts `workbench serve` and returns it with its `listening scpms` URL.
    static func serve(database: String) throws -> (Process, String) {
        let process = Process()
        process.executableURL = Paths.binary
        process.arguments = ["serve", "--only", "scpms", "--set", "scpms.port=0", "--set", "scpms.database=\(database)",
                             "--state-dir", NSTemporaryDirectory() + "workbench-scpms-serve-\(getpid())"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("listening scpms ") || !text.hasSuffix("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = text.split(separator: "\n").first { $0.hasPrefix("listening scpms ") }
        return (process, line.map { String($0.dropFirst("listening scpms ".count)) } ?? "")
    }

    static func curl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "-g", "--max-time", "10"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func theListedURLWorksAndRegistrationsSurviveKill9() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scpms-serve-\(UInt64.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("scpms.sqlite").path

        let (first, url) = try Self.serve(database: database)
        #expect(url.hasPrefix("http://demo:password@127.0.0.1:"))
        #expect(url.hasSuffix("/com.workbench.demo"))
        // The URL carries the demo credentials, so curl passes the Basic check and meets the APPCID check.
        #expect(try Self.curl(["-o", "/dev/null", "-w", "%{http_code}", url]) == "403")
        let base = String(url.dropLast("/com.workbench.demo".count))
        let registered = try Self.curl(["-w", "\n%{http_code}", "-H", "Content-Type: application/json", "-d", "{}",
                                        "\(base)/odata/applications/latest/com.workbench.demo/Connections"])
        #expect(registered.hasSuffix("\n201"))
        let id = try #require(registered.split(separator: "\"").drop { $0 != "ApplicationConnectionId" }.dropFirst(2).first)
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()

        let (second, again) = try Self.serve(database: database)
        #expect(try Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "X-SMP-APPCID: \(id)", again]) == "200")
        second.terminate()
        second.waitUntilExit()
        #expect(second.terminationStatus == 0)
    }
}
