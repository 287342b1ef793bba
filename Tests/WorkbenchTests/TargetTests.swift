import Foundation
import TestSupport
import Testing

/// `run --live --target` for the SCPms and Sunfire clients, against a `workbench serve` in another process standing in
/// for the real servers: the clients sign in with the target's account where a line gives the actor's demo account,
/// and that account is never printed.
@Suite(.serialized) struct TargetTests {
    /// SCPms with an account of its own (not the actor's demo one) and Sunfire, on spare ports.
    static func outsideServers() throws -> (serve: ServedProcess, scpms: Int, sunfire: Int) {
        let serve = try WorkbenchBinary.serve(
            [
                "--only", "scpms", "--only", "sunfire",
                "--set", "scpms.port=none", "--set", "scpms.tls-port=0", "--set", "scpms.user=tess", "--set", "scpms.password=t-secret-9",
                "--set", "sunfire.port=0", "--set", "sunfire.directory-port=none",
                "--state-dir", NSTemporaryDirectory() + "workbench-target-\(getpid())-\(UInt32.random(in: 0 ... .max))",
            ],
            until: { $0.contains("listening sunfire ssh://") && $0.hasSuffix("\n") })
        let scpms = try #require(URL(string: try serve.lastWord(ofLineStartingWith: "listening scpms https://"))?.port)
        let sunfire = try #require(URL(string: try serve.lastWord(ofLineStartingWith: "listening sunfire ssh://"))?.port)
        return (serve, scpms, sunfire)
    }

    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "target-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func theSCPmsAppRegistersWithTheTargetsAccountAndAWrongPasswordStaysWrong() throws {
        let (serve, port, _) = try Self.outsideServers()
        defer { serve.stop() }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
        start scpms
        scpms launch
        scpms start-session user demo password password as first
        expect ${first.status} == ok
        expect ${first.registration} == new
        scpms relaunch
        expect ${app.stored-id} == ${first.id}
        scpms upload-log severity ERROR message "login failed #3" as log
        expect ${log.lines} == 1
        scpms start-session user demo password wrong as bad
        expect ${bad.code} == InvalidCredentials
        expect ${bad.http} == 401
        """.write(toFile: "\(folder)/scpms.scn", atomically: true, encoding: .utf8)
        let target = "scpms=https://tess:t-secret-9@127.0.0.1:\(port)"
        let run = try WorkbenchBinary.run(
            ["run", "--live", "--target", target, "\(folder)/scpms.scn", "--trace", "\(folder)/trace.jsonl", "--report", "\(folder)/report.html"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.stdout.contains("target scpms https://127.0.0.1:\(port)"), "\(run.stdout)")
        for file in ["trace.jsonl", "report.html"] {
            let text = try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)
            #expect(!text.isEmpty && !text.contains("t-secret-9"), "\(file) holds the target's password")
        }
        #expect(!run.output.contains("t-secret-9"))

        // Without the account the demo one goes out as written, and the server refuses it.
        let bare = try WorkbenchBinary.run(["run", "--live", "--target", "scpms=https://127.0.0.1:\(port)", "\(folder)/scpms.scn"])
        #expect(bare.status == 1 && bare.stderr.contains("expected ${first.status} == \"ok\""), "\(bare.output)")
        // The environment gives it too; a failed run's command names the variables, not the password.
        try "start scpms\nscpms launch\nscpms start-session user demo password password as first\nexpect ${first.status} == error\n"
            .write(toFile: "\(folder)/fails.scn", atomically: true, encoding: .utf8)
        let fromEnvironment = try ExternalProcess.run(
            Repository.workbenchBinary.path, ["run", "--live", "--target", "scpms=https://127.0.0.1:\(port)", "\(folder)/fails.scn"],
            environment: ["WORKBENCH_TARGET_SCPMS_USER": "tess", "WORKBENCH_TARGET_SCPMS_PASSWORD": "t-secret-9"],
            currentDirectory: Repository.root.path)
        #expect(fromEnvironment.status == 1, "\(fromEnvironment.output)")
        #expect(fromEnvironment.stdout.contains("in WORKBENCH_TARGET_SCPMS_USER and WORKBENCH_TARGET_SCPMS_PASSWORD"), "\(fromEnvironment.stdout)")
        #expect(!fromEnvironment.output.contains("t-secret-9"))
    }

    @Test func sshAndSOCPrintLogInToTheTargetAsItsAccount() throws {
        let (serve, _, port) = try Self.outsideServers()
        defer { serve.stop() }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
        start sunfire
        ssh "pwd" as home
        expect ${home.stdout} == "/home/alice\\n"
        ssh "true" password wrong as refused
        expect ${refused.status} == refused
        socprint settings user demo password demo-password as saved
        expect ${saved.status} == saved
        socprint open documents/slides-12.pptx as opened
        socprint print printer psts per-sheet 8 range 2-6 as printed
        expect ${printed.status} == printed
        ssh "ls socPrint" as listed
        expect ${listed.stdout} contains "source.pptx"
        """.write(toFile: "\(folder)/sunfire.scn", atomically: true, encoding: .utf8)
        let run = try WorkbenchBinary.run([
            "run", "--live", "--target", "sunfire=ssh://alice:alice-password@127.0.0.1:\(port)", "\(folder)/sunfire.scn",
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(!run.output.contains("alice-password"))

        // The actor's inside is refused before anything runs, each line with why.
        try "start sunfire\nssh \"true\"\nsunfire files demo as home\nlink phone <-> sunfire latency 20ms\n"
            .write(toFile: "\(folder)/inside.scn", atomically: true, encoding: .utf8)
        let refused = try WorkbenchBinary.run(["run", "--live", "--target", "sunfire=ssh://127.0.0.1:\(port)", "\(folder)/inside.scn"])
        #expect(refused.status == 2, "\(refused.output)")
        #expect(
            refused.stderr.contains("inside.scn:3:1: error: 'sunfire' does not run with --target sunfire=…: it reads or changes"), "\(refused.stderr)"
        )
        #expect(refused.stderr.contains("inside.scn:4:16: error: 'link' does not run with --target sunfire=…"), "\(refused.stderr)")
    }

    /// IMS as an outside server: the scenario's own signer enrols the user and registers its certificate there through
    /// IMS's admin endpoints (the account's password is the admin token), the SDK starts a session on it.
    @Test func theIMSSDKStartsASessionOnATargetIMSTheScenarioEnrolsThrough() throws {
        let serve = try WorkbenchBinary.serve(
            [
                "--only", "ims", "--set", "ims.port=0", "--set", "ims.admin-token=tgt-admin-77",
                "--state-dir", NSTemporaryDirectory() + "workbench-target-ims-\(getpid())-\(UInt32.random(in: 0 ... .max))",
            ],
            until: { $0.contains("listening ims http://") && $0.hasSuffix("\n") })
        defer { serve.stop() }
        let port = try #require(URL(string: try serve.lastWord(ofLineStartingWith: "listening ims http://"))?.port)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try """
        start ims-signer
        start ims
        ims enrol 14 as alice
        expect ${alice.status} == enrolled
        ims register-certificate
        expect ${certificate.status} == registered
        ims start-session 14 as s
        expect ${s.status} == started
        ims status 14 as st
        expect ${st.status} == 200
        expect ${st.body} contains "\\"state\\":\\"active\\""
        """.write(toFile: "\(folder)/ims.scn", atomically: true, encoding: .utf8)
        let run = try WorkbenchBinary.run(["run", "--live", "--target", "ims=http://admin:tgt-admin-77@127.0.0.1:\(port)", "\(folder)/ims.scn"])
        #expect(run.status == 0, "\(run.output)")
        #expect(!run.output.contains("tgt-admin-77"))

        // Without the admin token the enrolment says where to give it; a wrong one is the server's 401, quoted.
        try "start ims-signer\nstart ims\nims enrol 14 as alice\nexpect ${alice.status} == enrolled\n"
            .write(toFile: "\(folder)/enrol.scn", atomically: true, encoding: .utf8)
        let bare = try WorkbenchBinary.run(["run", "--live", "--target", "ims=http://127.0.0.1:\(port)", "\(folder)/enrol.scn"])
        #expect(bare.status == 1 && bare.stderr.contains("the target IMS's admin token is needed"), "\(bare.output)")
        try "start ims-signer\nstart ims\nims enrol 14 as alice\nexpect ${alice.error} contains \"answered 401 to the admin request\"\n"
            .write(toFile: "\(folder)/refused.scn", atomically: true, encoding: .utf8)
        let wrong = try WorkbenchBinary.run(["run", "--live", "--target", "ims=http://admin:not-it@127.0.0.1:\(port)", "\(folder)/refused.scn"])
        #expect(wrong.status == 0, "\(wrong.output)")
    }
}
