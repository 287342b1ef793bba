import Foundation
import TestSupport
import Testing
import Wire

@testable import MiGSystem
@testable import SystemKit
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
        let figures = try await MiGBench.measure(target, jobs: 2, clients: 2, document: TestDocuments.pdf(pages: 1), wire: wire)
        try await wire.shutdown()
        #expect(figures.busyRetries == 0)
        #expect(figures.completedPerSecond > 0)
        cupsd.stop()
        #expect(!cupsd.process.isRunning)
        #expect(!FileManager.default.fileExists(atPath: state))
    }

    @Test func curlReachesTheServedActorAndSIGTERMStopsCleanly() throws {
        let serve = try WorkbenchBinary.serve(
            [
                "--only", "echo", "--set", "echo.http-port=0", "--set", "echo.tcp-port=0", "--state-dir",
                NSTemporaryDirectory() + "workbench-serve-test",
            ],
            until: { $0.components(separatedBy: "listening ").count >= 3 && $0.hasSuffix("\n") })
        let http = try serve.lastWord(ofLineStartingWith: "listening echo http://")
        #expect(serve.lines.contains { $0.hasPrefix("listening echo tcp://127.0.0.1:") }, "\(serve.output)")

        let curl = try ExternalProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", http])
        #expect(curl.status == 0, "\(curl.stderr)")
        #expect(curl.stdout == "echo hello\n")

        // SIGTERM: serve stops by itself, with status 0 (stop() kills it only if it has not after the grace period).
        #expect(serve.stop() == .exited(0))
    }

    /// `serve --topology mig-behind-proxy`: the original nginx deployment — MiG plain HTTP only (no IPPS), the proxy
    /// forwarding to it. curl prints through the proxy with the client certificate; TLS to MiG's port fails at once.
    /// (Free ports stand in for 8050 and 8443, which the topology uses by default.)
    @Test func theOriginalProxyTopologyServesPlainMiGBehindTheProxy() throws {
        let plain = try Ports.free()
        let proxy = try Ports.free()
        let state = NSTemporaryDirectory() + "workbench-serve-topology-\(getpid())"
        let serve = try WorkbenchBinary.serve(
            [
                "--topology", "mig-behind-proxy", "--only", "mig", "--only", "mig-proxy", "--set", "mig.plain-port=\(plain)",
                "--set", "mig-proxy.upstream=mig:\(plain)", "--set", "mig-proxy.port=\(proxy)", "--state-dir", state,
            ],
            until: { $0.contains("listening mig-proxy ") && $0.hasSuffix("\n") })
        defer { _ = serve.stop() }
        let listening = serve.lines.filter { $0.hasPrefix("listening mig ") }
        #expect(listening == ["listening mig ipp://demo:demo-password@127.0.0.1:\(plain)/ipp/print"], "\(serve.output)")

        let tls = Repository.fixture("tls")
        let request = state + "/original-request.ipp"
        var body = try Data(contentsOf: URL(fileURLWithPath: Repository.fixture("ipp/original-000-print-job-request.ipp")))
        body.append(Data(TestDocuments.pdf(pages: 1)))
        try body.write(to: URL(fileURLWithPath: request))
        let curl = try ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "20", "-o", state + "/answer", "-w", "%{http_code}", "--cacert", "\(tls)/ca.pem",
                "--cert", "\(tls)/client.pem", "--key", "\(tls)/client.key", "-u", "secure:secure-password",
                "-H", "Content-Type: application/ipp", "--data-binary", "@" + request, "https://localhost:\(proxy)/ipp/print",
            ])
        #expect(curl.stdout == "200", "\(curl.stderr)")
        // Through the proxy to plain MiG: the original app's bytes get the same IPP refusal as anywhere else.
        let answer = Array(try Data(contentsOf: URL(fileURLWithPath: state + "/answer")))
        #expect(answer.count > 4 && answer[2] == 0x04 && answer[3] == 0x00, "client-error-bad-request (0x0400)")

        // TLS to MiG's plain port: MiG answers the ClientHello with HTTP 400 and closes, so curl fails at once.
        let tlsToPlain = try ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "20", "--cacert", "\(tls)/ca.pem",
                "https://localhost:\(plain)/ipp/print",
            ])
        #expect(tlsToPlain.status == 35, "curl's SSL connect error, not a timeout (28): \(tlsToPlain.stderr)")

        let unknown = try WorkbenchBinary.run(["serve", "--topology", "nginx"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("--topology nginx: expected one of mig-behind-proxy"))
    }
}
