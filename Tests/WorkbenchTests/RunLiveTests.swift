import Foundation
import TestSupport
import Testing

/// `workbench run --live`: the same scenario files on real sockets.
@Suite struct RunLiveTests {
    /// Writes `text` to a scenario file of its own and returns its path.
    static func scenario(_ text: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("run-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("live.scn")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    @Test func theReadmesHeadlineScenarioPassesLive() throws {
        let result = try WorkbenchBinary.run(["run", "--live", "Simulations/readme-day.scn"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.stdout.contains("ok Simulations/readme-day.scn: 8/8 expectations"), "\(result.stdout)")
        #expect(result.stdout.contains("live wire (no digest)"))
    }

    /// `--http urlsession`: the SCPms app and the IMS SDK send through URLSession (its own sockets, from 127.0.0.1, where
    /// the project's client connects from the phone's address), with the same expectations holding; an HTTPS actor is
    /// refused with why; and the simulated wire takes only the project's client.
    @Test func theAppsHTTPStackScenarioPassesOnURLSession() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("run-urlsession-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for stack in ["urlsession", "nio"] {
            let run = try WorkbenchBinary.run(
                ["run", "--live", "--http", stack, "Simulations/apps-http-stack.scn", "--trace", "\(folder)/\(stack).jsonl"])
            #expect(run.status == 0, "\(stack): \(run.output)")
            let requests = try String(contentsOfFile: "\(folder)/\(stack).jsonl", encoding: .utf8).split(separator: "\n")
                .filter { $0.contains("\"event\":\"http-request\"") }
            #expect(requests.count >= 6, "\(stack): \(requests.count) requests")
            // URLSession binds no client address of the wire's: every request comes from the machine's own.
            let fromMachine = requests.filter { $0.contains("\"from\":\"127.0.0.1:") }
            #expect(stack == "urlsession" ? fromMachine.count == requests.count : fromMachine.isEmpty, "\(stack): \(requests)")
        }
        let https = try WorkbenchBinary.run(["run", "--live", "--http", "urlsession", "Simulations/scpms-first-launch.scn"])
        #expect(
            https.status == 1 && https.stderr.contains("needs the nio stack: URLSession on Linux trusts only the system's roots"), "\(https.output)")
        #expect(https.stdout.contains("reproduce: workbench run --live --http urlsession"), "\(https.stdout)")
        let simulated = try WorkbenchBinary.run(["run", "--http", "urlsession", "Simulations/apps-http-stack.scn"])
        #expect(simulated.status == 64 && simulated.stderr.contains("add --live"), "\(simulated.output)")
    }

    /// Nothing runs when one line cannot: exit 2, the line and column, and why.
    @Test func aLineThatCannotRunLiveIsRefusedBeforeAnythingRuns() throws {
        let file = try Self.scenario(
            """
            start echo
            http GET http://echo/ as hello
            print "this must not be printed"
            address phone 10.1.2.3
            """)
        let result = try WorkbenchBinary.run(["run", "--live", file])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.stderr.contains("live.scn:4:1: error: 'address' does not run on the live wire"), "\(result.stderr)")
        #expect(!result.stdout.contains("this must not be printed"))
        let both = try WorkbenchBinary.run(["run", "--live", "--verify-determinism", file])
        #expect(both.status != 0 && both.stderr.contains("a live run has none"), "\(both.output)")
    }

    /// Links act per client node (each connects from its own loopback address), a partition loses a connect's SYNs
    /// until its time-out, `advance` crosses a printer's page timers at once, and bytes passed on under latency arrive
    /// whole and in order (a TLS stream that lost a chunk failed to decrypt).
    @Test func linksPartitionsAndClocksActOnRealSockets() throws {
        let file = try Self.scenario(
            """
            start echo
            link laptop -> echo latency 300ms
            mark phone-start
            http GET http://echo/ as fast
            expect ${fast.status} == 200
            expect elapsed since phone-start < 500ms
            mark laptop-start
            http GET http://echo/ from laptop as slow
            expect ${slow.status} == 200
            # The SYN and the request each cross the 300 ms way out.
            expect elapsed since laptop-start >= 600ms
            partition phone -> echo
            connect blocked to echo:7 timeout 1s
            expect ${blocked.error} contains "timed out"
            heal phone -> echo
            connect nothing to echo:9
            expect ${nothing.error} contains "refused"

            start mig
            link phone <-> mig latency 20ms bandwidth 2MB/s
            mig print bytes 400000 name "Boarding pass.pdf" url ipps://demo:demo-password@mig:8050/ipp/print as pass
            expect ${pass.status} == ok
            mark printing
            fault mig.media-empty on
            advance 10s
            mig job ${pass.job} as stuck
            expect ${stuck.state} == processing-stopped
            fault mig.media-empty off
            mig wait ${pass.job} as printed
            expect ${printed.state} == completed
            expect elapsed since printing >= 10s
            """)
        let result = try WorkbenchBinary.run(["run", "--live", file])
        #expect(result.status == 0, "\(result.output)")
        let summary = result.stdout.split(separator: "\n").first { $0.hasPrefix("ok ") } ?? ""
        #expect(summary.contains("10/10 expectations"), "\(result.stdout)")
    }
}
