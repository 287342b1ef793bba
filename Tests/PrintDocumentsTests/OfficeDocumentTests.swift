import Foundation
import PrintDocuments
import Testing

@Suite struct OfficeDocumentTests {
    @Test(arguments: OfficeFormat.allCases)
    func generatedDocumentsReportThePagesTheyWereMadeWith(format: OfficeFormat) throws {
        for pages in [1, 2, 12] {
            let document = OfficeDocument.generate(format, pages: pages, title: "Term project")
            #expect(try OfficeDocument.pageCount(document, format: format) == pages, "\(format) with \(pages) pages")
        }
    }

    @Test(arguments: OfficeFormat.allCases)
    func generationIsDeterministic(format: OfficeFormat) {
        #expect(OfficeDocument.generate(format, pages: 3, title: "Same") == OfficeDocument.generate(format, pages: 3, title: "Same"))
    }

    @Test func zipFormatsCarryTheMetadataRealProducersWrite() throws {
        let docx = try ZIPReader(OfficeDocument.generate(.docx, pages: 5, title: "Report"))
        #expect(Sample.text(try docx.contents(of: "docProps/app.xml", limit: 1 << 20)).contains("<Pages>5</Pages>"))
        #expect(Sample.text(try docx.contents(of: "word/document.xml", limit: 1 << 20)).components(separatedBy: "w:type=\"page\"").count == 5)
        let pptx = try ZIPReader(OfficeDocument.generate(.pptx, pages: 4, title: "Deck"))
        #expect(Sample.text(try pptx.contents(of: "docProps/app.xml", limit: 1 << 20)).contains("<Slides>4</Slides>"))
        #expect(pptx.entryNames.filter { $0.hasPrefix("ppt/slides/slide") && $0.hasSuffix(".xml") }.count == 4)
        let odt = try ZIPReader(OfficeDocument.generate(.odt, pages: 3, title: "Notes"))
        #expect(odt.entryNames.first == "mimetype", "ODF wants mimetype first")
        #expect(Sample.text(try odt.contents(of: "meta.xml", limit: 1 << 20)).contains("meta:page-count=\"3\""))
    }

    @Test func odtMimetypeIsStoredSoItCanBeReadAtAFixedOffset() {
        let odt = OfficeDocument.generate(.odt, pages: 1, title: "Notes")
        #expect(Sample.text(Array(odt[30..<38])) == "mimetype")
        #expect(Sample.text(Array(odt[38..<77])) == "application/vnd.oasis.opendocument.text")
    }

    @Test func docAndPptFollowTheDocumentedSizeRule() throws {
        for pages in [1, 2, 12] {
            let doc = OfficeDocument.generate(.doc, pages: pages, title: "Memo")
            #expect(doc.count > (pages - 1) * OfficeDocument.docBytesPerPage && doc.count <= pages * OfficeDocument.docBytesPerPage)
            let ppt = OfficeDocument.generate(.ppt, pages: pages, title: "Deck")
            #expect(ppt.count > (pages - 1) * OfficeDocument.pptBytesPerSlide && ppt.count <= pages * OfficeDocument.pptBytesPerSlide)
        }
        // A compound file one byte into its 13th unit counts 13.
        var doc = OfficeDocument.generate(.doc, pages: 12, title: "Memo")
        doc += [UInt8](repeating: 0, count: 12 * OfficeDocument.docBytesPerPage - doc.count + 1)
        #expect(try OfficeDocument.pageCount(doc, format: .doc) == 13)
    }

    @Test func aPresentationRenamedToDocIsRefusedByItsMissingStream() {
        let ppt = OfficeDocument.generate(.ppt, pages: 2, title: "Deck")
        #expect {
            try OfficeDocument.pageCount(ppt, format: .doc)
        } throws: { error in
            (error as? DocumentError)?.message.contains("no WordDocument stream") == true
        }
    }

    @Test func aDocxWithoutAppPropertiesIsCountedFromItsPageBreaks() throws {
        let original = try ZIPReader(OfficeDocument.generate(.docx, pages: 7, title: "Report"))
        var stripped = ZIPWriter()
        for name in original.entryNames where name != "docProps/app.xml" {
            stripped.add(name, try #require(try original.contents(of: name, limit: 1 << 20)), compress: true)
        }
        #expect(try OfficeDocument.pageCount(stripped.finish(), format: .docx) == 7)
    }

    @Test func pageCountsAreClampedToWhatCanBeGenerated() throws {
        #expect(try OfficeDocument.pageCount(OfficeDocument.generate(.docx, pages: 0, title: "t"), format: .docx) == 1)
        #expect(OfficeDocument.maximumPages(.ppt) == 1_677)
        #expect(OfficeDocument.generate(.ppt, pages: 5_000, title: "t").count <= DocumentLimits.maximumDocumentBytes)
    }

    @Test func metadataClaimingAbsurdPageCountsIsRefused() {
        var zip = ZIPWriter()
        zip.add("[Content_Types].xml", Array("<Types/>".utf8), compress: false)
        zip.add("docProps/app.xml", Array("<Properties><Pages>99999999</Pages></Properties>".utf8), compress: true)
        #expect {
            try OfficeDocument.pageCount(zip.finish(), format: .docx)
        } throws: { error in
            (error as? DocumentError)?.message == "the DOCX file claims 99999999 pages; expected 1…10000"
        }
        var words = ZIPWriter()
        words.add("[Content_Types].xml", Array("<Types/>".utf8), compress: false)
        words.add("docProps/app.xml", Array("<Properties><Pages>many</Pages></Properties>".utf8), compress: true)
        #expect(throws: DocumentError.self) { try OfficeDocument.pageCount(words.finish(), format: .docx) }
    }

    @Test(arguments: OfficeFormat.allCases)
    func garbageAndTruncatedFilesAreErrorsNotCrashes(format: OfficeFormat) {
        #expect(throws: DocumentError.self) { try OfficeDocument.pageCount(Array("hello, world".utf8), format: format) }
        #expect(throws: DocumentError.self) { try OfficeDocument.pageCount([], format: format) }
        let document = OfficeDocument.generate(format, pages: 3, title: "t")
        #expect(throws: DocumentError.self) { try OfficeDocument.pageCount(Array(document.prefix(document.count / 2)), format: format) }
    }
}
