import Foundation
import TestSupport
import Testing

/// What MiG told a client succeeded survives `kill -9` of `workbench serve` and a restart on the same state; so
/// do SCPms's registrations and IMS's replay cache (a short run of `tools/crash-campaign.sh`).
@Suite(.serialized) struct MiGCrashTests {
    /// Starts `serve` with MiG alone on a free plain port; returns the process and MiG's ipp:// URL.
    static func serve(state: String) throws -> (ServedProcess, String) {
        let serve = try WorkbenchBinary.serve(
            ["--only", "mig", "--set", "mig.tls-port=none", "--set", "mig.plain-port=0", "--state-dir", state],
            until: { $0.contains("listening mig ipp://") && $0.hasSuffix("\n") })
        return (serve, try serve.lastWord(ofLineStartingWith: "listening mig ipp://"))
    }

    /// Runs ipptool (under the shared watchdog); returns its report, standard output and error together.
    static func ipptool(_ arguments: [String], in directory: String) throws -> String {
        try ExternalProcess.run("/usr/bin/ipptool", arguments, currentDirectory: directory, timeout: 180).output
    }

    @Test func anAcknowledgedJobSurvivesKill9() throws {
        let state = NSTemporaryDirectory() + "mig-crash-\(getpid())"
        try? FileManager.default.removeItem(atPath: state)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try Data(TestDocuments.pdf(pages: 1)).write(to: URL(fileURLWithPath: "\(state)/document.pdf"))
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
        // ipptool can print [PASS] for one test and [FAIL] for another of the same file: both are checked.
        #expect(printed.contains("[PASS]") && !printed.contains("[FAIL]"), "\(printed)")
        #expect(first.kill() == .signalled(SIGKILL))

        let (second, again) = try Self.serve(state: state)
        defer { second.stop() }
        let listed = try Self.ipptool(["-t", again, "all-jobs.test"], in: state)
        #expect(listed.contains("[PASS]") && !listed.contains("[FAIL]"), "\(listed)")
    }

    /// A few kills of the crash campaign under concurrent MiG, SCPms and IMS clients (the full one is
    /// `tools/crash-campaign.sh`, 20 kills by default): the script is run as is, so the test and the campaign
    /// cannot drift apart.
    @Test(.timeLimit(.minutes(2))) func aShortCrashCampaignLosesNothing() throws {
        let run = try ExternalProcess.run(
            "/bin/bash",
            [
                "tools/crash-campaign.sh", "--workbench", Repository.workbenchBinary.path, "--seed", "7", "--kills", "3",
                "--min-up", "0.8", "--max-up", "1.5", "--mig-clients", "4",
            ],
            currentDirectory: Repository.root.path, timeout: 110)
        let text = run.output
        #expect(run.status == 0, "\(text)")
        let summary = try #require(text.split(separator: "\n").first { $0.hasPrefix("kills=3 ") }, "no summary line in:\n\(text)")
        #expect(summary.contains(" missing=0 duplicated=0 documents_missing=0 "), "\(summary)")
        #expect(summary.contains(" replays_accepted=0 "), "\(summary)")
    }
}
