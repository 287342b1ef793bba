import Foundation
import PrintDocuments
import Testing

@Suite struct DocsToPDFTests {
    @Test(arguments: OfficeFormat.allCases)
    func everyFormatConvertsToAsManyPagesAsItHas(format: OfficeFormat) throws {
        for pages in [1, 2, 12] {
            let result = Sample.converted(format, pages: pages)
            #expect(result.printed == ToolOutput(), "success prints nothing: the app treats any stdout as failure")
            #expect(result.pages == pages)
            #expect(result.outputPath == "socPrint/source.pdf")
            #expect(try PDFReader.pageCount(try #require(result.output)) == pages)
        }
    }

    @Test func theDocumentsTextLandsOnItsPages() throws {
        let result = Sample.converted(.docx, pages: 3)
        let output = try #require(result.output)
        let lines = try #require(PDFReader.pageLines(output))
        #expect(lines.count == 3)
        #expect(lines[1].first == "Term project")
        #expect(lines[1].contains("Page 2 of 3"))
    }

    @Test func slidesBecomeLandscapePagesTwiceTheSlideSize() throws {
        let pptx = try #require(Sample.converted(.pptx, pages: 2).output)
        #expect(PDFReader.pageSizes(pptx) == [PageSize(width: 1920, height: 1080), PageSize(width: 1920, height: 1080)])
        #expect(PDFReader.pageLines(pptx)?[1].contains("Slide 2 of 2") == true)
        let ppt = try #require(Sample.converted(.ppt, pages: 1).output)
        #expect(PDFReader.pageSizes(ppt) == [PageSize(width: 1440, height: 1080)], "POI's 4:3 default at zoom 2")
        #expect(PDFReader.pageSizes(try #require(Sample.converted(.docx, pages: 1).output)) == [.a4])
    }

    @Test func theTypeComesFromThePathCaseInsensitively() throws {
        let docx = OfficeDocument.generate(.docx, pages: 2, title: "t")
        #expect(DocsToPDFConverter.convert(input: docx, inputPath: "socPrint/source.DOCX", outputPath: "o.pdf").pages == 2)
        // The tool knows no PDF: an upper-case .PDF (which the app sends through the converter) fails as it did.
        let pdf = DocsToPDFConverter.convert(input: Sample.pdf(2), inputPath: "socPrint/source.PDF", outputPath: "socPrint/source.pdf")
        #expect(pdf.printed == ToolOutput(stdout: "Unable to determine type of input file.\n"))
        #expect(pdf.output == [], "the output file was created, empty, before the type was known")
        #expect(pdf.outputPath == "socPrint/source.pdf")
    }

    @Test func aMissingInputIsReportedOnStdout() {
        let result = DocsToPDFConverter.convert(input: nil, inputPath: "socPrint/source.docx", outputPath: "socPrint/source.pdf")
        #expect(result.printed == ToolOutput(stdout: "\n\nInput\\Output file not specified properly.\n"))
        #expect(result.output == nil)
    }

    @Test(arguments: OfficeFormat.allCases)
    func unreadableInputPrintsAStackTraceOnStderrOnly(format: OfficeFormat) {
        let result = DocsToPDFConverter.convert(input: Array("not really a document".utf8), inputPath: "x.\(format.rawValue)", outputPath: "x.pdf")
        #expect(result.printed.stdout == "", "e.printStackTrace() writes to stderr, so the app sees success")
        #expect(result.printed.exitStatus == 0)
        #expect(result.printed.stderr.contains("\tat com.yeokhengmeng.docstopdfconverter.MainClass.main(MainClass.java:43)\n"))
        #expect(result.output == [])
        #expect(result.pages == 0)
    }

    @Test func poiMessagesMatchTheKindOfDamage() {
        let zipAsDoc = DocsToPDFConverter.convert(
            input: OfficeDocument.generate(.docx, pages: 1, title: "t"), inputPath: "x.doc", outputPath: "x.pdf")
        #expect(
            zipAsDoc.printed.stderr.hasPrefix(
                "org.apache.poi.poifs.filesystem.OfficeXmlFileException: The supplied data appears to be in the Office 2007+ XML."))
        let text = DocsToPDFConverter.convert(input: Array(String(repeating: "hello ", count: 100).utf8), inputPath: "x.ppt", outputPath: "x.pdf")
        #expect(
            text.printed.stderr.hasPrefix("java.io.IOException: Invalid header signature; read 0x6568206F6C6C6568, expected 0xE11AB1A1E011CFD0\n"))
        let docxWithoutTypes = DocsToPDFConverter.convert(input: Array("PK garbage".utf8), inputPath: "x.docx", outputPath: "x.pdf")
        #expect(
            docxWithoutTypes.printed.stderr.hasPrefix(
                "org.apache.poi.POIXMLException: org.apache.poi.openxml4j.exceptions.InvalidFormatException: Package should contain a content type part [M1.13]\n"
            ))
    }

    @Test func theCommandLineIsParsedLikeArgs4j() throws {
        let files = ["in.odt": OfficeDocument.generate(.odt, pages: 4, title: "Notes")]
        let read = { (path: String) in files[path] }
        let long = DocsToPDFConverter.run(arguments: ["-inputPath", "in.odt", "-outputPath", "out.pdf"], readFile: read)
        #expect(long.pages == 4 && long.outputPath == "out.pdf")
        #expect(DocsToPDFConverter.run(arguments: ["-i", "in.odt"], readFile: read).outputPath == "in.pdf", "-o defaults to the input as .pdf")
        let noInput = DocsToPDFConverter.run(arguments: ["-o", "x.pdf"], readFile: read)
        #expect(noInput.printed.stdout == "\n\nInput\\Output file not specified properly.\n")
        #expect(noInput.printed.stderr.contains("-inputPath (-i, -in, -input) <path>"))
        let unknown = DocsToPDFConverter.run(arguments: ["-i", "in.odt", "-x"], readFile: read)
        #expect(unknown.printed.stdout == "Unable to determine type of input file.\n")
        #expect(unknown.printed.stderr.hasPrefix("\"-x\" is not a valid option\n"))
        let verbose = DocsToPDFConverter.run(arguments: ["-i", "in.odt", "-o", "o.pdf", "-v"], readFile: read)
        #expect(verbose.printed.stdout.hasPrefix("\nLoading stream\n\n\nLoad completed in "))
        let typed = DocsToPDFConverter.run(arguments: ["-i", "in.odt", "-t", "DOCX"], readFile: read)
        #expect(typed.output == [] && typed.printed.stderr.contains("Package should contain a content type part"), "-t overrides the extension")
    }
}

@Suite struct GhostscriptTests {
    static let banner =
        "GPL Ghostscript 10.0.0 (2022-09-21)\nCopyright (C) 2022 Artifex Software, Inc.  All rights reserved.\n"
        + "This software is supplied under the GNU AGPLv3 and comes with NO WARRANTY:\nsee the file COPYING for details.\n"

    @Test func trimmingKeepsPagesSThroughEAndSaysSo() throws {
        let result = Ghostscript.pdfwrite(
            input: Sample.pdf(12), inputPath: "socPrint/source.pdf", outputPath: "socPrint/source-trimmed.pdf",
            firstPage: 2, lastPage: 4)
        #expect(
            result.printed.stdout == Self.banner + "Processing pages 2 through 4.\nPage 2\n"
                + "Loading font Helvetica (or substitute) from /usr/share/ghostscript/10.00.0/Resource/Font/NimbusSans-Regular\nPage 3\nPage 4\n")
        #expect(result.printed.stderr == "" && result.printed.exitStatus == 0)
        let output = try #require(result.output)
        #expect(try PDFReader.pageCount(output) == 3 && result.pages == 3)
        #expect(PDFReader.pageLines(output)?.map { $0[1] } == ["Page 2 of 12", "Page 3 of 12", "Page 4 of 12"])
        #expect(result.outputPath == "socPrint/source-trimmed.pdf")
    }

    @Test func aLastPageBeyondTheEndIsClamped() throws {
        let result = Ghostscript.pdfwrite(input: Sample.pdf(3), inputPath: "s.pdf", outputPath: "t.pdf", firstPage: 2, lastPage: 9)
        #expect(result.printed.stdout.contains("Processing pages 2 through 3.\n"))
        #expect(try PDFReader.pageCount(try #require(result.output)) == 2)
    }

    @Test func aFirstPageBeyondTheEndPrintsTheMessageTheAppLooksFor() throws {
        let result = Ghostscript.pdfwrite(input: Sample.pdf(12), inputPath: "s.pdf", outputPath: "t.pdf", firstPage: 13, lastPage: 14)
        #expect(
            result.printed.stdout == Self.banner
                + "\nRequested FirstPage is greater than the number of pages in the file: 12\n   No pages will be processed (FirstPage > LastPage).\n"
        )
        #expect(result.printed.exitStatus == 0)
        #expect(result.printed.stdout.contains(Ghostscript.firstPageTooLarge))
        #expect(try PDFReader.pageCount(try #require(result.output)) == 1, "pdfwrite still writes one blank page")
    }

    @Test func aMissingInputIsAnUndefinedFilename() {
        let result = Ghostscript.pdfwrite(input: nil, inputPath: "socPrint/nope.pdf", outputPath: "t.pdf", firstPage: 1, lastPage: 1)
        #expect(
            result.printed.stdout.hasPrefix(Self.banner + "Error: /undefinedfilename in (socPrint/nope.pdf)\nOperand stack:\n\nExecution stack:\n"))
        #expect(
            result.printed.stdout.hasSuffix(
                "--dict:770/1123(ro)(G)--   --dict:0/20(G)--   --dict:75/200(L)--\nCurrent allocation mode is local\nLast OS error: No such file or directory\n"
            ))
        #expect(result.printed.stderr == "GPL Ghostscript 10.00.0: Unrecoverable error, exit code 1\n")
        #expect(result.printed.exitStatus == 1)
    }

    @Test func textThatIsNotPDFFailsAsPostScript() {
        let result = Ghostscript.pdfwrite(input: Array("hello\n".utf8), inputPath: "s.pdf", outputPath: "t.pdf", firstPage: 1, lastPage: 2)
        #expect(result.printed.stdout.hasPrefix(Self.banner + "Error: /undefined in hello\nOperand stack:\n\nExecution stack:\n"))
        #expect(result.printed.stdout.hasSuffix("Current allocation mode is local\nCurrent file position is 6\n"))
        #expect(result.printed.exitStatus == 1)
        let numbers = Ghostscript.pdfwrite(input: Array("123 hello\n".utf8), inputPath: "s.pdf", outputPath: "t.pdf", firstPage: nil, lastPage: nil)
        #expect(numbers.printed.stdout.contains("Operand stack:\n   123\nExecution stack:\n"))
        #expect(numbers.printed.stdout.contains("--dict:768/1123(ro)(G)--"), "no -dFirstPage/-dLastPage: two fewer entries")
        let html = Ghostscript.pdfwrite(input: Array("<html>".utf8), inputPath: "s.pdf", outputPath: "t.pdf", firstPage: 1, lastPage: 2)
        #expect(html.printed.stdout.contains("Error: /syntaxerror in /----nostringval----\n"))
        let empty = Ghostscript.pdfwrite(input: [], inputPath: "s.pdf", outputPath: "t.pdf", firstPage: 1, lastPage: 2)
        #expect(empty.printed == ToolOutput(stdout: Self.banner), "an empty file is an empty PostScript program")
    }

    @Test func aPDFWithoutPagesCannotBeInitialised() {
        let junk = Ghostscript.pdfwrite(input: Array("%PDF-1.4\nrubbish\n".utf8), inputPath: "s.pdf", outputPath: "t.pdf", firstPage: 1, lastPage: 2)
        #expect(
            junk.printed.stdout == Self.banner + "   **** Error: Couldn't initialise file.\n               Output may be incorrect.\n\n"
                + "Requested FirstPage is greater than the number of pages in the file: 0\n   No pages will be processed (FirstPage > LastPage).\n")
        #expect(
            junk.printed.stderr.hasPrefix(
                "\nThe following errors were encountered at least once while processing this file:\n\tno startxref token found\n"))
    }
}

@Suite struct NUpTests {
    @Test(arguments: [2, 4, 8])
    func nUpMakesCeilingPagesOverNSheets(perSheet: Int) throws {
        for pages in [1, 2, 5, 12, 16] {
            let result = NUpPDF.convert(
                input: Sample.pdf(pages), inputPath: "socPrint/source.pdf", outputPath: "socPrint/formatted.pdf", perSheet: perSheet)
            let sheets = (pages + perSheet - 1) / perSheet
            #expect(result.pages == sheets && result.printed == ToolOutput())
            #expect(try PDFReader.pageCount(try #require(result.output)) == sheets, "\(pages) pages \(perSheet)-up")
            #expect(result.outputPath == "socPrint/formatted.pdf")
        }
    }

    @Test func sheetsCarryTheirPagesInOrder() throws {
        let result = NUpPDF.convert(input: Sample.pdf(5), inputPath: "a.pdf", outputPath: "b.pdf", perSheet: 4)
        let output = try #require(result.output)
        let lines = try #require(PDFReader.pageLines(output))
        #expect(
            lines == [
                ["Handout", "Page 1 of 5", "Handout", "Page 2 of 5", "Handout", "Page 3 of 5", "Handout", "Page 4 of 5"],
                ["Handout", "Page 5 of 5"],
            ])
    }

    @Test func oddPowersTurnTheSheet() throws {
        let sizes = { (perSheet: Int) in
            PDFReader.pageSizes(NUpPDF.convert(input: Sample.pdf(1), inputPath: "a.pdf", outputPath: "b.pdf", perSheet: perSheet).output ?? [])
        }
        #expect(sizes(2) == [.a4Landscape])
        #expect(sizes(4) == [.a4])
        #expect(sizes(8) == [.a4Landscape])
    }

    @Test func nUpRefusesWhatItCannotDo() {
        #expect(NUpPDF.convert(input: Sample.pdf(3), inputPath: "a.pdf", outputPath: "b.pdf", perSheet: 6).printed.exitStatus == 1)
        let garbage = NUpPDF.convert(input: Array("nope".utf8), inputPath: "a.pdf", outputPath: "b.pdf", perSheet: 2)
        #expect(
            garbage.output == nil
                && garbage.printed.stderr.hasPrefix("Exception in thread \"main\" java.io.IOException: PDF header signature not found."))
        let missing = NUpPDF.convert(input: nil, inputPath: "a.pdf", outputPath: "b.pdf", perSheet: 2)
        #expect(missing.printed.stderr.contains("a.pdf not found as file or resource."))
    }

    @Test func imposeSixUpWritesBesideTheInput() throws {
        for (pages, sheets) in [(1, 1), (6, 1), (7, 2), (13, 3)] {
            let result = MultivalentImpose.impose(input: Sample.pdf(pages), inputPath: "socPrint/source.pdf", perSheet: 6, paper: "a4")
            #expect(result.outputPath == "socPrint/source-up.pdf")
            #expect(result.pages == sheets)
            #expect(try PDFReader.pageCount(try #require(result.output)) == sheets)
            #expect(PDFReader.pageSizes(try #require(result.output))?.first == .a4Landscape, "3 × 2 portrait pages fit best on landscape A4")
        }
        #expect(MultivalentImpose.outputPath(for: "notes.PDF") == "notes-up.pdf")
        #expect(MultivalentImpose.outputPath(for: "notes") == "notes-up.pdf")
        #expect(MultivalentImpose.impose(input: Sample.pdf(2), inputPath: "a.pdf", perSheet: 6, paper: "b9").printed.exitStatus == 1)
    }
}

@Suite struct PDFToPSTests {
    @Test(arguments: [1, 2, 12])
    func postScriptHasTheInputsPages(pages: Int) throws {
        let result = PDFToPS.convert(input: Sample.pdf(pages), inputPath: "socPrint/source.pdf", outputPath: "socPrint/Term project.ps")
        #expect(result.printed == ToolOutput())
        let postScript = try #require(result.output)
        #expect(PostScriptReader.pageCount(postScript) == pages)
        let text = Sample.text(postScript)
        #expect(
            text.hasPrefix(
                "%!PS-Adobe-3.0\n%Produced by poppler pdftops version: 22.12.0 (http://poppler.freedesktop.org)\n"
                    + "%%Creator: Workbench PrintDocuments\n%%LanguageLevel: 2\n"), "pdftops copies the PDF's /Creator")
        #expect(text.contains("%%Pages: \(pages)\n%%EndComments\n"))
        #expect(text.components(separatedBy: "\n%%Page: ").count == pages + 1)
        #expect(result.outputPath == "socPrint/Term project.ps")
    }

    @Test func everyConverterChainEndsWithTheRightPageCount() throws {
        for format in OfficeFormat.allCases {
            let pdf = try #require(Sample.converted(format, pages: 12).output)
            let trimmed = try #require(Ghostscript.pdfwrite(input: pdf, inputPath: "s.pdf", outputPath: "t.pdf", firstPage: 2, lastPage: 6).output)
            let nUp = try #require(NUpPDF.convert(input: trimmed, inputPath: "t.pdf", outputPath: "f.pdf", perSheet: 2).output)
            let postScript = try #require(PDFToPS.convert(input: nUp, inputPath: "f.pdf", outputPath: "f.ps").output)
            #expect(PostScriptReader.pageCount(postScript) == 3, "\(format): 5 pages 2-up")
            let text = Sample.text(postScript)
            #expect(text.contains("(Page 6 of 12) Tj") || text.contains("(Slide 6 of 12) Tj"), "\(format): page identities survive")
        }
    }

    @Test func pdftopsMessagesAreTheRealOnes() {
        #expect(
            PDFToPS.convert(input: nil, inputPath: "missing.pdf", outputPath: "x.ps").printed
                == ToolOutput(stderr: "I/O Error: Couldn't open file 'missing.pdf': No such file or directory.\n", exitStatus: 1))
        #expect(
            PDFToPS.convert(input: [], inputPath: "e.pdf", outputPath: "x.ps").printed
                == ToolOutput(stderr: "Syntax Error: Document stream is empty\n", exitStatus: 1))
        #expect(
            PDFToPS.convert(input: Array("hello\n".utf8), inputPath: "h.pdf", outputPath: "x.ps").printed
                == ToolOutput(
                    stderr: "Syntax Warning: May not be a PDF file (continuing anyway)\nSyntax Error: Couldn't find trailer dictionary\n"
                        + "Syntax Error: Couldn't find trailer dictionary\nSyntax Error: Couldn't read xref table\n", exitStatus: 1))
        let claim = Sample.text(Sample.pdf(1)).replacingOccurrences(of: "/Count 1", with: "/Count 99999999")
        #expect(
            PDFToPS.convert(input: Array(claim.utf8), inputPath: "c.pdf", outputPath: "x.ps").printed
                == ToolOutput(
                    stderr: "Syntax Error: Page count (99999999) larger than number of objects (7)\n"
                        + "Command Line Error: Wrong page range given: the first page (1) can not be after the last page (0).\n", exitStatus: 99))
        #expect(
            PDFToPS.cannotOpenOutput("/nonexistent/x.ps")
                == ToolOutput(stderr: "I/O Error: Couldn't open PostScript file '/nonexistent/x.ps'\n", exitStatus: 2))
        #expect(PDFToPS.convert(input: Array("hello\n".utf8), inputPath: "h.pdf", outputPath: "x.ps").output == nil)
    }

    @Test func landscapePagesKeepTheirSizeAndMediaName() throws {
        let postScript = Sample.text(PDFToPS.convert(input: Sample.pdf(2, landscape: true), inputPath: "l.pdf", outputPath: "l.ps").output)
        #expect(postScript.contains("%%DocumentMedia: 297x209mm 842 595 0 () ()\n%%BoundingBox: 0 0 842 595\n"))
        #expect(postScript.contains("%%PageMedia: 297x209mm\n%%PageBoundingBox: 0 0 842 595\n%%PageOrientation: Portrait\n"))
    }

    @Test func fiftyPagesConvertQuickly() throws {
        // The budget is 20 ms in a release build; a debug build is allowed ten times that.
        let docx = OfficeDocument.generate(.docx, pages: 50, title: "Fifty")
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            _ = DocsToPDFConverter.convert(input: docx, inputPath: "f.docx", outputPath: "f.pdf")
        }
        #expect(elapsed < .milliseconds(200), "took \(elapsed)")
    }
}
