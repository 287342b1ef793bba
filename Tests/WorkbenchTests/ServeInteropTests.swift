import Foundation
import TestSupport
import Testing
import Wire
@testable import Workbench

/// `workbench serve` on the live wire, checked with a real third-party client (curl); and the servers
/// `workbench bench` starts as processes, checked with the bench's own client.
@Suite(.serialized) struct ServeInteropTests {
    /// `bench mig`'s private cupsd takes Print-Jobs from the bench's client loop and reports them completed (the
    /// loop throws otherwise); stopping it removes its directory. No timing is checked.
    @Test func benchMigsPrivateCupsdAcknowledgesAndCompletesJobs() async throws {
        let state = NSTemporaryDirectory() + "workbench-cupsd-test-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let cupsd = try Served.cupsd(state: state)
        defer { cupsd.stop() }
        let wire = LiveWire(seed: 1, threads: 1)
        let target = MiGBench.Target(server: .cupsd, port: cupsd.port, resource: "/printers/bench", credentials: nil)
        let figures = try await MiGBench.measure(target, jobs: 2, clients: 2, document: Array("%PDF-1.4\n".utf8), wire: wire)
        try await wire.shutdown()
        #expect(figures.busyRetries == 0)
        #expect(figures.completedPerSecond > 0)
        cupsd.stop()
        #expect(!cupsd.process.isRunning)
        #expect(!FileManager.default.fileExists(atPath: state))
    }

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
