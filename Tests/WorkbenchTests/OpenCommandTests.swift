import Foundation
import Testing

/// `workbench open` and curl deliver URLs to the bus of a running `workbench serve` (live wire).
@Suite(.serialized) struct OpenCommandTests {
    @Test func openAndCurlReachTheIvantiClientThroughTheGateway() throws {
        let serve = Process()
        serve.executableURL = Paths.binary
        serve.arguments = ["serve", "--only", "ivanti", "--set", "ivanti.bus-port=0", "--state-dir", NSTemporaryDirectory() + "workbench-open-test-\(getpid())"]
        let output = Pipe()
        serve.standardOutput = output
        serve.standardError = FileHandle.nullDevice
        try serve.run()
        defer {
            serve.terminate()
            serve.waitUntilExit()
        }
        var text = ""
        let reader = output.fileHandleForReading
        while !text.contains("listening ivanti ") || !text.hasSuffix("\n") {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("listening ivanti http://") })
        let bus = String(line.split(separator: " ").last ?? "")
        #expect(bus.hasSuffix("/open"))

        let (opened, answer) = try Paths.run(["open", "--bus", bus, "--from", "mail", "appconnect://register?scheme=mail-ac"])
        #expect(opened == 0)
        #expect(answer == "opened for ivanti (scheme appconnect)\n")
        let (unhandled, refusal) = try Paths.run(["open", "--bus", bus, "nobody://anything"])
        #expect(unhandled == 1)
        #expect(refusal == "no app handles the scheme 'nobody'\n")

        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sS", "--max-time", "10", "--data-binary", "appconnectdc://certificate?serial=1&tag=Signing", bus]
        let body = Pipe()
        curl.standardOutput = body
        try curl.run()
        let curlAnswer = String(decoding: body.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        curl.waitUntilExit()
        #expect(curlAnswer == "opened for ivanti (scheme appconnectdc)\n")
    }

    @Test func openSaysWhenNoServeIsRunning() throws {
        let (status, _) = try Paths.run(["open", "--bus", "http://127.0.0.1:1/open", "appconnect://x"])
        #expect(status != 0)
    }
}
