import Foundation
import TestSupport
import Testing

/// A running `workbench serve` steered from outside, with real clients on its sockets: `workbench attach` fed from a
/// pipe and the control API over curl, as an app developer would use them.
@Suite(.serialized) struct LiveControlTests {
    /// A serve of `actors` on free ports, its state folder, and its control file's URL and token.
    struct Served {
        let process: ServedProcess
        let stateDirectory: String
        let controlURL: String
        let token: String

        func listening(_ actor: String) throws -> String {
            let prefix = "listening \(actor) "
            return String(try #require(process.lines.first { $0.hasPrefix(prefix) }).dropFirst(prefix.count))
        }

        /// `workbench attach` on it, fed `lines` from a pipe.
        func attach(_ lines: [String]) throws -> ExternalProcess.Result {
            try WorkbenchBinary.run(["attach", "--state-dir", stateDirectory], input: lines.joined(separator: "\n") + "\n", timeout: 120)
        }
    }

    static func serve(_ options: [String]) throws -> Served {
        let state = NSTemporaryDirectory() + "workbench-live-control-\(getpid())-\(UInt64.random(in: 0 ... .max))"
        let process = try WorkbenchBinary.serve(
            options + ["--state-dir", state, "--quiet"], until: { $0.contains("listening control http://") && $0.hasSuffix("\n") })
        let data = try #require(FileManager.default.contents(atPath: state + "/control.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        let attributes = try FileManager.default.attributesOfItem(atPath: state + "/control.json")
        #expect((attributes[.posixPermissions] as? Int) == 0o600, "the token is readable by its owner only")
        return Served(
            process: process, stateDirectory: state, controlURL: try #require(object["url"]), token: try #require(object["token"]))
    }

    static func curl(_ arguments: [String]) throws -> ExternalProcess.Result {
        try ExternalProcess.run("/usr/bin/curl", ["-sS", "-g", "--max-time", "20", "--cacert", Repository.fixture("tls/ca.pem")] + arguments)
    }

    static let scpms = ["--only", "scpms", "--set", "scpms.port=0", "--set", "scpms.tls-port=0"]

    /// Registers the demo app with SCPms (plain HTTP) and returns curl's status code and total time in seconds.
    static func register(_ served: Served) throws -> (status: String, seconds: Double) {
        let url = try served.listening("scpms")
        let base = String(url.dropLast("/com.workbench.demo".count))
        let run = try curl([
            "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "-H", "Content-Type: application/json", "-d", "{}",
            "\(base)/odata/applications/latest/com.workbench.demo/Connections",
        ])
        let words = run.stdout.split(separator: " ")
        return (String(words.first ?? ""), Double(words.last ?? "") ?? -1)
    }

    @Test func withoutTheTokenNothingChanges() throws {
        let served = try Self.serve(Self.scpms)
        defer { _ = served.process.stop() }
        for token in [nil, "wrong", String(served.token.dropLast())] {
            let run = try Self.curl(
                ["-o", "/dev/null", "-w", "%{http_code}", "-d", "fault scpms.unavailable on"]
                    + (token.map { ["-H", "Authorization: Bearer \($0)"] } ?? [])
                    + [served.controlURL + "lines"])
            #expect(run.stdout == "401")
        }
        let faults = try Self.curl(["-H", "Authorization: Bearer \(served.token)", served.controlURL + "faults"])
        #expect(faults.stdout.contains("scpms.unavailable: off"), "\(faults.stdout)")
        #expect(try Self.register(served).status == "201")
        #expect(served.process.errorOutput.contains("control: 401 POST /lines"))
    }

    @Test func aFaultPostedWithTheTokenAnswers503TwiceThen201() throws {
        let served = try Self.serve(Self.scpms)
        defer { _ = served.process.stop() }
        let posted = try Self.curl([
            "-H", "Authorization: Bearer \(served.token)", "-H", "Content-Type: application/json", "-d",
            #"{"line": "fault scpms.unavailable times 2"}"#,
            served.controlURL + "lines",
        ])
        #expect(posted.stdout.contains(#""ok":true"#), "\(posted.stdout)")
        #expect(try (0..<3).map { _ in try Self.register(served).status } == ["503", "503", "201"])
        let requests = try served.attach([
            "show requests scpms", "expect trace http-response status=503", "expect requests scpms POST status 503 count == 2",
            "expect requests scpms status 201 count == 1",
        ])
        #expect(requests.status == 0, "\(requests.stdout)\(requests.stderr)")
        #expect(requests.stdout.split(separator: "\n").filter { $0.contains("\" 503 ") }.count == 2, "\(requests.stdout)")
    }

    /// curl's total time for a request SCPms answers at once (no credentials: 401 before any password hashing).
    static func quickRequest(_ served: Served) throws -> Double {
        let url = try served.listening("scpms").replacingOccurrences(of: "demo:password@", with: "")
        return Double(try curl(["-o", "/dev/null", "-w", "%{time_total}", url]).stdout) ?? -1
    }

    @Test func latencyOnTheLinkSlowsARealRequestAndZeroRestoresIt() throws {
        let served = try Self.serve(Self.scpms)
        defer { _ = served.process.stop() }
        let before = try Self.quickRequest(served)
        #expect(try served.attach(["link 127.0.0.1 <-> scpms latency 400ms", "show links"]).status == 0)
        let slowed = try Self.quickRequest(served)
        // Each direction takes 400 ms: a request and its answer take at least 0.8 s more than before.
        #expect(slowed >= before + 0.8, "before \(before) s, with 400 ms each way \(slowed) s")
        #expect(try served.attach(["link 127.0.0.1 <-> scpms latency 0ms"]).status == 0)
        let restored = try Self.quickRequest(served)
        #expect(restored < slowed - 0.6, "restored \(restored) s, slowed \(slowed) s")
    }

    @Test func linesThatCannotRunLiveAreRefusedWhenReadWithWhy() throws {
        let served = try Self.serve(Self.scpms)
        defer { _ = served.process.stop() }
        let digest = try served.attach(["digest"])
        #expect(digest.status == 2)
        #expect(digest.stdout.contains("'digest' has no meaning on the live wire: its order of events is the machine's, not a seed's"))
        let client = try served.attach(["scpms start-session user demo password password"])
        #expect(client.status == 2)
        #expect(client.stdout.contains("does not run on the live wire"), "\(client.stdout)")
        let typo = try served.attach(["fault scpms.unavailble on"])
        #expect(typo.status == 2)
        #expect(typo.stdout.contains("did you mean 'scpms.unavailable'"), "\(typo.stdout)")
        let unserved = try served.attach(["fault mig.media-empty on"])
        #expect(unserved.status == 2)
        #expect(unserved.stdout.contains("no served actor checks 'mig.media-empty'"), "\(unserved.stdout)")
        let node = try served.attach(["partition phone <-> migg"])
        #expect(node.status == 2)
        // A failing check exits 1, and a piped script stops there.
        let failed = try served.attach(["expect trace http-response status=418", "fault scpms.unavailable on"])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("stopped at line 1 of the input (exit 1)"))
        let faults = try served.attach(["show faults"])
        #expect(faults.stdout.contains("scpms.unavailable: off"), "the line after the failing one never ran: \(faults.stdout)")
    }

    /// A serve of MiG alone (plain IPP on a free port), its `ipp://` URL, and in its state folder a 20-page PDF,
    /// ipptool's print-job.test and Fixtures/ipp/get-job.test (as job.test).
    static func servedMiG(pagesPerMinute: Int) throws -> (Served, String) {
        let served = try serve(["--only", "mig", "--set", "mig.plain-port=0", "--set", "mig.tls-port=0", "--set", "mig.ppm=\(pagesPerMinute)"])
        let url = try #require(served.process.lines.first { $0.hasPrefix("listening mig ipp://") }?.split(separator: " ").last.map(String.init))
        let directory = served.stateDirectory
        try Data(TestDocuments.pdf(pages: 20)).write(to: URL(fileURLWithPath: "\(directory)/twenty.pdf"))
        try FileManager.default.copyItem(atPath: Repository.fixture("ipp/get-job.test"), toPath: "\(directory)/job.test")
        try FileManager.default.copyItem(atPath: "/usr/share/cups/ipptool/print-job.test", toPath: "\(directory)/print-job.test")
        return (served, url)
    }

    static func ipptool(_ arguments: [String], in directory: String) throws -> String {
        try ExternalProcess.run("/usr/bin/ipptool", ["-t"] + arguments, currentDirectory: directory, timeout: 60).output
    }

    @Test func paperOutStopsAJobMidPrintAndItCompletesWhenPaperIsBack() throws {
        // A page a second: the 20 pages take 20 s, so the paper runs out mid-job even when a loaded machine takes several
        // seconds between ipptool's answer and the fault (at 120 a minute, 10 s were all the margin).
        let (served, url) = try Self.servedMiG(pagesPerMinute: 60)
        defer { _ = served.process.stop() }
        let ipptool = { (arguments: [String]) in try Self.ipptool(arguments, in: served.stateDirectory) }
        let printed = try ipptool(["-v", "-f", "twenty.pdf", url, "print-job.test"])
        #expect(printed.contains("job-id (integer) = 1"), "\(printed)")
        #expect(try served.attach(["fault mig.media-empty on"]).status == 0)
        let job = { try ipptool(["-d", "job_id=1", url, "job.test"]) }
        let stopped = try MiGCUPSInteropTests.eventually(10) { try job().contains("job-state (enum) = processing-stopped") }
        let whileStopped = try job()
        #expect(stopped, "\(whileStopped)")
        #expect(whileStopped.contains("Stopped: Out of paper."))
        Thread.sleep(forTimeInterval: 1)
        // Nothing prints while the paper is out.
        #expect(try job().contains(whileStopped.split(separator: "\n").first { $0.contains("impressions") }.map(String.init) ?? "?"))
        #expect(try served.attach(["fault mig.media-empty off", "wait until trace job-completed within 45s"]).status == 0)
        let done = try job()
        #expect(done.contains("job-state (enum) = completed"), "\(done)")
        #expect(done.contains("job-impressions-completed (integer) = 20"), "\(done)")
    }

    @Test func aJobQueuedBehindAStoppedPrinterOutlivesARestartOfMiGAndCompletes() throws {
        let (served, url) = try Self.servedMiG(pagesPerMinute: 600)
        defer { _ = served.process.stop() }
        let ipptool = { (arguments: [String]) in try Self.ipptool(arguments, in: served.stateDirectory) }
        #expect(try served.attach(["fault mig.media-empty on"]).status == 0)
        #expect(try ipptool(["-v", "-f", "twenty.pdf", url, "print-job.test"]).contains("job-id (integer) = 1"))
        let restarted = try served.attach(["restart mig", "expect trace restarted actor=mig"])
        #expect(restarted.status == 0, "\(restarted.output)")
        // The same URL after the restart (serve chose the free port once), and the job is still there.
        let after = try ipptool(["-d", "job_id=1", url, "job.test"])
        #expect(after.contains("[PASS]") && !after.contains("job-state (enum) = completed"), "\(after)")
        #expect(try served.attach(["fault mig.media-empty off", "wait until trace job-completed within 30s"]).status == 0)
        let done = try ipptool(["-d", "job_id=1", url, "job.test"])
        #expect(done.contains("job-state (enum) = completed") && done.contains("job-impressions-completed (integer) = 20"), "\(done)")
    }

    @Test func aPartitionMakesSSHTimeOutAndHealLetsItLogIn() throws {
        let served = try Self.serve(["--only", "sunfire", "--set", "sunfire.port=0", "--set", "sunfire.directory-port=0"])
        defer { _ = served.process.stop() }
        let url = try served.listening("sunfire")
        let port = try #require(url.split(separator: ":").last.map(String.init))
        func ssh() throws -> ExternalProcess.Result {
            try ExternalProcess.run(
                "/usr/bin/sshpass",
                [
                    "-p", "demo-password", "ssh", "-o", "ConnectTimeout=3", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                    "-o", "LogLevel=ERROR", "-p", port, "demo@127.0.0.1", "lpq", "-P", "psts",
                ], timeout: 60)
        }
        #expect(try served.attach(["partition 127.0.0.1 <-> sunfire"]).status == 0)
        let cut = try ssh()
        #expect(cut.status != 0)
        #expect(cut.stderr.lowercased().contains("timed out"), "\(cut.stderr)")
        #expect(try served.attach(["heal 127.0.0.1 <-> sunfire"]).status == 0)
        let healed = try ssh()
        #expect(healed.status == 0, "\(healed.stderr)")
    }
}
