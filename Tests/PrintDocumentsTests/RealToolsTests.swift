import Foundation
import PrintDocuments
import Testing

/// What real readers make of what this module writes: `qpdf --check` and poppler's `pdfinfo` and `pdftops` (Debian
/// packages qpdf and poppler-utils, which the project's setup installs). A missing tool fails the test, saying so.
@Suite struct RealToolsTests {
    /// Every kind of PDF the emulated tools write, with the page count and size each should have.
    static func outputs() throws -> [(name: String, pdf: [UInt8], pages: Int, size: String)] {
        let handout = Sample.pdf(8)
        return [
            ("handout.pdf", handout, 8, "595 x 842 pts (A4)"),
            ("landscape.pdf", Sample.pdf(3, landscape: true), 3, "842 x 595 pts (A4)"),
            ("docx.pdf", try #require(Sample.converted(.docx, pages: 5).output), 5, "595 x 842 pts (A4)"),
            ("pptx.pdf", try #require(Sample.converted(.pptx, pages: 7).output), 7, "1920 x 1080 pts"),
            ("odt.pdf", try #require(Sample.converted(.odt, pages: 2).output), 2, "595 x 842 pts (A4)"),
            ("doc.pdf", try #require(Sample.converted(.doc, pages: 3).output), 3, "595 x 842 pts (A4)"),
            ("ppt.pdf", try #require(Sample.converted(.ppt, pages: 2).output), 2, "1440 x 1080 pts"),
            (
                "trimmed.pdf",
                try #require(Ghostscript.pdfwrite(input: handout, inputPath: "h.pdf", outputPath: "t.pdf", firstPage: 3, lastPage: 5).output), 3,
                "595 x 842 pts (A4)"
            ),
            (
                "blank.pdf",
                try #require(Ghostscript.pdfwrite(input: handout, inputPath: "h.pdf", outputPath: "t.pdf", firstPage: 9, lastPage: 9).output), 1,
                "595 x 842 pts (A4)"
            ),
            (
                "2up.pdf", try #require(NUpPDF.convert(input: handout, inputPath: "h.pdf", outputPath: "n.pdf", perSheet: 2).output), 4,
                "842 x 595 pts (A4)"
            ),
            (
                "8up.pdf", try #require(NUpPDF.convert(input: handout, inputPath: "h.pdf", outputPath: "n.pdf", perSheet: 8).output), 1,
                "842 x 595 pts (A4)"
            ),
            (
                "6up.pdf", try #require(MultivalentImpose.impose(input: handout, inputPath: "h.pdf", perSheet: 6, paper: "a4").output), 2,
                "842 x 595 pts (A4)"
            ),
            ("padded.pdf", try PaddedPDF(byteCount: 250_000).bytes, 3, "595 x 842 pts (A4)"),
            ("padded-small.pdf", try PaddedPDF(byteCount: PaddedPDF.minimumBytes() + 1).bytes, 1, "595 x 842 pts (A4)"),
        ]
    }

    static func tool(_ name: String, package: String) -> String? {
        guard let path = RealTool.find(name) else {
            Issue.record("\(name) is not installed: the project's setup installs the Debian package \(package) (apt-get install -y \(package))")
            return nil
        }
        return path
    }

    @Test func qpdfAndPdfinfoAcceptEveryOutputWithOurPageCount() throws {
        guard let qpdf = Self.tool("qpdf", package: "qpdf"), let pdfinfo = Self.tool("pdfinfo", package: "poppler-utils") else { return }
        let directory = try RealTool.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for output in try Self.outputs() {
            let path = directory.appendingPathComponent(output.name).path
            try Data(output.pdf).write(to: URL(fileURLWithPath: path))
            let check = try RealTool.run(qpdf, ["--check", path])
            #expect(check.status == 0, "qpdf --check \(output.name): \(check.stdout)\(check.stderr)")
            #expect(check.stdout.contains("No syntax or stream encoding errors found"), "\(output.name): \(check.stdout)")
            let info = try RealTool.run(pdfinfo, [path])
            #expect(info.status == 0 && info.stderr.isEmpty, "pdfinfo \(output.name): \(info.stderr)")
            #expect(info.stdout.contains("\nPages:           \(output.pages)\n"), "\(output.name): \(info.stdout)")
            #expect(try PDFReader.pageCount(output.pdf) == output.pages)
            #expect(info.stdout.contains("Page size:       \(output.size)"), "\(output.name): \(info.stdout)")
        }
    }

    @Test func realPdftopsAgreesWithOursOnThePages() throws {
        guard let pdftops = Self.tool("pdftops", package: "poppler-utils") else { return }
        let directory = try RealTool.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for output in try Self.outputs() {
            let input = directory.appendingPathComponent(output.name).path
            let result = input + ".ps"
            try Data(output.pdf).write(to: URL(fileURLWithPath: input))
            let run = try RealTool.run(pdftops, [input, result])
            #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty, "pdftops \(output.name): \(run.stderr)")
            let real = [UInt8](try Data(contentsOf: URL(fileURLWithPath: result)))
            let ours = try #require(PDFToPS.convert(input: output.pdf, inputPath: input, outputPath: result).output)
            #expect(PostScriptReader.pageCount(real) == output.pages, "\(output.name)")
            #expect(PostScriptReader.pageCount(ours) == output.pages, "\(output.name)")
            // The header comments our pdftops writes are the real one's, line for line.
            let header = { (bytes: [UInt8]) in
                Sample.text(bytes).components(separatedBy: "%%EndComments")[0].replacingOccurrences(of: "%%+ ", with: "")
            }
            #expect(header(ours).components(separatedBy: "\n").sorted() == header(real).components(separatedBy: "\n").sorted(), "\(output.name)")
        }
    }

    @Test func pdfsRewrittenByQpdfWithObjectStreamsStillCount() throws {
        guard let qpdf = Self.tool("qpdf", package: "qpdf") else { return }
        let directory = try RealTool.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = directory.appendingPathComponent("in.pdf").path
        try Data(Sample.pdf(9)).write(to: URL(fileURLWithPath: original))
        for (name, options) in [
            ("objstm", ["--object-streams=generate", "--compress-streams=y"]), ("linear", ["--linearize"]),
            ("qdf", ["--qdf"]),
        ] {
            let rewritten = directory.appendingPathComponent("\(name).pdf").path
            let run = try RealTool.run(qpdf, options + [original, rewritten])
            #expect(run.status == 0, "qpdf \(options): \(run.stderr)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: rewritten)))
            #expect(try PDFReader.pageCount(bytes) == 9, "\(name)")
            #expect(PDFReader.pageLines(bytes)?[8] == ["Handout", "Page 9 of 9"], "\(name): texts read through object streams")
        }
    }
}
