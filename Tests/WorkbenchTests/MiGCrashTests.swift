import Foundation
import Testing

/// What MiG told a client succeeded survives `kill -9` of `workbench serve` and a restart on the same state; so
/// do SCPms's registrations and IMS's replay cache (a short run of `tools/crash-campaign.sh`).
@Suite(.serialized) struct MiGCrashTests {
    /// Starts `serve` with MiG alone on a free plain port; returns the process and MiG's ipp:// URL.
    static func serve(state: String) throws -> (Process, String) {
        let process = Process()
        process.executableURL = Paths.binary
        process.currentDirectoryURL = Paths.repository
        process.arguments = ["serve", "--only", "mig", "--set", "mig.tls-port=none", "--set", "mig.plain-port=0", "--state-dir", state]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("listening mig ipp://") || !text.hasSuffix("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let url = try #require(text.split(separator: "\n").first { $0.hasPrefix("listening mig ipp://") }?.split(separator: " ").last)
        return (process, String(url))
    }

    static func ipptool(_ arguments: [String], in directory: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ipptool")
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    @Test func anAcknowledgedJobSurvivesKill9() throws {
        let state = NSTemporaryDirectory() + "mig-crash-\(getpid())"
        try? FileManager.default.removeItem(atPath: state)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try Data("%PDF-1.4\n% placeholder\n".utf8).write(to: URL(fileURLWithPath: "\(state)/document.pdf"))
        try FileManager.default.copyItem(atPath: "/usr/share/cups/ipptool/print-job.test", toPath: "\(state)/print-job.test")
        try """
        {
          NAME "Every job MiG knows"
          OPERATION Get-Jobs
          GROUP operation-attributes-tag
          ATTR charset attributes-charset utf-8
          ATTR naturalLanguage attributes-natural-language en
          ATTR uri printer-uri $uri
          ATTR keyword which-jobs all
          ATTR keyword requested-attributes job-id,job-originating-user-name,job-k-octets
          STATUS successful-ok
          EXPECT job-id OF-TYPE integer WITH-VALUE 1
          EXPECT job-originating-user-name WITH-VALUE "demo"
          EXPECT job-k-octets WITH-VALUE 1
        }
        """.write(toFile: "\(state)/all-jobs.test", atomically: true, encoding: .utf8)

        let (first, url) = try Self.serve(state: state)
        let printed = try Self.ipptool(["-tI", "-f", "document.pdf", url, "print-job.test"], in: state)
        #expect(printed.contains("[PASS]"), "\(printed)")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(first.terminationReason == .uncaughtSignal)

        let (second, again) = try Self.serve(state: state)
        defer { second.terminate(); second.waitUntilExit() }
        let listed = try Self.ipptool(["-t", again, "all-jobs.test"], in: state)
        #expect(listed.contains("[PASS]") && !listed.contains("[FAIL]"), "\(listed)")
    }

    /// A few kills of the crash campaign under concurrent MiG, SCPms and IMS clients (the full one is
    /// `tools/crash-campaign.sh`, 20 kills by default): the script is run as is, so the test and the campaign
    /// cannot drift apart.
    @Test(.timeLimit(.minutes(2))) func aShortCrashCampaignLosesNothing() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.currentDirectoryURL = Paths.repository
        process.arguments = ["tools/crash-campaign.sh", "--workbench", Paths.binary.path, "--seed", "7", "--kills", "3",
                             "--min-up", "0.8", "--max-up", "1.5", "--mig-clients", "4"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        let summary = try #require(text.split(separator: "\n").first { $0.hasPrefix("kills=3 ") }, "no summary line in:\n\(text)")
        #expect(summary.contains(" missing=0 duplicated=0 documents_missing=0 "), "\(summary)")
        #expect(summary.contains(" replays_accepted=0 "), "\(summary)")
    }
}
