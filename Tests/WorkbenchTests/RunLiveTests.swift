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
