import Foundation
import MiGServer
import TestSupport
import Testing
import Wire

/// MiG on loopback against CUPS' ipptool: the conformance suite and both body framings, plain and IPPS.
@Suite(.serialized) struct MiGInteropTests {
    static let fixtures: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/Fixtures"
    }()

    /// A live MiG with IPPS and plain listeners on free ports and a spool on disk.
    /// - parameter preserveJobFiles: keep documents of finished jobs (else a job that completed has none to check).
    static func live(_ state: String, preserveJobFiles: Bool = false) async throws -> (LiveWire, MiGServer) {
        let wire = LiveWire()
        var configuration = MiGServer.Configuration()
        configuration.tlsPort = 0
        configuration.plainPort = 0
        configuration.certificatePath = "\(fixtures)/tls/server.pem"
        configuration.privateKeyPath = "\(fixtures)/tls/server.key"
        configuration.databasePath = "\(state)/mig.sqlite"
        configuration.spoolDirectory = "\(state)/spool"
        configuration.preserveJobFiles = preserveJobFiles
        let server = try await MiGServer.start(on: wire.node("mig"), configuration: configuration).get()
        return (wire, server)
    }

    /// ipptool's test files with placeholder documents next to them (Debian ships the tests, not the documents).
    static func workspace() throws -> String {
        let directory = NSTemporaryDirectory() + "mig-ipptool-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for test in ["ipp-1.1.test", "print-job.test"] {
            try FileManager.default.copyItem(atPath: "/usr/share/cups/ipptool/\(test)", toPath: "\(directory)/\(test)")
        }
        // Real one-page documents: MiG counts pages from them, and refuses PostScript whose pages it cannot count.
        try TestDocuments.writeIpptoolDocuments(for: "\(directory)/ipp-1.1.test")
        return directory
    }

    /// Runs ipptool under the shared watchdog: a hung exchange must fail the test, not the CI run.
    static func ipptool(_ arguments: [String], in directory: String) throws -> String {
        try ExternalProcess.run("/usr/bin/ipptool", arguments, currentDirectory: directory, timeout: 180).output
    }

    @Test(arguments: ["ipp", "ipps"]) func conformanceSuiteHasNoFailures(scheme: String) async throws {
        let directory = try Self.workspace()
        let (wire, server) = try await Self.live(directory)
        let url = try #require(server.endpoints.first { $0.label == scheme }?.url)
        // ipptool's exit code can be 0 despite [FAIL] lines: read its report.
        let report = try Self.ipptool(["-tI", "-f", "document-letter.pdf", url, "ipp-1.1.test"], in: directory)
        #expect(!report.contains("[FAIL]"), "\(report)")
        #expect(report.contains(", 0 failed"), "\(report)")
        for framing in ["-C", "-L"] {
            let printed = try Self.ipptool(["-tI", framing, "-f", "document-letter.pdf", url, "print-job.test"], in: directory)
            #expect(printed.contains("[PASS]") && !printed.contains("[FAIL]"), "\(framing): \(printed)")
        }
        try await server.stop().get()
        try await wire.shutdown()
    }

    @Test func anAcknowledgedJobSurvivesARestartWithoutShutdown() async throws {
        let directory = try Self.workspace()
        // Kept after printing: the job may complete before the restart, and its document is what is checked.
        let (wire, server) = try await Self.live(directory, preserveJobFiles: true)
        let url = try #require(server.endpoints.first { $0.label == "ipp" }?.url)
        let printed = try Self.ipptool(["-tI", "-f", "document-letter.pdf", url, "print-job.test"], in: directory)
        #expect(printed.contains("[PASS]") && !printed.contains("[FAIL]"), "\(printed)")
        // What is on disk is what a restart finds. The server is stopped first only so that no group commit is in
        // flight when the loops go (NIO would leak its promise); the process-level kill -9 check is in WorkbenchTests.
        try await server.stop().get()
        try await wire.shutdown()
        // Kept by the restarted server too: the job may still be printing at the stop, and then it resumes and
        // completes after the restart.
        let (again, restarted) = try await Self.live(directory, preserveJobFiles: true)
        let jobs = try restarted.jobs()
        #expect(jobs.count == 1)
        let job = try #require(jobs.first)
        #expect(job.documentBytes > 0)
        let stored = try #require(job.documentPath)
        #expect((try FileManager.default.attributesOfItem(atPath: stored)[.size] as? Int64) == job.documentBytes)
        try await restarted.stop().get()
        try await again.shutdown()
        _ = server
    }
}
