import Foundation
import PrintDocuments
import Testing

@Suite struct PrintDocumentsTests {
    static func pdf(_ pages: Int) -> [UInt8] {
        PDFWriter.document(title: "Handout", pages: (1...pages).map { PDFPage(lines: ["Page \($0)"]) })
    }

    @Test(arguments: OfficeFormat.allCases)
    func officeDocumentsCarryTheirPageCount(format: OfficeFormat) throws {
        for pages in [1, 2, 12] {
            let document = OfficeDocument.generate(format, pages: pages, title: "Term project")
            #expect(try OfficeDocument.pageCount(document, format: format) == pages)
            let converted = DocsToPDFConverter.convert(input: document, inputPath: "socPrint/source.\(format.rawValue)", outputPath: "socPrint/source.pdf")
            #expect(converted.printed.stdout == "", "success prints nothing on stdout")
            #expect(try PDFReader.pageCount(try #require(converted.output)) == pages)
        }
    }

    @Test func ghostscriptTrimsAndSaysSoLikeGhostscript() throws {
        let trimmed = Ghostscript.pdfwrite(input: Self.pdf(12), inputPath: "s.pdf", outputPath: "t.pdf", firstPage: 2, lastPage: 6)
        #expect(try PDFReader.pageCount(try #require(trimmed.output)) == 5)
        #expect(PDFReader.pageLines(try #require(trimmed.output))?.first == ["Page 2"])
        #expect(trimmed.printed.stdout.contains("Processing pages 2 through 6.\nPage 2\n"))
        let beyond = Ghostscript.pdfwrite(input: Self.pdf(3), inputPath: "s.pdf", outputPath: "t.pdf", firstPage: 5, lastPage: 9)
        #expect(beyond.printed.stdout.hasSuffix("Requested FirstPage is greater than the number of pages in the file: 3\n   No pages will be processed (FirstPage > LastPage).\n"))
        #expect(beyond.printed.exitStatus == 0)
        let missing = Ghostscript.pdfwrite(input: nil, inputPath: "nope.pdf", outputPath: "t.pdf", firstPage: 1, lastPage: 1)
        #expect(missing.printed.exitStatus == 1 && missing.printed.stdout.contains("Error: /undefinedfilename in (nope.pdf)"))
    }

    @Test func nUpAndImposeMakeCeilingPagesOverNSheets() throws {
        for (pages, perSheet, sheets) in [(5, 2, 3), (5, 4, 2), (12, 8, 2), (8, 8, 1)] {
            let result = NUpPDF.convert(input: Self.pdf(pages), inputPath: "a.pdf", outputPath: "b.pdf", perSheet: perSheet)
            #expect(result.pages == sheets)
            #expect(try PDFReader.pageCount(try #require(result.output)) == sheets)
        }
        let imposed = MultivalentImpose.impose(input: Self.pdf(13), inputPath: "socPrint/source.pdf", perSheet: 6, paper: "a4")
        #expect(imposed.outputPath == "socPrint/source-up.pdf")
        #expect(imposed.pages == 3)
    }

    @Test func pdftopsWritesDSCPostScriptWithThePageCount() throws {
        let result = PDFToPS.convert(input: Self.pdf(4), inputPath: "f.pdf", outputPath: "f.ps")
        let postScript = try #require(result.output)
        #expect(PostScriptReader.isPostScript(postScript))
        #expect(PostScriptReader.pageCount(postScript) == 4)
        #expect(String(decoding: postScript, as: UTF8.self).contains("%%Pages: 4\n%%DocumentData: Clean7Bit\n%%EndComments"))
        let garbage = PDFToPS.convert(input: Array("hello".utf8), inputPath: "x.pdf", outputPath: "x.ps")
        #expect(garbage.printed.stderr.hasPrefix("Syntax Warning: May not be a PDF file (continuing anyway)\n"))
        #expect(garbage.printed.exitStatus == 1)
    }

    @Test func standInJarsHaveTheRealSizesAndAreRecognisedLikeJava() throws {
        for jar in StandInJar.allCases {
            let bytes = jar.bytes()
            #expect(bytes.count == jar.size)
            #expect(bytes == jar.bytes(), "deterministic")
            let info = try JarFile.inspect(bytes)
            #expect(info.mainClass == jar.mainClass)
            #expect(Set(jar.classNames).isSubset(of: info.classNames))
            #expect(throws: DocumentError.self) { try JarFile.inspect(Array(bytes.prefix(bytes.count / 2))) }
        }
        #expect(try JarFile.inspect(StandInJar.multivalent.bytes()).classNames.contains("tool.pdf.Impose"))
    }

    @Test func hostileDocumentsAreRefusedWithReasons() {
        #expect(throws: DocumentError.self) { try PDFReader.pageCount(Array("not a pdf".utf8)) }
        #expect(throws: DocumentError.self) { try PDFReader.pageCount(Array("%PDF-1.4\n1 0 obj << /Type /Pages /Count 99999999 >> endobj\ntrailer << /Root 2 0 R >>\n2 0 obj << /Pages 1 0 R >> endobj".utf8)) }
        #expect(throws: DocumentError.self) { try OfficeDocument.pageCount(Array(repeating: 7, count: 100), format: .docx) }
        var bomb = ZIPWriter()
        bomb.add("docProps/app.xml", Array(repeating: 0x20, count: 5 << 20), compress: true)
        #expect(throws: DocumentError.self) { try OfficeDocument.pageCount(bomb.finish(), format: .docx) }
        let docx = OfficeDocument.generate(.docx, pages: 3, title: "t")
        #expect(throws: DocumentError.self) { try OfficeDocument.pageCount(Array(docx.prefix(docx.count - 30)), format: .docx) }
    }

    @Test func realToolsAgreeWithWhatTheConvertersWrite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let converted = DocsToPDFConverter.convert(input: OfficeDocument.generate(.pptx, pages: 7, title: "Slides"), inputPath: "s.pptx", outputPath: "s.pdf")
        let file = directory.appendingPathComponent("s.pdf").path
        try Data(try #require(converted.output)).write(to: URL(fileURLWithPath: file))
        for (tool, arguments) in [("/usr/bin/qpdf", ["--check", file]), ("/usr/bin/pdfinfo", [file])] {
            guard FileManager.default.isExecutableFile(atPath: tool) else {
                Issue.record("\(tool) is missing: tools/setup.sh installs qpdf and poppler-utils")
                continue
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(tool): \(output)")
            if tool.hasSuffix("pdfinfo") { #expect(output.contains("Pages:           7")) }
        }
    }
}
