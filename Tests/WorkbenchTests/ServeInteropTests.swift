import Foundation
import TestSupport
import Testing

/// `workbench serve` on the live wire, checked with a real third-party client (curl).
@Suite(.serialized) struct ServeInteropTests {
    @Test func curlReachesTheServedActorAndSIGTERMStopsCleanly() throws {
        let serve = try WorkbenchBinary.serve(
            ["--only", "echo", "--set", "echo.http-port=0", "--set", "echo.tcp-port=0", "--state-dir", NSTemporaryDirectory() + "workbench-serve-test"],
            until: { $0.components(separatedBy: "listening ").count >= 3 && $0.hasSuffix("\n") })
        let http = try serve.lastWord(ofLineStartingWith: "listening echo http://")
        #expect(serve.lines.contains { $0.hasPrefix("listening echo tcp://127.0.0.1:") }, "\(serve.output)")

        let curl = try ExternalProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", http])
        #expect(curl.status == 0, "\(curl.stderr)")
        #expect(curl.stdout == "echo hello\n")

        // SIGTERM: serve stops by itself, with status 0 (stop() kills it only if it has not after the grace period).
        #expect(serve.stop() == .exited(0))
    }
}
