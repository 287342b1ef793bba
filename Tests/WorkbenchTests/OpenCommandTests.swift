import Foundation
import TestSupport
import Testing

/// `workbench open` and curl deliver URLs to the bus of a running `workbench serve` (live wire).
@Suite(.serialized) struct OpenCommandTests {
    @Test func openAndCurlReachTheIvantiClientThroughTheGateway() throws {
        let serve = try WorkbenchBinary.serve(
            ["--only", "ivanti", "--set", "ivanti.bus-port=0", "--state-dir", NSTemporaryDirectory() + "workbench-open-test-\(getpid())"],
            until: { $0.contains("listening ivanti ") && $0.hasSuffix("\n") })
        defer { serve.stop() }
        let bus = try serve.lastWord(ofLineStartingWith: "listening ivanti http://")
        #expect(bus.hasSuffix("/open"))

        let opened = try WorkbenchBinary.run(["open", "--bus", bus, "--from", "mail", "appconnect://register?scheme=mail-ac"])
        #expect(opened.status == 0)
        #expect(opened.stdout == "opened for ivanti (scheme appconnect)\n")
        let unhandled = try WorkbenchBinary.run(["open", "--bus", bus, "nobody://anything"])
        #expect(unhandled.status == 1)
        #expect(unhandled.stdout == "no app handles the scheme 'nobody'\n")

        let curl = try ExternalProcess.run(
            "/usr/bin/curl", ["-sS", "--max-time", "10", "--data-binary", "appconnectdc://certificate?serial=1&tag=Signing", bus])
        #expect(curl.stdout == "opened for ivanti (scheme appconnectdc)\n", "\(curl.stderr)")
    }

    @Test func openSaysWhenNoServeIsRunning() throws {
        let run = try WorkbenchBinary.run(["open", "--bus", "http://127.0.0.1:1/open", "appconnect://x"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("cannot reach the bus gateway at http://127.0.0.1:1/open"), "\(run.output)")
    }
}
