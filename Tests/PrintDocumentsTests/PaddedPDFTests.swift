import Foundation
import PrintDocuments
import Testing

/// Generated documents of an exact size are real PDFs: the size is exact, every cross-reference entry and startxref
/// point at what they name, and the pages are counted (qpdf and pdfinfo check them too, in RealToolsTests).
@Suite struct PaddedPDFTests {
    /// The offsets of the table and of each object, checked against the bytes; the page count read back.
    static func checkStructure(_ pdf: [UInt8], pages: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = String(decoding: pdf, as: UTF8.self)
        let tail = text.suffix(64)
        let startxref = try #require(
            tail.components(separatedBy: "startxref\n").last?.split(separator: "\n").first.flatMap { Int($0) },
            sourceLocation: sourceLocation)
        #expect(pdf[startxref...].starts(with: Array("xref\n".utf8)), "startxref \(startxref)", sourceLocation: sourceLocation)
        let table = String(decoding: pdf[startxref...], as: UTF8.self).split(separator: "\n")
        let count = try #require(Int(table[1].split(separator: " ")[1]), sourceLocation: sourceLocation)
        #expect(count == 5 + 2 * pages, sourceLocation: sourceLocation)
        for number in 1..<count {
            let offset = try #require(Int(table[2 + number].prefix(10)), sourceLocation: sourceLocation)
            #expect(pdf[offset...].starts(with: Array("\(number) 0 obj\n".utf8)), "object \(number) at \(offset)", sourceLocation: sourceLocation)
        }
        #expect(try PDFReader.pageCount(pdf) == pages, sourceLocation: sourceLocation)
    }

    @Test func everySizeIsExactAndEveryOffsetRight() throws {
        let smallest = Int(PaddedPDF.minimumBytes())
        // From the smallest document up, across the sizes where startxref gains a digit (1,000 and 10,000 bytes).
        for size in Array(smallest...smallest + 1_200) + Array(stride(from: 9_000, through: 11_000, by: 1)) {
            let pdf = try PaddedPDF(byteCount: Int64(size))
            let bytes = pdf.bytes
            #expect(bytes.count == size)
            #expect(pdf.pages == 1)
            if size % 97 == 0 || size == smallest || (9_990...10_010).contains(size) { try Self.checkStructure(bytes, pages: 1) }
        }
    }

    @Test func onePagePerHundredThousandBytesUnlessChosen() throws {
        for (size, pages) in [(100_000, 1), (100_001, 2), (250_000, 3), (1_000_000, 10)] {
            let pdf = try PaddedPDF(byteCount: Int64(size))
            #expect(pdf.pages == pages)
            try Self.checkStructure(pdf.bytes, pages: pages)
        }
        let chosen = try PaddedPDF(byteCount: 50_000, pages: 7)
        try Self.checkStructure(chosen.bytes, pages: 7)
        #expect(try PaddedPDF(byteCount: 1 << 40).pages == DocumentLimits.maximumPages, "at most the readers' page limit")
    }

    @Test func piecesRespectTheirMaximumAndAddUpToTheDocument() throws {
        let pdf = try PaddedPDF(byteCount: 1_000_003)
        for maximum in [64, 1_000, 65_536] {
            var pieces = pdf.makePieces(maximum: maximum)
            var joined: [UInt8] = []
            while let piece = pieces.next() {
                #expect(!piece.isEmpty && piece.count <= maximum)
                joined += piece
            }
            #expect(joined == pdf.bytes)
        }
        #expect(pdf.bytes == (try PaddedPDF(byteCount: 1_000_003)).bytes, "the same size gives the same bytes")
    }

    @Test func tooSmallOrTooManyPagesIsRefusedWithTheSmallestSize() throws {
        let smallest = PaddedPDF.minimumBytes()
        #expect(throws: DocumentError("a generated PDF of 1 page takes at least \(smallest) bytes, not 10")) { try PaddedPDF(byteCount: 10) }
        #expect(throws: DocumentError.self) { try PaddedPDF(byteCount: 1_000_000, pages: 0) }
        #expect(throws: DocumentError.self) { try PaddedPDF(byteCount: 1_000_000, pages: DocumentLimits.maximumPages + 1) }
        #expect(PaddedPDF.minimumBytes(pages: 2) > smallest)
    }
}
