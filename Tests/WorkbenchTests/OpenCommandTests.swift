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
        #expect(
            opened.stdout
                == "opened for ivanti (scheme appconnect)\naccepted: registered app mail for AppConnect; its state goes to mail-ac://state\n")
        let unhandled = try WorkbenchBinary.run(["open", "--bus", bus, "nobody://anything"])
        #expect(unhandled.status == 1)
        #expect(unhandled.stdout == "no app handles the scheme 'nobody'\n")

        let curl = try ExternalProcess.run(
            "/usr/bin/curl", ["-sS", "-i", "--max-time", "10", "--data-binary", "appconnectdc://certificate?serial=1&tag=Signing", bus])
        #expect(curl.stdout.hasPrefix("HTTP/1.1 202 Accepted\r\n"), "\(curl.output)")
        #expect(curl.stdout.contains("X-Bus-Receipt: refused\r\n"), "\(curl.output)")
        #expect(
            curl.stdout.hasSuffix(
                "\r\n\r\nopened for ivanti (scheme appconnectdc)\nrefused: app external has not started AppConnect "
                    + "(appconnect://register?scheme=S), so there is no scheme to answer on\n"), "\(curl.output)")
    }

    /// The Ivanti client says what it did with each URL, and why it refused one; a refusal exits 1.
    @Test func openPrintsWhatTheReceivingAppDidWithTheURL() throws {
        let serve = try WorkbenchBinary.serve(
            ["--only", "ivanti", "--set", "ivanti.bus-port=0", "--state-dir", NSTemporaryDirectory() + "workbench-open-receipt-\(getpid())"],
            until: { $0.contains("listening ivanti ") && $0.hasSuffix("\n") })
        defer { serve.stop() }
        let bus = try serve.lastWord(ofLineStartingWith: "listening ivanti http://")
        let open = { (url: String) in try WorkbenchBinary.run(["open", "--bus", bus, "--from", "notes", url]) }

        let registered = try open("appconnect://register?scheme=notes-ac")
        #expect(registered.status == 0)
        #expect(registered.stdout.split(separator: "\n").last == "accepted: registered app notes for AppConnect; its state goes to notes-ac://state")
        let unknown = try open("appconnectdc://certificate?serial=7&tag=Signing")
        #expect(unknown.status == 1, "a refusal is a failure for a script: \(unknown.output)")
        #expect(
            unknown.stdout
                == "opened for ivanti (scheme appconnectdc)\nrefused: app notes holds no credential with serial number 7 "
                + "(the denial went to notes-ac://)\n")
        let badTag = try open("appconnectdc://certificate?serial=7&tag=Bogus")
        #expect(badTag.status == 1)
        #expect(badTag.stdout.contains("\nrefused: unknown-tag: tag=Bogus; expected one of "), "\(badTag.output)")
    }

    @Test func openSaysWhenNoServeIsRunning() throws {
        let run = try WorkbenchBinary.run(["open", "--bus", "http://127.0.0.1:1/open", "appconnect://x"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("cannot reach the bus gateway at http://127.0.0.1:1/open"), "\(run.output)")
    }
}
