import Foundation
import PrintDocuments
import Testing

@Suite struct PDFTests {
    @Test func writtenPDFsReadBackWithTheirPagesSizesAndTexts() throws {
        let pages = [PDFPage(lines: ["Café — “quoted” (and) \\ escaped"]), PDFPage(lines: []), PDFPage(lines: ["Three", "lines", "here"])]
        let pdf = PDFWriter.document(title: "Title ✓ non-Latin", pages: pages)
        #expect(pdf.starts(with: Array("%PDF-1.4\n".utf8)))
        #expect(try PDFReader.pageCount(pdf) == 3)
        #expect(PDFReader.pageLines(pdf) == pages.map(\.lines))
        #expect(PDFReader.pageSizes(pdf) == [.a4, .a4, .a4])
        #expect(PDFReader.pageSizes(PDFWriter.document(title: "L", pages: pages, landscape: true))?.first == .a4Landscape)
        #expect(pdf == PDFWriter.document(title: "Title ✓ non-Latin", pages: pages), "no dates, no IDs: same pages, same bytes")
    }

    @Test func textOutsideWinAnsiBecomesQuestionMarks() {
        let pdf = PDFWriter.document(title: "t", pages: [PDFPage(lines: ["日本 ok"])])
        #expect(PDFReader.pageLines(pdf) == [["?? ok"]])
    }

    @Test func otherPDFsHaveNoReadableLines() throws {
        let foreign = Array(
            Sample.text(Sample.pdf(2)).replacingOccurrences(of: "/Creator (Workbench PrintDocuments)", with: "/Creator (Microsoft Word)").utf8)
        #expect(try PDFReader.pageCount(foreign) == 2)
        #expect(PDFReader.pageLines(foreign) == nil)
    }

    @Test func aBrokenCrossReferenceIsRepairedByScanningTheObjects() throws {
        let pdf = Sample.text(Sample.pdf(5))
        // startxref pointing nowhere.
        let wrongOffset = pdf.replacingOccurrences(of: #"startxref\n\d+"#, with: "startxref\n7", options: .regularExpression)
        #expect(try PDFReader.pageCount(Array(wrongOffset.utf8)) == 5)
        #expect(PDFReader.pageLines(Array(wrongOffset.utf8))?.count == 5)
        // No cross-reference table, no trailer, no startxref at all: the catalog is found by its /Type.
        let xref = try #require(pdf.range(of: "xref\n0 "))
        let cut = String(pdf[..<xref.lowerBound])
        #expect(try PDFReader.pageCount(Array(cut.utf8)) == 5)
        #expect(PDFReader.pageLines(Array(cut.utf8)) == nil, "without a trailer there is no /Info to say it is ours")
    }

    @Test func aPageTreeWithoutCountIsCountedByItsKids() throws {
        let pdf = Sample.text(Sample.pdf(4)).replacingOccurrences(of: "/Count 4", with: "/Count (four)")
        #expect(try PDFReader.pageCount(Array(pdf.utf8)) == 4)
    }

    @Test func notPDFsAndPDFsWithoutPageTreesSayWhich() {
        #expect {
            try PDFReader.pageCount(Array("PK\u{3}\u{4} a zip".utf8))
        } throws: { error in
            (error as? DocumentError)?.message == "not a PDF: no %PDF- header in its first 1024 bytes (it starts with 'PK\\x03\\x04 a z')"
        }
        let noTree = "%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"
        #expect {
            try PDFReader.pageCount(Array(noTree.utf8))
        } throws: { error in
            (error as? DocumentError)?.message == "PDF without a page tree: the catalog has no /Pages dictionary"
        }
        #expect(throws: DocumentError.self) { try PDFReader.pageCount(Array("%PDF-1.4\n".utf8)) }
    }

    @Test func hugePageCountsAreRefusedNotBelieved() {
        let claim = Sample.text(Sample.pdf(1)).replacingOccurrences(of: "/Count 1", with: "/Count 99999999")
        #expect {
            try PDFReader.pageCount(Array(claim.utf8))
        } throws: { error in
            (error as? DocumentError)?.message == "PDF claims 99999999 pages; the limit is 10000"
        }
    }

    @Test func hostilePDFsNeverCrash() throws {
        let nested = "%PDF-1.4\n1 0 obj\n" + String(repeating: "[", count: 100_000) + "\nendobj\ntrailer << /Root 1 0 R >>\n"
        let loop =
            "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [2 0 R 3 0 R] >> endobj\n"
            + "3 0 obj << /Type /Pages /Kids [2 0 R] >> endobj\ntrailer << /Root 1 0 R >>\n"
        let selfReference = "%PDF-1.4\n1 0 obj 1 0 R endobj\ntrailer << /Root 1 0 R >>\n"
        let badStream = "%PDF-1.4\n1 0 obj << /Length 99999999999999999999 /Filter /FlateDecode >> stream\nxyz"
        let xrefClaims = "%PDF-1.4\nxref\n0 999999999\ntrailer << /Size 999999999 >>\nstartxref\n9\n%%EOF"
        for text in [nested, loop, selfReference, badStream, xrefClaims, "%PDF-", "%PDF-1.7\n(((((((", "%PDF-1.7 <</A <</B <</C"] {
            let bytes = Array(text.utf8)
            _ = try? PDFReader.pageCount(bytes)
            _ = PDFReader.pageLines(bytes)
            _ = PDFReader.pageSizes(bytes)
        }
        #expect(try PDFReader.pageCount(Array(loop.utf8)) == 0, "a /Kids loop ends; no page leaves")
        let pdf = Sample.pdf(3)
        for length in stride(from: 0, to: pdf.count, by: 97) {
            _ = try? PDFReader.pageCount(Array(pdf.prefix(length)))
            _ = Ghostscript.pdfwrite(input: Array(pdf.prefix(length)), inputPath: "t.pdf", outputPath: "o.pdf", firstPage: 1, lastPage: 2)
            _ = PDFToPS.convert(input: Array(pdf.prefix(length)), inputPath: "t.pdf", outputPath: "o.ps")
        }
    }

    @Test func postScriptCarriesDSCComments() throws {
        let postScript = PostScriptWriter.document(title: "Notes", creator: "Workbench", pages: [PDFPage(lines: ["a"]), PDFPage(lines: ["b"])])
        let text = Sample.text(postScript)
        #expect(text.hasPrefix("%!PS-Adobe-3.0\n%%Title: Notes\n%%Creator: Workbench\n"))
        for comment in ["%%BoundingBox: 0 0 595 842\n", "%%Pages: 2\n", "%%EndComments\n", "%%Page: 1 1\n", "%%Page: 2 2\n", "%%Trailer\n"] {
            #expect(text.contains(comment), "\(comment)")
        }
        #expect(text.hasSuffix("%%EOF\n"))
        #expect(PostScriptReader.isPostScript(postScript))
        #expect(PostScriptReader.pageCount(postScript) == 2)
        #expect(
            Sample.text(PostScriptWriter.document(title: "L", creator: "W", pages: [PDFPage(lines: [])], landscape: true))
                .contains("%%BoundingBox: 0 0 842 595\n"))
    }

    @Test func postScriptPageCountsFollowTheConventions() {
        let atEnd = "%!PS-Adobe-3.0\n%%Pages: (atend)\n%%EndComments\n%%Page: 1 1\nshowpage\n%%Trailer\n%%Pages: 7\n%%EOF\n"
        #expect(PostScriptReader.pageCount(Array(atEnd.utf8)) == 7)
        let counted = "%!PS\n%%Page: 1 1\n%%BeginDocument: inner.eps\n%%Page: 1 1\n%%EndDocument\n%%Page: 2 2\n"
        #expect(PostScriptReader.pageCount(Array(counted.utf8)) == 2, "embedded documents' pages are not the job's")
        let absurd = "%!PS-Adobe-3.0\n%%Pages: 99999999\n%%EndComments\n%%Page: 1 1\n"
        #expect(PostScriptReader.pageCount(Array(absurd.utf8)) == 1)
        #expect(PostScriptReader.pageCount(Array("%PDF-1.4".utf8)) == nil)
        #expect(!PostScriptReader.isPostScript([]))
    }
}

@Suite struct LimitTests {
    @Test func documentsBeyondSixtyFourMebibytesAreRefusedClearly() {
        let huge = Array("%PDF-1.4\n".utf8) + [UInt8](repeating: 0x20, count: DocumentLimits.maximumDocumentBytes)
        #expect {
            try PDFReader.pageCount(huge)
        } throws: { error in
            (error as? DocumentError)?.message == "PDF of 67108873 bytes; the limit is 67108864"
        }
        let refusal = ToolOutput(stderr: "workbench: refusing a document of 67108873 bytes; the limit is 67108864\n", exitStatus: 1)
        #expect(Ghostscript.pdfwrite(input: huge, inputPath: "h.pdf", outputPath: "o.pdf", firstPage: 1, lastPage: 1).printed == refusal)
        #expect(PDFToPS.convert(input: huge, inputPath: "h.pdf", outputPath: "o.ps").printed == refusal)
        #expect(NUpPDF.convert(input: huge, inputPath: "h.pdf", outputPath: "o.pdf", perSheet: 2).printed == refusal)
    }

    @Test func moreThanTenThousandPagesAreRefusedNotProcessed() {
        let pdf = PDFWriter.document(title: "Long", pages: Array(repeating: PDFPage(lines: []), count: 10_001))
        #expect {
            try PDFReader.pageCount(pdf)
        } throws: { error in
            (error as? DocumentError)?.message == "PDF claims 10001 pages; the limit is 10000"
        }
        let refusal = ToolOutput(stderr: "workbench: refusing a document of 10001 pages; the limit is 10000\n", exitStatus: 1)
        #expect(Ghostscript.pdfwrite(input: pdf, inputPath: "l.pdf", outputPath: "o.pdf", firstPage: 1, lastPage: 2).printed == refusal)
        #expect(PDFToPS.convert(input: pdf, inputPath: "l.pdf", outputPath: "o.ps").printed == refusal)
        #expect(MultivalentImpose.impose(input: pdf, inputPath: "l.pdf", perSheet: 6, paper: "a4").printed == refusal)
    }

    @Test func aContentStreamBombSharedByEveryPageCostsOneBudget() {
        // 16 MiB of spaces deflated to a few kilobytes (raw deflate, taken from a ZIP entry), as the content of 2,000
        // pages. Decoded once per page it would be 32 GB; the file's decode budget stops it at 64 MiB.
        var zip = ZIPWriter()
        zip.add("b", [UInt8](repeating: 0x20, count: 16 << 20), compress: true)
        let archive = zip.finish()
        let compressedSize = Int(archive[18]) | Int(archive[19]) << 8 | Int(archive[20]) << 16
        let bomb = Array(archive[31..<(31 + compressedSize)])
        var pdf = Array("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n".utf8)
        let pages = 2_000
        pdf += Array("2 0 obj << /Type /Pages /Count \(pages) /Kids [\((0..<pages).map { "\($0 + 5) 0 R" }.joined(separator: " "))] >> endobj\n".utf8)
        pdf += Array("3 0 obj << /Length \(bomb.count) /Filter /FlateDecode >>\nstream\n".utf8) + bomb + Array("\nendstream endobj\n".utf8)
        pdf += Array("4 0 obj << /Creator (Workbench PrintDocuments) >> endobj\n".utf8)
        for page in 0..<pages { pdf += Array("\(page + 5) 0 obj << /Type /Page /Parent 2 0 R /Contents 3 0 R >> endobj\n".utf8) }
        pdf += Array("trailer << /Root 1 0 R /Info 4 0 R >>\n".utf8)
        // This thread's CPU time, not the wall clock's: the readers run here, and a loaded machine (CI runs the
        // suites in parallel) stretches wall time, not work. Decoding the bomb once per page would take minutes.
        let before = Self.threadCPUTime()
        let counted = (try? PDFReader.pageCount(pdf)) ?? -1
        let lined = PDFReader.pageLines(pdf)?.count ?? -1
        let converted = PDFToPS.convert(input: pdf, inputPath: "b.pdf", outputPath: "b.ps").pages
        let spent = Self.threadCPUTime() - before
        #expect(counted == pages && lined == pages && converted == pages)
        #expect(spent < .seconds(20), "took \(spent) of CPU time")
    }

    static func threadCPUTime() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }
}
