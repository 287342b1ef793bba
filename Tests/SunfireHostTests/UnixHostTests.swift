import Foundation
import PrintDocuments
import SunfireHost
import Testing

/// The host's shell and commands, as the app's print flow meets them, on an in-memory home.
final class HostWorld {
    var homes: [String: InMemoryHomeFileSystem] = [:]
    var clock: Duration = .zero
    var host: UnixHost!
    var fired: Set<String> = []

    init(configure: (inout HostConfiguration) -> Void = { _ in }) {
        var configuration = HostConfiguration()
        configure(&configuration)
        host = UnixHost(configuration: configuration) { [unowned self] user in
            if let home = self.homes[user] { return home }
            let quota = configuration.accounts.first { $0.user == user }?.diskQuotaBytes ?? 0
            let home = InMemoryHomeFileSystem(homePath: "/home/\(user)", quotaBytes: quota, now: { 1_767_225_600 })
            self.homes[user] = home
            return home
        }
    }

    @discardableResult
    func run(_ line: String, as user: String = "demo") -> (out: String, err: String, status: Int32, outcome: CommandOutcome) {
        let outcome = host.run(line, as: user, now: clock, faults: { self.fired.contains($0) })
        clock += outcome.duration
        return (String(decoding: outcome.stdout, as: UTF8.self), String(decoding: outcome.stderr, as: UTF8.self), outcome.exitStatus, outcome)
    }

    func put(_ path: String, _ bytes: [UInt8], user: String = "demo") throws {
        _ = run("true", as: user)
        try homes[user]!.writeAll(try homes[user]!.resolve(path), bytes)
    }

    func advance(_ duration: Duration) -> [HostEvent] {
        clock += duration
        return host.spooler.advance(to: clock, faults: { self.fired.contains($0) })
    }
}

@Suite struct UnixHostTests {
    static let housekeeping =
        #"find socPrint/ -type f \( \! -name 'nup_pdf.jar' \) \( \! -name 'docs-to-pdf-converter-1.7.jar' \) \( \! -name 'Multivalent.jar' \) -exec rm '{}' \;"#

    @Test func theAppsPrintFlowRunsInOrder() throws {
        let world = HostWorld()
        #expect(world.run("mkdir socPrint/").status == 0)
        #expect(world.run("mkdir socPrint/").err == "mkdir: cannot create directory 'socPrint/': File exists\n")
        try world.put("socPrint/old-source.pdf", PDFWriter.document(title: "old", pages: [PDFPage(lines: [])]))
        try world.put("socPrint/nup_pdf.jar", StandInJar.nupPDF.bytes())
        try world.put("socPrint/docs-to-pdf-converter-1.7.jar", StandInJar.docsToPDF.bytes())
        #expect(world.run(Self.housekeeping).out == "")
        #expect(world.run("ls socPrint").out == "docs-to-pdf-converter-1.7.jar\nnup_pdf.jar\n", "housekeeping keeps the jars only")
        let digest = world.run("md5 socPrint/nup_pdf.jar").out
        #expect(digest.range(of: "^[0-9A-F]{32}  socPrint/nup_pdf.jar\n$", options: .regularExpression) != nil)
        #expect(world.run("md5 socPrint/Multivalent.jar").out == "", "not cached: nothing on stdout")

        try world.put("socPrint/source.pptx", OfficeDocument.generate(.pptx, pages: 12, title: "Term project"))
        let convert = world.run("java -jar socPrint/docs-to-pdf-converter-1.7.jar -i socPrint/source.pptx -o socPrint/source.pdf")
        #expect(convert.out == "" && convert.status == 0)
        #expect(convert.outcome.duration >= .seconds(4), "converting 12 slides takes its time")
        #expect(
            world.run(
                "gs -sDEVICE=pdfwrite -dNOPAUSE -dBATCH -dSAFER -dFirstPage=2 -dLastPage=6 -sOutputFile=socPrint/source-trimmed.pdf socPrint/source.pdf"
            )
            .out.contains("Processing pages 2 through 6."))
        world.run("java -jar socPrint/nup_pdf.jar socPrint/source-trimmed.pdf socPrint/formatted.pdf 2")
        #expect(world.run(#"pdftops socPrint/formatted.pdf socPrint/"Term project.ps""#).out == "")
        #expect(world.run(#"lpr -P psts socPrint/"Term project.ps""#).out == "")
        let queue = world.run("lpq -P psts").out
        #expect(queue.hasPrefix("psts is ready and printing\nRank   Owner      Job  Files"))
        #expect(queue.contains("active demo       1    Term project.ps"))
        // 5 pages 2 per sheet → 3 pages of PostScript, double-sided → 2 sheets, at 30 ppm → 6 s.
        let events = world.advance(.seconds(6))
        #expect(events.contains { $0.name == "job-printed" })
        #expect(world.host.accounts.quota(of: "demo").first?.value == 98)
        #expect(world.run("lpq -P psts").out == "no entries\n")
    }

    @Test func ghostscriptsFirstPageMessageIsOnStdout() throws {
        let world = HostWorld()
        try world.put("source.pdf", PDFWriter.document(title: "t", pages: (1...3).map { _ in PDFPage(lines: []) }))
        let result = world.run("gs -sDEVICE=pdfwrite -dNOPAUSE -dBATCH -dSAFER -dFirstPage=5 -dLastPage=9 -sOutputFile=t.pdf source.pdf")
        #expect(result.out.contains("Requested FirstPage is greater than the number of pages in the file: 3"))
    }

    @Test func javaRefusesMissingAndBrokenJarsAsJavaDoes() throws {
        let world = HostWorld()
        #expect(world.run("java -jar socPrint/nup_pdf.jar a b 2").err == "Error: Unable to access jarfile socPrint/nup_pdf.jar\n")
        try world.put("broken.jar", Array(StandInJar.nupPDF.bytes().prefix(500_000)))
        #expect(world.run("java -jar broken.jar a b 2").err == "Error: Invalid or corrupt jarfile broken.jar\n")
        try world.put("Multivalent.jar", StandInJar.nupPDF.bytes())
        #expect(
            world.run("java -classpath Multivalent.jar tool.pdf.Impose -paper a4 -nup 6 x.pdf").err
                == "Error: Could not find or load main class tool.pdf.Impose\nCaused by: java.lang.ClassNotFoundException: tool.pdf.Impose\n")
    }

    @Test func quotingIsRealAndMetacharactersAreDataOrRefusedNeverRun() throws {
        let world = HostWorld()
        try world.put("canary", Array("keep".utf8))
        try world.put("my file.ps", PostScriptWriter.document(title: "t", creator: "t", pages: [PDFPage(lines: [])]))
        #expect(world.run(#"ls "my file.ps" 'my file.ps' my\ file.ps"#).out == "my file.ps\nmy file.ps\nmy file.ps\n")
        for line in [
            #"ls "; rm canary""#, "ls $(rm canary)", "ls \"$(rm canary)\"", "ls `rm canary`", "ls a; rm canary", "ls a | rm canary",
            "ls > canary", "ls \"unterminated", "ls a\nrm canary",
        ] {
            let result = world.run(line)
            #expect(world.run("cat canary").out == "keep", "\(line) must not remove anything")
            #expect(result.status != 0, "\(line) names nothing that exists, or is refused")
        }
        #expect(world.run("ls `rm canary`").err.hasPrefix("sh: 1: command substitution '`…`' is not available on this host"))
        #expect(world.run("ls $HOME/x").err.hasPrefix("sh: 1: parameter expansion '$HOME' is not available on this host"), "the whole name, not '$H'")
        #expect(world.run("echo $1st $?").err.hasPrefix("sh: 1: parameter expansion '$1' is not available"))
        #expect(world.run("ls a | rm canary").err.hasPrefix("sh: 1: Syntax error: '|' (a pipeline or list) is not available on this host"))
        #expect(world.run("ls \"unterminated").err == "sh: 1: Syntax error: Unterminated quoted string\n")
        #expect(world.run(String(repeating: "a", count: 1 << 20)).err.hasPrefix("sh: command line too long"))
        #expect(world.run("nosuchcommand x").err == "sh: 1: nosuchcommand: not found\n")
        #expect(world.run("nosuchcommand x").status == 127)
    }

    @Test func nothingResolvesOutsideTheHome() throws {
        let world = HostWorld()
        for path in ["../alice/x", "/etc/passwd", "~/../alice", "socPrint/../../x"] {
            let result = world.run("cat \(path)")
            #expect(result.status != 0 && result.err.contains("Permission denied"), "\(path): \(result.err)")
        }
        #expect(world.run("cat /home/demo/../demo/x").err.contains("No such file"), "absolute paths inside the home work")
        // A combining mark after "/" fuses with it into one Character; the path is still split where the OS splits it.
        let resolver = HomePathResolver(homePath: "/home/demo")
        #expect(throws: FileSystemError(.permissionDenied, "../\u{301}x")) { try resolver.resolve("../\u{301}x") }
        #expect(throws: FileSystemError(.invalidArgument, "a/\u{301}b")) { try resolver.resolve("a/\u{301}b") }
        #expect(try resolver.resolve("caf\u{E9}/r\u{E9}sum\u{E9}.pdf") == "caf\u{E9}/r\u{E9}sum\u{E9}.pdf")
    }

    @Test func diskQuotaStopsAWriteAndKeepsTheRest() throws {
        let world = HostWorld { $0.accounts[0].diskQuotaBytes = 1_000 }
        _ = world.run("true")
        let home = try #require(world.homes["demo"])
        try home.createFile("f", permissions: 0o644, truncate: true, exclusive: false)
        try home.write("f", at: 0, Array(repeating: 1, count: 900)[...])
        #expect(throws: FileSystemError(.diskQuotaExceeded, "f")) { try home.write("f", at: 900, Array(repeating: 1, count: 200)[...]) }
        #expect(try home.attributes(of: "f").size == 900)
        #expect(FileSystemError(.diskQuotaExceeded, "f").description == "Disk quota exceeded")
    }

    @Test func lpqFormatsLike4_4BSDAndLprmLeavesSambaJobs() throws {
        let world = HostWorld()
        try world.put("a.ps", PostScriptWriter.document(title: "a", creator: "t", pages: [PDFPage(lines: []), PDFPage(lines: [])]))
        _ = world.host.spooler.addSambaJob(owner: "demo", printer: "psts", name: "thesis.pdf", pages: 4, now: world.clock)
        world.run("lpr -P psts a.ps")
        world.run("lpr -P psts a.ps")
        let queue = world.run("lpq -P psts").out.split(separator: "\n")
        #expect(queue[1] == "Rank   Owner      Job  Files                                 Total Size")
        #expect(queue[2].hasPrefix("active demo       1    thesis.pdf"))
        #expect(queue[3].hasPrefix("1st    demo       2    a.ps"))
        #expect(queue[4].hasPrefix("2nd    demo       3    a.ps"))
        #expect(queue[3].hasSuffix(" bytes") && queue[3].count > 61)
        let removed = world.run("lprm -P psts -").out
        #expect(removed == "dfA002sunfire dequeued\ncfA002sunfire dequeued\ndfA003sunfire dequeued\ncfA003sunfire dequeued\n")
        #expect(world.run("lpq -P psts").out.contains("thesis.pdf"), "the Samba job stays")
        _ = world.host.spooler.setState(.down("Out of Paper"), of: "psts", now: world.clock)
        #expect(world.run("lpq -P psts").out.hasPrefix("Warning: psts is down: Out of Paper\n"))
        #expect(world.run("lpq -P nosuch").err == "lpq: nosuch: unknown printer\n")
    }

    @Test func aPDFSentStraightToLprPrintsOneErrorSheet() throws {
        let world = HostWorld()
        try world.put("doc.pdf", PDFWriter.document(title: "t", pages: (1...9).map { _ in PDFPage(lines: []) }))
        world.run("lpr -P psts-sx doc.pdf")
        _ = world.advance(.seconds(60))
        #expect(world.host.accounts.quota(of: "demo").first?.value == 99)
    }

    @Test func twoRealmsUnixLogsInNUSNETOnlyGetsQuota() {
        let accounts = AccountDirectory(UnixAccount.demo)
        #expect(accounts.authenticateUnix(user: "demo", password: "demo-password"))
        #expect(!accounts.authenticateUnix(user: "e0123456", password: "nusnet-password"))
        #expect(accounts.authenticateQuota(user: "e0123456", password: "nusnet-password")?.realm == "nusnet")
        #expect(accounts.authenticateQuota(user: "demo", password: "wrong") == nil)
    }

    @Test func diskHomesRefuseSymlinksThatLeadOutside() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("home-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let home = try DiskHomeFileSystem(root: root.path, homePath: "/home/demo", quotaBytes: 1 << 20)
        try home.writeAll("ok.txt", Array("hi".utf8))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("escape").path, withDestinationPath: "/etc")
        #expect(throws: FileSystemError.self) { try home.readAll("escape/passwd", limit: 1 << 20) }
        #expect(throws: FileSystemError.self) { try home.attributes(of: "escape") }
        #expect(try home.readAll("ok.txt", limit: 10) == Array("hi".utf8))
        #expect(home.usedBytes == 2)
    }

    @Test func shellParserRoundTripsQuotedWords() throws {
        for words in [["a b", "c'd", "e\"f", "$(x)", "`y`", "; rm -rf ~", "line\nbreak", "\\"]] {
            let line = words.map(ShellParser.quote).joined(separator: " ")
            #expect(try ShellParser.parse(line) == words)
        }
        #expect(try ShellParser.parse(#"socPrint/"Term project.ps""#) == ["socPrint/Term project.ps"])
        #expect(
            try ShellParser.parse(#"find x \( \! -name 'a' \) -exec rm '{}' \;"#) == [
                "find", "x", "(", "!", "-name", "a", ")", "-exec", "rm", "{}", ";",
            ])
        #expect(try ShellParser.parse("ls ~/x", home: "/home/demo") == ["ls", "/home/demo/x"])
    }
}
