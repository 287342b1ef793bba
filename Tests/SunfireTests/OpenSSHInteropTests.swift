import Crypto
import Foundation
import PrintDocuments
import Sunfire
import TestSupport
import Testing

/// Sunfire on real loopback sockets, driven by real OpenSSH (ssh, sftp, scp), curl (libssh2, the library family under
/// the iOS app's NMSSH) and poppler/qpdf checking what the converters wrote. Host keys are checked through a
/// known_hosts file; passwords go through sshpass.
@Suite(.serialized) struct OpenSSHInteropTests {
    static func md5(_ bytes: [UInt8]) -> String {
        Insecure.MD5.hash(data: bytes).map { String(format: "%02X", $0) }.joined()
    }

    static func write(_ bytes: [UInt8], _ path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func sshRunsTheAppsPrintFlowInOrder() async throws {
        let live = try await LiveSunfire.start()
        let work = live.work.path
        let document = OfficeDocument.generate(.pptx, pages: 12, title: "Term project")
        try Self.write(document, "\(work)/Term project.pptx")
        let converter = StandInJar.docsToPDF
        let formatter = StandInJar.nupPDF
        try Self.write(converter.bytes(), "\(work)/\(converter.fileName)")
        try Self.write(formatter.bytes(), "\(work)/\(formatter.fileName)")

        // 1. Some housekeeping: the first mkdir succeeds, find removes nothing yet.
        #expect(try live.ssh("mkdir socPrint/").status == 0)
        let housekeeping =
            #"find socPrint/ -type f \( \! -name 'nup_pdf.jar' \) \( \! -name 'docs-to-pdf-converter-1.7.jar' \) \( \! -name 'Multivalent.jar' \) -exec rm '{}' \;"#
        #expect(try live.ssh(housekeeping).stdout == "")
        // 2. The converter is not cached yet: md5 prints nothing on stdout.
        #expect(try live.ssh("md5 socPrint/\(converter.fileName)").stdout == "")
        // Uploads as the iOS app makes them (legacy SCP).
        for (file, remote) in [
            (converter.fileName, "socPrint/\(converter.fileName)"), (formatter.fileName, "socPrint/\(formatter.fileName)"),
            ("Term project.pptx", "socPrint/source.pptx"),
        ] {
            let copied = try live.scp(["-O", "\(work)/\(file)", "\(LiveSunfire.user)@127.0.0.1:\(remote)"])
            #expect(copied.status == 0, "scp -O \(file): \(copied.output)")
        }
        let digest = try live.ssh("md5 socPrint/\(converter.fileName)").stdout
        #expect(digest.hasPrefix(Self.md5(converter.bytes())), "md5 prints the uppercase digest first: \(digest)")
        // 5. Converting to PDF: success prints nothing on stdout.
        let convert = try live.ssh("java -jar socPrint/docs-to-pdf-converter-1.7.jar -i socPrint/source.pptx -o socPrint/source.pdf")
        #expect(convert.stdout == "", "docs-to-pdf: \(convert.output)")
        // 6. Trim PDF to page 2 to 6.
        let trim = try live.ssh(
            "gs -sDEVICE=pdfwrite -dNOPAUSE -dBATCH -dSAFER -dFirstPage=2 -dLastPage=6 -sOutputFile=socPrint/source-trimmed.pdf socPrint/source.pdf")
        #expect(!trim.stdout.contains("Requested FirstPage is greater than the number of pages in the file"))
        // 7. Formatting to 8 pages/sheet; 8. PostScript; 9. lpr.
        _ = try live.ssh("java -jar socPrint/nup_pdf.jar socPrint/source-trimmed.pdf socPrint/formatted.pdf 8")
        #expect(try live.ssh(#"pdftops socPrint/formatted.pdf socPrint/"Term project.ps""#).stdout == "")
        #expect(try live.ssh(#"lpr -P psts socPrint/"Term project.ps""#).stdout == "")
        let queue = try live.ssh("lpq -P psts").stdout
        #expect(queue.contains("demo") && queue.contains("Term project.ps"), "lpq: \(queue)")

        // What the converters wrote is real: qpdf and poppler agree on it.
        let socPrint = live.home.appendingPathComponent("socPrint").path
        for (file, pages) in [("source.pdf", 12), ("source-trimmed.pdf", 5), ("formatted.pdf", 1)] {
            let check = try ExternalProcess.run("/usr/bin/qpdf", ["--check", "\(socPrint)/\(file)"])
            #expect(check.status == 0, "qpdf --check \(file): \(check.output)")
            let info = try ExternalProcess.run("/usr/bin/pdfinfo", ["\(socPrint)/\(file)"])
            let reported = info.stdout.split(separator: "\n").first { $0.hasPrefix("Pages:") }?.split(separator: " ").last
            #expect(reported == "\(pages)", "pdfinfo \(file): \(info.output)")
        }
        let postScript = try String(contentsOfFile: "\(socPrint)/Term project.ps", encoding: .isoLatin1)
        #expect(postScript.hasPrefix("%!PS-Adobe-3.0"))
        #expect(postScript.contains("%%Pages: 1\n"))

        // The next housekeeping keeps the three jars and removes the rest.
        _ = try live.ssh(housekeeping)
        let left = try live.ssh("ls socPrint").stdout.split(separator: "\n").map(String.init)
        #expect(left == [converter.fileName, formatter.fileName].sorted())
        try await live.stop()
    }

    @Test func sftpBatchMakesDirectoriesPutsListsGetsAndRemoves() async throws {
        let live = try await LiveSunfire.start()
        let work = live.work.path
        let jar = StandInJar.docsToPDF
        try Self.write(jar.bytes(), "\(work)/\(jar.fileName)")
        let batch = """
            mkdir socPrint
            cd socPrint
            put \(work)/\(jar.fileName)
            ls -l
            get \(jar.fileName) \(work)/back.jar
            rm \(jar.fileName)
            ls
            """
        let result = try live.sftp(batch: batch)
        #expect(result.status == 0, "sftp: \(result.output)")
        #expect(result.stdout.contains(String(jar.size)), "ls -l shows the size: \(result.stdout)")
        let back = try Data(contentsOf: URL(fileURLWithPath: "\(work)/back.jar"))
        #expect(Self.md5([UInt8](back)) == Self.md5(jar.bytes()), "the 46.6 MB file came back intact")
        #expect(!FileManager.default.fileExists(atPath: live.home.appendingPathComponent("socPrint/\(jar.fileName)").path))
        try await live.stop()
    }

    @Test func scpLegacyProtocolAndSFTPModeBothCopyBothWays() async throws {
        let live = try await LiveSunfire.start()
        let work = live.work.path
        let document = PDFWriter.document(title: "Handout", pages: (1...3).map { PDFPage(lines: ["Page \($0)"]) })
        try Self.write(document, "\(work)/handout.pdf")
        let legacy = try live.scp(["-O", "\(work)/handout.pdf", "\(LiveSunfire.user)@127.0.0.1:legacy.pdf"])
        #expect(legacy.status == 0, "scp -O: \(legacy.output)")
        let sftpMode = try live.scp(["\(work)/handout.pdf", "\(LiveSunfire.user)@127.0.0.1:sftp-mode.pdf"])
        #expect(sftpMode.status == 0, "scp (SFTP mode): \(sftpMode.output)")
        let down = try live.scp(["-O", "\(LiveSunfire.user)@127.0.0.1:legacy.pdf", "\(work)/down.pdf"])
        #expect(down.status == 0, "scp -O download: \(down.output)")
        for file in [live.home.appendingPathComponent("legacy.pdf").path, live.home.appendingPathComponent("sftp-mode.pdf").path, "\(work)/down.pdf"]
        {
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) == document, "\(file) is byte-identical")
        }
        // A missing file is reported the way scp reports it, and scp fails.
        let missing = try live.scp(["-O", "\(LiveSunfire.user)@127.0.0.1:nothing.pdf", "\(work)/nothing.pdf"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("nothing.pdf: No such file or directory"), "\(missing.stderr)")
        try await live.stop()
    }

    @Test func curlUploadsOverSFTPAndSCPWithLibssh2() async throws {
        // libssh2 (curl here, NMSSH in the iOS app) offers AES-CTR with HMAC-SHA2 only, no AES-GCM.
        let live = try await LiveSunfire.start()
        let work = live.work.path
        let document = PDFWriter.document(title: "Curl", pages: [PDFPage(lines: ["one"])])
        try Self.write(document, "\(work)/curl.pdf")
        let fingerprint = live.sunfire.hostKey.fingerprint.dropFirst("SHA256:".count)
        for (scheme, name) in [("sftp", "via-sftp.pdf"), ("scp", "via-scp.pdf")] {
            let result = try ExternalProcess.run(
                "/usr/bin/curl",
                [
                    "-sS", "--max-time", "30", "-T", "\(work)/curl.pdf", "-u", "\(LiveSunfire.user):\(LiveSunfire.password)",
                    "--hostpubsha256", String(fingerprint), "\(scheme)://127.0.0.1:\(live.port)/~/\(name)",
                ])
            #expect(result.status == 0, "curl \(scheme): \(result.output)")
            let stored = try? Data(contentsOf: live.home.appendingPathComponent(name))
            #expect(stored.map { [UInt8]($0) } == document, "curl \(scheme) stored the file intact")
        }
        // And curl refuses a host whose key is not the expected one.
        let impostor = try ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "30", "-T", "\(work)/curl.pdf", "-u", "demo:demo-password",
                "--hostpubsha256", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                "sftp://127.0.0.1:\(live.port)/~/x.pdf",
            ])
        #expect(impostor.status != 0)
        // OpenSSH agrees on both AES-CTR key sizes.
        for cipher in ["aes128-ctr", "aes256-ctr"] {
            let result = try ExternalProcess.run(
                "/usr/bin/sshpass",
                ["-e", "/usr/bin/ssh", "-p", String(live.port), "-c", cipher, "-m", "hmac-sha2-256"]
                    + (try live.sshOptions()) + ["demo@127.0.0.1", "cat via-scp.pdf"], environment: ["SSHPASS": LiveSunfire.password])
            #expect(result.status == 0 && result.stdout.hasPrefix("%PDF-"), "ssh -c \(cipher): \(result.stderr)")
        }
        try await live.stop()
    }

    @Test func aHostKeyNotInKnownHostsIsRefusedByOpenSSH() async throws {
        let live = try await LiveSunfire.start()
        let wrong = live.work.appendingPathComponent("wrong_known_hosts").path
        try "[127.0.0.1]:\(live.port) ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBQKkNm3qEbGwQ6Gr+7m3KR9KQ2VT5sI1a0aY9h4XU3v\n"
            .write(toFile: wrong, atomically: true, encoding: .utf8)
        let result = try ExternalProcess.run(
            "/usr/bin/sshpass",
            [
                "-e", "/usr/bin/ssh", "-p", String(live.port), "-o", "UserKnownHostsFile=\(wrong)",
                "-o", "StrictHostKeyChecking=yes", "demo@127.0.0.1", "true",
            ],
            environment: ["SSHPASS": LiveSunfire.password])
        #expect(result.status == 255)
        #expect(result.stderr.contains("REMOTE HOST IDENTIFICATION HAS CHANGED") || result.stderr.contains("Host key verification failed"))
        try await live.stop()
    }

    @Test func wrongPasswordsAreRefusedLikeSSHD() async throws {
        let live = try await LiveSunfire.start()
        let result = try live.ssh("true", password: "not-the-password")
        // sshpass exits 5 when the password prompt comes back: the server refused it and asked again.
        #expect(result.status == 5, "sshpass: \(result.output)")
        #expect(try live.ssh("true").status == 0, "the host keeps serving others")
        try await live.stop()
    }

    @Test func addressesOutsideTheWhitelistAreDroppedBeforeTheBanner() async throws {
        let live = try await LiveSunfire.start(whitelist: ["10.0.0.0/8"])
        let result = try live.ssh("true")
        #expect(result.status == 255)
        #expect(
            result.stderr.contains("Connection closed") || result.stderr.contains("Connection reset")
                || result.stderr.contains("kex_exchange_identification"),
            "\(result.stderr)")
        try await live.stop()
    }

    @Test func shellMetacharactersInFileNamesAreDataNeverRun() async throws {
        let live = try await LiveSunfire.start()
        let canary = live.home.appendingPathComponent("canary")
        try FileManager.default.createDirectory(at: live.home, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: canary)
        for name in ["; rm -rf ~", "$(rm canary)", "`rm canary`", "a\nrm canary"] {
            let result = try live.ssh("ls \"\(name)\"")
            #expect(FileManager.default.fileExists(atPath: canary.path), "'\(name)' must not run anything: \(result.output)")
        }
        #expect(try live.ssh("cat canary").stdout == "keep")
        try await live.stop()
    }

    @Test func mysocAnswersTheQuotaPageToCurl() async throws {
        let live = try await LiveSunfire.start(mysoc: true)
        let site = try #require(live.mysoc)
        let body = "destination=/~eprint/forms/quota.php&credential_0=demo&credential_1=demo-password&AuthType=AuthDBICookieHandler&AuthName=mysoc"
        let page = try ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "20", "--cacert", LiveSunfire.fixture("tls/ca.pem"),
                "--data-binary", body, site.loginURL.replacingOccurrences(of: "127.0.0.1", with: "localhost"),
            ])
        #expect(page.status == 0, "curl: \(page.output)")
        #expect(page.stdout.contains("PS-printer available quota</b></td><td bgcolor=#FFFFFF>100</td></tr>"), "\(page.stdout)")
        let nusnet = body.replacingOccurrences(
            of: "credential_0=demo&credential_1=demo-password", with: "credential_0=e0123456&credential_1=nusnet-password")
        let viaNUSNET = try ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--cacert", LiveSunfire.fixture("tls/ca.pem"), "--data-binary", nusnet,
                site.loginURL.replacingOccurrences(of: "127.0.0.1", with: "localhost"),
            ])
        #expect(viaNUSNET.stdout.contains("PS-printer available quota"), "NUSNET credentials get the quota page")
        let wrong = body.replacingOccurrences(of: "demo-password", with: "nope")
        let refused = try ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--cacert", LiveSunfire.fixture("tls/ca.pem"), "--data-binary", wrong,
                site.loginURL.replacingOccurrences(of: "127.0.0.1", with: "localhost"),
            ])
        #expect(!refused.stdout.contains("<tr><td"), "wrong credentials answer the login page with no rows")
        try await live.stop()
    }
}
