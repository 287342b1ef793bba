import Foundation
import PrintDocuments
import SOCPrint
import TestSupport
import Testing
import Wire

@testable import SunfireSystem
@testable import Workbench

/// The SOC Print client on the live wire: printing through `workbench serve`'s Sunfire and reading mysoc's quota,
/// and its exec, SCP and SFTP against OpenSSH's own sshd.
@Suite(.serialized) struct SOCPrintInteropTests {
    /// Starts `workbench serve` with Sunfire and mysoc on spare ports.
    static func serve() throws -> ServedProcess {
        // A port the kernel just handed out: a fixed one (it was 20,000 + pid) can be any other socket's by now.
        let directoryPort = try Ports.free()
        return try WorkbenchBinary.serve(
            [
                "--only", "sunfire", "--only", "mysoc",
                "--state-dir", NSTemporaryDirectory() + "workbench-socprint-\(getpid())-\(UInt32.random(in: 0 ... .max))",
                // One page a minute: the two jobs are still in psts's queue when the test reads it, however long a
                // loaded machine takes between printing and asking (at the default 30 a job can be done by then).
                "--set", "sunfire.port=0", "--set", "sunfire.ppm=1", "--set", "sunfire.directory-port=\(directoryPort)",
                "--set", "mysoc.port=0", "--set", "mysoc.directory=127.0.0.1:\(directoryPort)",
            ],
            until: { $0.contains("note mysoc") && $0.hasSuffix("\n") })
    }

    @Test func theClientPrintsThroughServeOverSCPAndSFTPAndReadsTheQuota() async throws {
        let serve = try Self.serve()
        defer { serve.stop() }
        let ssh = try #require(URL(string: try serve.lastWord(ofLineStartingWith: "listening sunfire ssh://")))
        let site = try #require(URL(string: try serve.lastWord(ofLineStartingWith: "listening mysoc https://")))
        let sshPort = try #require(ssh.port)
        let sitePort = try #require(site.port)

        let wire = LiveWire(seed: 1, threads: 2)
        let phone = wire.node("phone")
        let ca = try Data(contentsOf: URL(fileURLWithPath: Repository.fixture("tls/ca.pem")))
        let app = SOCPrintApp(
            node: phone, converters: try StandInConverters.manifest(),
            quota: try QuotaClient(host: "localhost", port: sitePort, node: phone, trust: .caPEM(Array(ca))))
        #expect(app.settings.save(username: "demo", password: "demo-password", printer: "", server: "127.0.0.1:\(sshPort)") == .saved)
        #expect(app.registerForDocuments())
        let received = app.nextDocument()
        let url = app.deliverToInbox(name: "Lab report.docx", bytes: OfficeDocument.generate(.docx, pages: 5, title: "Lab report"))
        #expect(phone.bus.open(url, from: "files"))
        #expect(try await received.get().name == "Lab report.docx")

        for transport in [UploadTransport.scp, .sftp] {
            let operation = try app.print(PrintScreen(printer: "psts", pagesPerSheet: .two, customRange: ("2", "4")), transport: transport) { _ in
                true
            }.get()
            let outcome = await operation.run()
            #expect(outcome.status == .printed, "\(transport): \(outcome.alert.map(String.init(describing:)) ?? "")\n\(outcome.dialog)")
        }
        let status = await app.status()
        #expect(status.alert == nil)
        #expect(status.text.contains("psts : ") && status.text.contains("Lab report.ps"), "status:\n\(status.text)")
        #expect(status.text.contains("psts-sx : Print Queue Empty\n"))

        let quota = await app.refreshQuota()
        #expect(quota.text.hasPrefix("PS-printer available quota : "), "quota: \(quota.text)")
        #expect(quota.rows.count == 5)
        app.settings.save(username: "demo", password: "wrong", printer: "", server: "127.0.0.1:\(sshPort)")
        #expect(await app.refreshQuota().text == "Username/Password incorrect")
        try await wire.shutdown()
    }

    /// `workbench compare` of the any-host scenario against sshd: the same in everything but the print host's own
    /// commands (md5, lpq), which its differences file lists as known.
    @Test func theAnyHostScenarioComparesWithSSHDAsItsDifferencesFileSays() throws {
        guard getuid() == 0 else {
            Issue.record(
                "this test starts OpenSSH's sshd with a throwaway account (useradd, chpasswd): run the tests as root, as tools/test.sh does in CI")
            return
        }
        let work = NSTemporaryDirectory() + "compare-sshd-\(getpid())"
        let sshd = try PrivateSSHD.start(work: work)
        defer {
            sshd.stop()
            try? FileManager.default.removeItem(atPath: work)
        }
        let account = sshd.endpoint
        let target = "sunfire=ssh://\(account.user):\(account.password)@127.0.0.1:\(account.port)"
        let compared = try WorkbenchBinary.run(["compare", "Simulations/sunfire-any-host.scn", "--target", target])
        #expect(compared.status == 0, "\(compared.output)")
        #expect(compared.stdout.contains("known   line 36 digest.stderr: actor \"\", target \"sh: 1: md5: not found\\n\""), "\(compared.stdout)")
        let summary = compared.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(summary.hasPrefix("SAME ") && summary.contains("6 differ (6 known)"), "\(summary)")
        #expect(!compared.output.contains(account.password))
        // The scenario left the home as it found it.
        #expect(!FileManager.default.fileExists(atPath: account.home + "/socPrint"))
    }

    @Test func execSCPAndSFTPWorkAgainstOpenSSHsOwnSSHD() async throws {
        guard getuid() == 0 else {
            Issue.record(
                "this test starts OpenSSH's sshd with a throwaway account (useradd, chpasswd): run the tests as root, as tools/test.sh does in CI")
            return
        }
        for tool in ["/usr/sbin/sshd", "/usr/sbin/useradd", "/usr/sbin/chpasswd", "/usr/bin/ssh-keygen"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            Issue.record("\(tool) is missing: tools/setup.sh installs openssh-server and passwd")
            return
        }
        let work = NSTemporaryDirectory() + "socprint-sshd-\(getpid())"
        let sshd = try PrivateSSHD.start(work: work)
        defer {
            sshd.stop()
            try? FileManager.default.removeItem(atPath: work)
        }
        let account = sshd.endpoint
        let wire = LiveWire(seed: 1, threads: 2)
        let phone = wire.node("phone")

        let refused = SSHConnectivity(host: "127.0.0.1", port: account.port, user: account.user, password: "not-it", node: phone)
        let refusal = await refused.connect()
        #expect(refusal.serverFound && !refusal.authorised)
        #expect(refusal.failure?.contains("refused the password of") == true)

        let client = SSHConnectivity(host: "127.0.0.1", port: account.port, user: account.user, password: account.password, node: phone)
        #expect(await client.connect().authorised)
        #expect(await client.runCommand("echo socprint") == "socprint\n")
        #expect(await client.runCommand("mkdir socPrint/") == "")
        let payload = StandInJar.nupPDF.bytes()
        let digest = try ConverterManifest.md5(of: .bytes(payload)).lowercased()
        for transport in [UploadTransport.scp, .sftp] {
            let path = "socPrint/\(transport.rawValue)-nup_pdf.jar"
            let sent = ByteCounter()
            #expect(
                await client.upload(.bytes(payload), to: path, transport: transport) { bytes in
                    sent.value = bytes
                    return true
                }, "\(transport)")
            #expect(sent.value == UInt64(payload.count))
            #expect(await client.runCommand("md5sum \(path)").hasPrefix(digest), "\(transport) arrived intact")
        }
        // Cancelling mid-way: the progress callback says stop, the upload reports failure.
        #expect(await !client.upload(.bytes(StandInJar.multivalent.bytes()), to: "socPrint/cut.jar", transport: .sftp) { $0 < 500_000 })
        await client.disconnect()

        let keyLine = try String(contentsOfFile: "\(work)/ssh_host_ed25519_key.pub", encoding: .utf8)
        let pinned = SSHConnectivity(
            host: "127.0.0.1", port: account.port, user: account.user, password: account.password, node: phone,
            hostKeyPolicy: .pinned(keyLine))
        #expect(await pinned.connect().authorised)
        await pinned.disconnect()
        let impostor = SSHConnectivity(
            host: "127.0.0.1", port: account.port, user: account.user, password: account.password, node: phone,
            hostKeyPolicy: .pinned(try String(contentsOfFile: Repository.fixture("sunfire/ssh_host_ed25519_key.pub"), encoding: .utf8)))
        #expect(await impostor.connect().authorised == false, "a pinned key that does not match refuses the server")
        try await wire.shutdown()
    }
}
