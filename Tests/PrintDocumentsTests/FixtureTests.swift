import Foundation
import PrintDocuments
import Testing

/// `Fixtures/documents` holds sample files made by this module's generators; this test is the program that made
/// them. Run with `WORKBENCH_WRITE_DOCUMENT_FIXTURES=1` to write them again (after a deliberate change to a
/// generator); otherwise it checks that the generators still make exactly those bytes.
@Suite struct FixtureTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/documents")

    static func fixtures() -> [(name: String, bytes: [UInt8])] {
        let handout = PDFWriter.document(title: "Handout", pages: (1...8).map { PDFPage(lines: ["Handout", "Page \($0) of 8"]) })
        return [
            ("slides-12.pptx", OfficeDocument.generate(.pptx, pages: 12, title: "Term project overview")),
            ("report-5.docx", OfficeDocument.generate(.docx, pages: 5, title: "Lab report")),
            ("notes-3.odt", OfficeDocument.generate(.odt, pages: 3, title: "Lecture notes")),
            ("memo-2.doc", OfficeDocument.generate(.doc, pages: 2, title: "Memo")),
            ("deck-2.ppt", OfficeDocument.generate(.ppt, pages: 2, title: "Deck")),
            ("handout-8.pdf", handout),
            ("handout-8.ps", PDFToPS.convert(input: handout, inputPath: "handout-8.pdf", outputPath: "handout-8.ps").output ?? []),
        ]
    }

    @Test func fixturesAreWhatTheGeneratorsMake() throws {
        let write = ProcessInfo.processInfo.environment["WORKBENCH_WRITE_DOCUMENT_FIXTURES"] == "1"
        for fixture in Self.fixtures() {
            let url = Self.directory.appendingPathComponent(fixture.name)
            if write {
                try Data(fixture.bytes).write(to: url)
                continue
            }
            let stored = try #require(FileManager.default.contents(atPath: url.path), "\(fixture.name) is missing from Fixtures/documents")
            let same = [UInt8](stored) == fixture.bytes
            #expect(same, "\(fixture.name) differs from what the generator makes now (\(stored.count) bytes stored, \(fixture.bytes.count) made)")
        }
    }

    @Test func fixturesHaveThePagesTheirNamesSay() throws {
        let counts: [(String, OfficeFormat?, Int)] = [
            ("slides-12.pptx", .pptx, 12), ("report-5.docx", .docx, 5), ("notes-3.odt", .odt, 3),
            ("memo-2.doc", .doc, 2), ("deck-2.ppt", .ppt, 2), ("handout-8.pdf", nil, 8),
        ]
        for (name, format, pages) in counts {
            let bytes = [UInt8](try #require(FileManager.default.contents(atPath: Self.directory.appendingPathComponent(name).path)))
            let count = try format.map { try OfficeDocument.pageCount(bytes, format: $0) } ?? PDFReader.pageCount(bytes)
            #expect(count == pages, "\(name)")
        }
        let postScript = [UInt8](try #require(FileManager.default.contents(atPath: Self.directory.appendingPathComponent("handout-8.ps").path)))
        #expect(PostScriptReader.pageCount(postScript) == 8)
    }
}
