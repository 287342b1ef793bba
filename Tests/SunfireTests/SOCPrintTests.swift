import Kernel
import PrintDocuments
import SOCPrint
import Sunfire
import Testing
import Wire

/// The SOC Print client's pure parts: the command lines and paths it sends, the dialog's text, the screens' checks.
@Suite struct SOCPrintTextTests {
    @Test func pdfDetectionIsTheAppsCaseSensitiveContainsRule() {
        #expect(PrintPaths.isPDF("notes.pdf"))
        #expect(PrintPaths.isPDF("scan.xpdf"), "the extension only has to contain pdf")
        #expect(!PrintPaths.isPDF("Scan.PDF"), "upper case goes through the converter")
        #expect(!PrintPaths.isPDF("pdf-guide.docx"), "the name does not count, only the extension")
        #expect(PrintPaths.uploadPath("Scan.PDF") == "socPrint/source.PDF")
        #expect(PrintPaths.uploadPath("README") == "socPrint/source.")
    }

    @Test func commandLinesAreTheAppsWordForWord() throws {
        let manifest = try Self.manifest()
        #expect(
            PrintPaths.housekeeping[1]
                == #"find socPrint/ -type f \( \! -name 'nup_pdf.jar' \) \( \! -name 'docs-to-pdf-converter-1.7.jar' \) \( \! -name 'Multivalent.jar' \) -exec rm '{}' \;"#
        )
        #expect(
            PrintPaths.convertToPDF("Term project.pptx", converter: manifest.documentConverter)
                == "java -jar socPrint/docs-to-pdf-converter-1.7.jar -i socPrint/source.pptx -o socPrint/source.pdf")
        let trim = PrintPaths.trim(from: 2, to: 6, input: "socPrint/source.pdf")
        #expect(
            trim.command
                == "gs -sDEVICE=pdfwrite -dNOPAUSE -dBATCH -dSAFER -dFirstPage=2 -dLastPage=6 -sOutputFile=socPrint/source-trimmed.pdf socPrint/source.pdf"
        )
        let nUp = PrintPaths.format(.eight, input: trim.output, manifest: manifest)
        #expect(nUp.command == "java -jar socPrint/nup_pdf.jar socPrint/source-trimmed.pdf socPrint/formatted.pdf 8")
        #expect(nUp.output == "socPrint/formatted.pdf")
        let six = PrintPaths.format(.six, input: trim.output, manifest: manifest)
        #expect(six.command == "java -classpath socPrint/Multivalent.jar tool.pdf.Impose -paper a4 -nup 6 socPrint/source-trimmed.pdf")
        #expect(six.output == "socPrint/source-trimmed-up.pdf")
        #expect(
            PrintPaths.toPostScript("socPrint/formatted.pdf", fileName: "Term project.pptx")
                == #"pdftops socPrint/formatted.pdf socPrint/"Term project.ps""#)
        #expect(PrintPaths.send(printer: "psts", fileName: "Term project.pptx") == #"lpr -P psts socPrint/"Term project.ps""#)
    }

    @Test func namesThatWouldBreakOutOfDoubleQuotesAreSingleQuoted() {
        #expect(PrintPaths.postScriptPath(#"a"b.pdf"#) == #"'socPrint/a"b.ps'"#)
        #expect(PrintPaths.postScriptPath("$(reboot).pdf") == "'socPrint/$(reboot).ps'")
        #expect(PrintPaths.postScriptPath("it's $5.pdf") == #"'socPrint/it'\''s $5.ps'"#)
        #expect(PrintPaths.postScriptPath("it's fine.pdf") == #"socPrint/"it's fine.ps""#)
    }

    @Test func sizesAndFootersReadAsOnIOS() {
        #expect(PrintingText.fileSize(0) == "Zero KB")
        #expect(PrintingText.fileSize(1) == "1 byte")
        #expect(PrintingText.fileSize(999) == "999 bytes")
        #expect(PrintingText.fileSize(296_612) == "297 KB")
        #expect(PrintingText.fileSize(999_499) == "999 KB")
        #expect(PrintingText.fileSize(999_500) == "1.0 MB")
        #expect(PrintingText.fileSize(1_174_581) == "1.2 MB")
        #expect(PrintingText.fileSize(46_617_390) == "46.6 MB")
        #expect(PrintingText.fileSize(2_345_000_000) == "2.35 GB")
        #expect(PrintingText.uploadFooter(sent: 46_617_390, of: 46_617_390) == "46.6 MB of 46.6 MB (100.0%)")
        #expect(PrintingText.uploadFooter(sent: 0, of: 1_174_581) == "Zero KB of 1.2 MB (0.0%)")
        #expect(PrintingText.uploadFooter(sent: 98_304, of: 296_612) == "98 KB of 297 KB (33.1%)")
        #expect(PrintingText.uploadFooter(sent: 0, of: 0) == "Zero KB of Zero KB (0.0%)")
    }

    @Test func thePrintScreensChecksComeInTheAppsOrder() throws {
        let settings = SettingsStore()
        let document = OpenedDocument(name: "a.pdf", source: .bytes([1, 2, 3]))
        #expect(PrintScreen(printer: "psts").check(settings: settings, document: document).failure == .notSetUp)
        #expect(settings.save(username: "demo", password: "", printer: "", server: "sunfire") == .emptyFields)
        #expect(settings.credentials == nil, "nothing is stored when a field is empty")
        #expect(settings.save(username: "demo", password: "pw", printer: "psc115", server: "sunfire:2222") == .saved)
        #expect(settings.serverAddress! == ("sunfire", 2222))
        #expect(Printers.list(custom: settings.printer).prefix(2) == ["psc115", "psts"])
        #expect(PrintScreen(printer: nil).check(settings: settings, document: document).failure == .printerNotSelected)
        #expect(PrintScreen(printer: "psts; rm -rf ~").check(settings: settings, document: document).failure?.title == "Printer not selected")
        #expect(PrintScreen(printer: "psts").check(settings: settings, document: nil).failure == .noFile)
        for (from, to) in [("0", "3"), ("5", "2"), ("", "3"), ("2", "x"), ("-1", "3"), ("２", "3")] {
            #expect(
                PrintScreen(printer: "psts", customRange: (from, to)).check(settings: settings, document: document).failure == .invalidPageRange,
                "\(from)-\(to)")
        }
        let request = try PrintScreen(printer: "psts", pagesPerSheet: .four, customRange: ("3", "999")).check(settings: settings, document: document)
            .get()
        #expect(request.range == .custom(from: 3, to: 999), "no upper bound: the host finds out")
        #expect(
            SettingsStore.parseServer("host:0") == nil && SettingsStore.parseServer("host:99999") == nil && SettingsStore.parseServer(":22") == nil)
    }

    @Test func quotaRowsAreFoundInTheWholePageCaseInsensitively() {
        let page = """
            <html><table>
            <TR><TD bgcolor=#EEEEEE><b>PS-printer available quota</b></TD><TD bgcolor=#FFFFFF>87</TD></TR>
            <tr><td bgcolor="x"><i>Color-PS-printer</i> available quota</td><td bgcolor=y>0</td></tr>
            </table></html>
            """
        let rows = QuotaClient.rows(in: page)
        #expect(rows.map(\.type) == ["PS-printer available quota", "Color-PS-printer available quota"])
        #expect(rows.map(\.value) == ["87", "0"])
        #expect(QuotaClient.rows(in: "<html><form>login</form></html>").isEmpty)
        #expect(
            QuotaClient.form(user: "demo", password: "pw")
                == "destination=/~eprint/forms/quota.php&credential_0=demo&credential_1=pw&AuthType=AuthDBICookieHandler&AuthName=mysoc")
    }

    @Test func digestsAreUpperCaseHexMD5() throws {
        #expect(try ConverterManifest.md5(of: .bytes(Array("abc".utf8))) == "900150983CD24FB0D6963F7D28E17F72")
        let big = [UInt8](repeating: 7, count: 3 << 20)
        #expect(try ConverterManifest.md5(of: .bytes(big)) == ConverterManifest.md5(of: .bytes(big)))
    }

    static func manifest() throws -> ConverterManifest {
        func stand(_ jar: StandInJar, size: Int) throws -> ConverterManifest.Converter {
            // Small payloads keep these tests fast; the flow tests use the real stand-ins.
            try ConverterManifest.Converter(fileName: jar.fileName, payload: .bytes([UInt8](repeating: 1, count: size)))
        }
        return ConverterManifest(
            documentConverter: try stand(.docsToPDF, size: 10), nUp: try stand(.nupPDF, size: 10), multivalent: try stand(.multivalent, size: 10))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}

/// The print flow on the simulated wire against Sunfire, watched through its progress stream as a UI would.
@Suite struct SOCPrintFlowTests {
    static let converters: ConverterManifest? = try? ConverterManifest(
        documentConverter: .init(fileName: StandInJar.docsToPDF.fileName, payload: .bytes(StandInJar.docsToPDF.bytes())),
        nUp: .init(fileName: StandInJar.nupPDF.fileName, payload: .bytes(StandInJar.nupPDF.bytes())),
        multivalent: .init(fileName: StandInJar.multivalent.fileName, payload: .bytes(StandInJar.multivalent.bytes())))

    struct Run: Sendable {
        let outcome: PrintOperation.Outcome
        let snapshots: [[PrintRow]]
        let digest: String
    }

    /// A command with no connection fails with `notConnected`, and the app's `runCommand` says `Nil`. The exec's promise
    /// is completed, not leaked: NIO traps on a leaked promise in a debug build, as a swarm seed whose connection was
    /// gone before an exec did.
    @Test func aCommandWithoutAConnectionFailsAndLeaksNothing() throws {
        let kernel = Kernel(seed: 3)
        let connectivity = SSHConnectivity(host: "sunfire", user: "demo", password: "demo-password", node: kernel.node("phone"))
        let failure = try kernel.run("exec without a connection") { () async -> String in
            do {
                _ = try await connectivity.execute("ls")
                return "ran"
            } catch { return "\(error)" }
        }
        #expect(failure == "not connected to the server")
        #expect(try kernel.run("runCommand without a connection") { await connectivity.runCommand("ls") } == "Nil")
    }

    static func print(
        _ document: [UInt8], name: String, perSheet: PagesPerSheet, range: PageRange = .all, times: Int = 1,
        user: String = "demo", password: String = "demo-password"
    ) throws -> [Run] {
        let kernel = Kernel(seed: 3)
        let key = try #require(SimulatedSunfireTests.hostKey)
        let converters = try #require(Self.converters)
        _ = try kernel.run("start") { try await Sunfire.start(on: kernel.node("sunfire"), configuration: Sunfire.Configuration(hostKey: key)) }
        for (from, to) in [("phone", "sunfire"), ("sunfire", "phone")] {
            kernel.network.setConditions(from: from, to: to, LinkConditions(latency: .fixed(10_000_000), bandwidth: 8_000_000))
        }
        var runs: [Run] = []
        for _ in 0..<times {
            let operation = PrintOperation(
                connectivity: SSHConnectivity(host: "sunfire", user: user, password: password, node: kernel.node("phone")),
                request: PrintRequest(fileName: name, document: .bytes(document), printer: "psts", pagesPerSheet: perSheet, range: range),
                converters: converters
            ) { _ in true }
            // Bounded: if the progress stream never finishes, the kernel's wait fails ("'print and watch its progress' is
            // waiting but nothing is scheduled to wake it"), and after 600 s of virtual time at most.
            let (outcome, snapshots) = try kernel.run("print and watch its progress", timeout: .seconds(600)) {
                async let watched: [[PrintRow]] = {
                    var all: [[PrintRow]] = []
                    for await rows in operation.progress { all.append(rows) }
                    return all
                }()
                let outcome = await operation.run()
                return (outcome, await watched)
            }
            runs.append(Run(outcome: outcome, snapshots: snapshots, digest: kernel.trace.digest))
        }
        return runs
    }

    @Test func aDeckPrintsWithEveryRowTickedAndTheConvertersCachedTheSecondTime() throws {
        let deck = OfficeDocument.generate(.pptx, pages: 12, title: "Deck")
        let runs = try Self.print(deck, name: "Deck.pptx", perSheet: .four, range: .custom(from: 2, to: 9), times: 2)
        let first = runs[0].outcome
        #expect(first.status == .printed)
        #expect(first.uploaded == ["socPrint/docs-to-pdf-converter-1.7.jar", "socPrint/nup_pdf.jar", "socPrint/source.pptx"])
        #expect(first.rows.allSatisfy { if case .done = $0.state { true } else { $0.state == .skipped } })
        #expect(first.rows[PrintStep.uploadDocumentConverter.rawValue].state == .done(footer: "46.6 MB of 46.6 MB (100.0%)"))
        #expect(first.rows.map(\.title)[PrintStep.trim.rawValue] == "Trim PDF to page 2 to 9")
        // The stream a UI binds to: the converter's footer climbs, and no row ever goes back.
        let converterSent = runs[0].snapshots.compactMap { $0[PrintStep.uploadDocumentConverter.rawValue].sent }
        #expect(converterSent == converterSent.sorted() && converterSent.last == 46_617_390)
        #expect(runs[0].snapshots.last == first.rows)
        let second = runs[1].outcome
        #expect(second.status == .printed)
        #expect(second.uploaded == ["socPrint/source.pptx"])
    }

    @Test func theSamePrintGivesTheSameTraceTwice() throws {
        let pdf = PDFWriter.document(title: "Notes", pages: (1...6).map { PDFPage(lines: ["Page \($0)"]) })
        let one = try Self.print(pdf, name: "notes.pdf", perSheet: .six)
        let two = try Self.print(pdf, name: "notes.pdf", perSheet: .six)
        #expect(one[0].outcome.status == .printed)
        #expect(one[0].outcome.uploaded == ["socPrint/Multivalent.jar", "socPrint/source.pdf"])
        #expect(one[0].digest == two[0].digest)
    }

    @Test func aWrongPasswordFailsAtConnectingWithTheAppsAlert() throws {
        let run = try Self.print([1], name: "x.pdf", perSheet: .one, password: "nope")[0].outcome
        #expect(run.status == .failed)
        #expect(run.failedStep == .connecting)
        #expect(run.alert == .credentialsWrong)
        #expect(run.dialog.hasPrefix("Printing Progress\n✗ Connecting to server\n  Some housekeeping\n"))
        #expect(run.uploaded.isEmpty)
    }
}
