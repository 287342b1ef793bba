import Foundation
import PrintDocuments
import TestSupport
import Testing

/// `PDFReader.pageCount(head:end:fileSize:)`: a page count from a file's first and last bytes only, which must be
/// the whole file's count whenever it gives one, and must say when it cannot.
@Suite struct PDFEndsTests {
    /// The windowed count of `bytes` keeping its last `endLength` bytes.
    static func windowed(_ bytes: [UInt8], end endLength: Int) -> Int? {
        PDFReader.pageCount(head: Array(bytes.prefix(PDFReader.headBytes)), end: Array(bytes.suffix(endLength)), fileSize: bytes.count)
    }

    /// Every end length worth trying on `bytes`: the smallest allowed, a few in between, the whole file.
    static func endLengths(_ bytes: [UInt8]) -> [Int] {
        let lengths = [PDFReader.minimumEndBytes, PDFReader.minimumEndBytes + 1, 8192, 65_536, bytes.count / 2, bytes.count - 1, bytes.count]
        return Set(lengths.filter { $0 >= PDFReader.minimumEndBytes && $0 <= bytes.count }).sorted()
    }

    /// Asserts that every windowed count of `bytes` that decides is the full reader's count; returns how many decided.
    @discardableResult
    static func agrees(_ bytes: [UInt8], _ what: String) -> Int {
        let full = try? PDFReader.pageCount(bytes)
        var decided = 0
        for length in endLengths(bytes) {
            guard let count = windowed(bytes, end: length) else { continue }
            decided += 1
            #expect(
                count == full,
                "\(what), last \(length) of \(bytes.count) bytes: \(count) pages, the full reader says \(full.map(String.init) ?? "unreadable")")
        }
        return decided
    }

    /// A PDF with a cross-reference stream (PDF 1.5, uncompressed), its page objects optionally in an object stream,
    /// with `padding` comment bytes after the header (where PaddedPDF puts them) or before the objects' end.
    static func crossReferenceStreamPDF(pages: Int, objectStream: Bool, padding: Int, paddingFirst: Bool = true) -> [UInt8] {
        var out = Array("%PDF-1.5\n".utf8)
        let pad = Array(String(repeating: "% padding padding padding padding padding padding padding padding\n", count: padding / 68 + 1).utf8)
        if paddingFirst { out += pad }
        var offsets: [Int: Int] = [:]
        var inStream: [Int: (stream: Int, index: Int)] = [:]
        func add(_ number: Int, _ body: String) {
            offsets[number] = out.count
            out += Array("\(number) 0 obj\n\(body)\nendobj\n".utf8)
        }
        add(1, "<< /Type /Catalog /Pages 2 0 R >>")
        let kids = (0..<pages).map { "\($0 + 3) 0 R" }.joined(separator: " ")
        var members = ["<< /Type /Pages /Count \(pages) /Kids [\(kids)] /MediaBox [0 0 595 842] >>"]
        members += (0..<pages).map { _ in "<< /Type /Page /Parent 2 0 R >>" }
        let streamNumber = pages + 3
        if objectStream {
            var header = ""
            var body = ""
            for (index, member) in members.enumerated() {
                header += "\(index + 2) \(body.utf8.count) "
                body += member + "\n"
                inStream[index + 2] = (streamNumber, index)
            }
            let data = header + "\n" + body
            add(
                streamNumber,
                "<< /Type /ObjStm /N \(members.count) /First \(header.utf8.count + 1) /Length \(data.utf8.count) >>\nstream\n\(data)\nendstream")
        } else {
            for (index, member) in members.enumerated() { add(index + 2, member) }
        }
        if !paddingFirst { out += pad }
        let xrefNumber = streamNumber + 1
        let xrefOffset = out.count
        var rows: [UInt8] = []
        for number in 0...xrefNumber {
            if number == xrefNumber {
                rows += [1] + Self.bigEndian(xrefOffset, 4) + [0, 0]
            } else if let offset = offsets[number] {
                rows += [1] + Self.bigEndian(offset, 4) + [0, 0]
            } else if let (stream, index) = inStream[number] {
                rows += [2] + Self.bigEndian(stream, 4) + Self.bigEndian(index, 2)
            } else {
                rows += [0, 0, 0, 0, 0, 0xFF, 0xFF]
            }
        }
        out += Array("\(xrefNumber) 0 obj\n<< /Type /XRef /Size \(xrefNumber + 1) /W [1 4 2] /Root 1 0 R /Length \(rows.count) >>\nstream\n".utf8)
        out += rows
        out += Array("\nendstream\nendobj\nstartxref\n\(xrefOffset)\n%%EOF\n".utf8)
        return out
    }

    static func bigEndian(_ value: Int, _ width: Int) -> [UInt8] { (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

    /// PDFs every reader path meets: this module's, padded ones, cross-reference streams and object streams, the
    /// fixtures, and the broken ones the full reader repairs or refuses.
    static func corpus() throws -> [(String, [UInt8])] {
        var pdfs: [(String, [UInt8])] = []
        for pages in [1, 3, 40] { pdfs.append(("PDFWriter \(pages) pages", Sample.pdf(pages))) }
        for (bytes, pages) in [(20_000, 1), (100_000, 2), (300_000, 7)] {
            pdfs.append(("PaddedPDF \(bytes) bytes", try PaddedPDF(byteCount: Int64(bytes), pages: pages).bytes))
        }
        for objectStream in [false, true] {
            for paddingFirst in [true, false] {
                pdfs.append(
                    (
                        "xref stream, object stream \(objectStream), padding first \(paddingFirst)",
                        crossReferenceStreamPDF(pages: 3, objectStream: objectStream, padding: 30_000, paddingFirst: paddingFirst)
                    ))
            }
        }
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/documents")
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where name.hasSuffix(".pdf") {
            pdfs.append((name, [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))))
        }
        let padded = Sample.text(try PaddedPDF(byteCount: 50_000, pages: 4).bytes)
        let broken = [
            ("startxref pointing nowhere", padded.replacingOccurrences(of: #"startxref\n\d+"#, with: "startxref\n7", options: .regularExpression)),
            ("no /Count", padded.replacingOccurrences(of: "/Count 4", with: "/Count (four)")),
            ("a huge /Count", padded.replacingOccurrences(of: "/Count 4", with: "/Count 99999999")),
            ("no page tree", padded.replacingOccurrences(of: "/Pages", with: "/Pagez")),
            ("no startxref", padded.replacingOccurrences(of: "startxref", with: "startxrex")),
        ]
        for (what, text) in broken { pdfs.append((what, Array(text.utf8))) }
        return pdfs
    }

    @Test func aWindowedCountIsTheFullReadersWheneverItGivesOne() throws {
        for (what, bytes) in try Self.corpus() { Self.agrees(bytes, what) }
    }

    @Test func aPDFThatEndsWithItsStructureIsCountedFromItsEnd() throws {
        // What MiG's bench prints, and what most writers make: the objects and the cross-reference at the end.
        let bench = try PaddedPDF(byteCount: 1_000_000, pages: 1).bytes
        #expect(Self.windowed(bench, end: 128 << 10) == 1)
        #expect(Self.windowed(bench, end: PDFReader.minimumEndBytes) == 1)
        let padded = try PaddedPDF(byteCount: 300_000, pages: 7).bytes
        #expect(Self.windowed(padded, end: 65_536) == 7)
        let streams = Self.crossReferenceStreamPDF(pages: 3, objectStream: true, padding: 30_000)
        #expect(Self.windowed(streams, end: 8192) == 3, "an object stream in the end is read from the end")
    }

    @Test func aCountThatNeedsTheMiddleIsLeftToTheFullReader() throws {
        // Objects first, then padding: the cross-reference points before the end kept.
        let early = Self.crossReferenceStreamPDF(pages: 3, objectStream: false, padding: 30_000, paddingFirst: false)
        #expect(try PDFReader.pageCount(early) == 3)
        #expect(Self.windowed(early, end: 8192) == nil)
        #expect(Self.windowed(early, end: early.count) == 3, "the whole file is the full reader's")
        // The full reader repairs a broken cross-reference by scanning the whole file: the end alone cannot.
        let broken = Array(
            Sample.text(try PaddedPDF(byteCount: 50_000, pages: 4).bytes)
                .replacingOccurrences(of: #"startxref\n\d+"#, with: "startxref\n7", options: .regularExpression).utf8)
        #expect(try PDFReader.pageCount(broken) == 4)
        #expect(Self.windowed(broken, end: 8192) == nil)
        // Refusals are the full reader's to word: the windowed count gives none.
        let huge = Array(
            Sample.text(try PaddedPDF(byteCount: 50_000, pages: 4).bytes).replacingOccurrences(of: "/Count 4", with: "/Count 99999999").utf8)
        #expect(Self.windowed(huge, end: 8192) == nil)
        let notPDF = Array("PK\u{3}\u{4}".utf8) + [UInt8](repeating: 0x20, count: 10_000)
        #expect(Self.windowed(notPDF, end: 8192) == nil)
    }

    @Test func inconsistentArgumentsDecideNothing() throws {
        let pdf = try PaddedPDF(byteCount: 20_000, pages: 1).bytes
        let head = Array(pdf.prefix(PDFReader.headBytes))
        let end = Array(pdf.suffix(8192))
        #expect(PDFReader.pageCount(head: head, end: end, fileSize: pdf.count) == 1)
        #expect(PDFReader.pageCount(head: Array(head.prefix(10)), end: end, fileSize: pdf.count) == nil, "a short head")
        #expect(PDFReader.pageCount(head: head, end: Array(end.suffix(100)), fileSize: pdf.count) == nil, "an end below the minimum")
        #expect(PDFReader.pageCount(head: head, end: end, fileSize: 8000) == nil, "an end longer than the file")
    }

    @Test func truncatedAndMutatedPDFsNeverCrashAndNeverDisagree() throws {
        var random = SplitMix64(seed: 20_261_126)
        var decided = 0
        for (what, pdf) in try Self.corpus() {
            // Cut anywhere in the last few kilobytes (where the structure is), and at a few places before.
            let cuts = (0..<24).map { _ in pdf.count - 1 - random.below(min(pdf.count - 1, 6000)) } + [pdf.count / 3, 2000, 100]
            for cut in cuts where cut > 0 { decided += Self.agrees(Array(pdf.prefix(cut)), "\(what) cut at \(cut)") }
            // Bytes changed in the structure: offsets, numbers, keywords, delimiters.
            let alphabet = Array("0123456789 \n<>[]/()RobjendxrefstartxrefstreamKidsCountPages%".utf8) + [0x00, 0xFF]
            for _ in 0..<40 {
                var mutated = pdf
                for _ in 0...random.below(4) {
                    let at = pdf.count - 1 - random.below(min(pdf.count, 3000))
                    mutated[at] = alphabet[random.below(alphabet.count)]
                }
                decided += Self.agrees(mutated, "\(what) mutated")
            }
        }
        #expect(decided > 1000, "the mutations mostly keep a readable end: only \(decided) windowed counts decided")
    }
}
