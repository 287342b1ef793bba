import Foundation
import Testing

/// `workbench serve` on the live wire, checked with a real third-party client (curl).
@Suite(.serialized) struct ServeInteropTests {
    @Test func curlReachesTheServedActorAndSIGTERMStopsCleanly() throws {
        let process = Process()
        process.executableURL = Paths.binary
        process.arguments = ["serve", "--set", "echo.http-port=0", "--set", "echo.tcp-port=0"] + ServeIMSTests.freePorts
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()

        // Read until both listening lines are there.
        var text = ""
        let reader = output.fileHandleForReading
        while text.components(separatedBy: "listening ").count < 3 {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let lines = text.split(separator: "\n").map(String.init)
        let http = try #require(lines.first { $0.hasPrefix("listening echo http://") }?.split(separator: " ").last.map(String.init))
        #expect(lines.contains { $0.hasPrefix("listening echo tcp://127.0.0.1:") })

        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sS", "--max-time", "10", http]
        let body = Pipe()
        curl.standardOutput = body
        try curl.run()
        let answer = String(decoding: body.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        curl.waitUntilExit()
        #expect(curl.terminationStatus == 0)
        #expect(answer == "echo hello\n")

        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }
}
