import Foundation
import IPP
import Kernel
import NIOCore
import PrintDocuments
import TestSupport
import Testing

@testable import MiGServer

/// Pages are pages: counted from the document, whatever its size.
@Suite struct DocumentPagesTests {
    /// Streams `bytes` through a page counter in chunks of `chunk`, as the HTTP layer does.
    static func count(_ bytes: [UInt8], format: String, chunk: Int = 1000) throws -> DocumentPages {
        let writer = PageCountingWriter(inner: DigestWriter(limit: 1 << 30, path: nil), format: format, readsSpoolFile: false)
        var offset = 0
        while offset < bytes.count {
            try writer.write(ByteBuffer(bytes: bytes[offset..<min(bytes.count, offset + chunk)]))
            offset += chunk
        }
        return try writer.finish().pages
    }

    /// Streams `bytes` through a page counter in front of a file spool, in chunks of `chunk`; `beforeFinish` runs
    /// once every byte is written, before the document is finished.
    static func countSpooled(
        _ bytes: [UInt8], format: String = "application/pdf", chunk: Int = 65_536, beforeFinish: (String) throws -> Void = { _ in }
    ) throws -> DocumentPages {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = try FileSpool(directory: directory, limit: 1 << 30)
        let writer = PageCountingWriter(inner: try spool.open(jobID: 1, document: 1), format: format, readsSpoolFile: true)
        var offset = 0
        while offset < bytes.count {
            try writer.write(ByteBuffer(bytes: bytes[offset..<min(bytes.count, offset + chunk)]))
            offset += chunk
        }
        try beforeFinish("\(directory)/job-1-1.doc")
        return try writer.finish().pages
    }

    @Test func aSpooledPDFThatEndsWithItsStructureIsCountedWithoutReadingTheFileBack() throws {
        let pdf = try PaddedPDF(byteCount: 1_000_000, pages: 3).bytes
        #expect(try Self.countSpooled(pdf) == .counted(3))
        // The file's header spoiled behind the counter's back: counted from the kept head and end all the same.
        let spoiled = { (path: String) in
            let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            try file.write(contentsOf: Data("NOPE!".utf8))
            try file.close()
        }
        #expect(try Self.countSpooled(pdf, beforeFinish: spoiled) == .counted(3))
        #expect(try Self.countSpooled(pdf, chunk: 200_000, beforeFinish: spoiled) == .counted(3), "chunks longer than the end kept")
        #expect(try Self.countSpooled(pdf, chunk: 777, beforeFinish: spoiled) == .counted(3), "chunks that do not divide it")
        let small = try PaddedPDF(byteCount: 300_000, pages: 2).bytes
        #expect(try Self.countSpooled(small, format: "application/octet-stream", chunk: 3, beforeFinish: spoiled) == .counted(2), "sniffed")
        // A PDF whose structure lies before its end is read back from the file, as before.
        let early = Array(
            (String(decoding: TestDocuments.pdf(pages: 2), as: UTF8.self) + String(repeating: "%\n", count: 200_000)).utf8)
        #expect(try Self.countSpooled(early) == .counted(2))
        guard case .unreadable("application/pdf", let why) = try Self.countSpooled(early, beforeFinish: spoiled) else {
            Issue.record("a PDF whose page tree was not in its end was not read back from the spool")
            return
        }
        #expect(why.hasPrefix("not a readable PDF: ") && why.contains("no %PDF- header"), "\(why)")
    }

    @Test func aSpooledPDFGetsTheFullReadersCountOrRefusal() throws {
        let padded = String(decoding: try PaddedPDF(byteCount: 400_000, pages: 5).bytes, as: UTF8.self)
        let documents = [
            Array(padded.utf8), TestDocuments.pdf(pages: 4),
            Array(padded.replacingOccurrences(of: "/Count 5", with: "/Count 99999999").utf8),
            Array(padded.replacingOccurrences(of: "/Pages", with: "/Pagez").utf8),
            Array(padded.replacingOccurrences(of: #"startxref\n\d+"#, with: "startxref\n7", options: .regularExpression).utf8),
            Array(padded.utf8.dropLast(40_000)), Array("%PDF-1.4\n".utf8), [],
        ]
        for (index, pdf) in documents.enumerated() {
            let full: DocumentPages
            do { full = .counted(try PDFReader.pageCount(pdf)) } catch {
                full = .unreadable(format: "application/pdf", why: "not a readable PDF: \(error)")
            }
            for chunk in [1000, 65_536, 200_000] {
                #expect(try Self.countSpooled(pdf, chunk: chunk) == full, "document \(index) in chunks of \(chunk)")
                // Sniffed: bytes that do not start as a PDF are not read as one, and refused as no format at all.
                let sniffed = try Self.countSpooled(pdf, format: "application/octet-stream", chunk: chunk)
                if pdf.starts(with: Array("%PDF-".utf8)) {
                    #expect(sniffed == full, "document \(index) sniffed")
                } else {
                    guard case .unreadable("application/octet-stream", _) = sniffed else {
                        Issue.record("document \(index), sniffed, was not refused: \(sniffed)")
                        continue
                    }
                }
            }
        }
    }

    @Test func eachFormatIsCountedFromItsContent() throws {
        let pdf = TestDocuments.pdf(pages: 3)
        #expect(try Self.count(pdf, format: "application/pdf") == .counted(3))
        #expect(try Self.count(pdf, format: "application/octet-stream") == .counted(3))
        let raster = TestDocuments.pwgRaster(pages: 2)
        #expect(try Self.count(raster, format: "image/pwg-raster") == .counted(2))
        #expect(try Self.count(raster, format: "image/pwg-raster", chunk: 1) == .counted(2))
        #expect(try Self.count(raster, format: "application/octet-stream", chunk: 7) == .counted(2))
        #expect(try Self.count(raster, format: "application/octet-stream", chunk: 1) == .counted(2))
        let urf = TestDocuments.appleRaster(pages: 3)
        #expect(try Self.count(urf, format: "image/urf") == .counted(3))
        #expect(try Self.count(urf, format: "image/urf", chunk: 1) == .counted(3))
        #expect(try Self.count(urf, format: "application/octet-stream", chunk: 5) == .counted(3))
        #expect(try Self.count([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], format: "image/jpeg") == .counted(1))
        let postscript = "%!PS-Adobe-3.0\n%%Pages: 4\n%%EndComments\nshowpage\n"
        #expect(try Self.count(Array(postscript.utf8), format: "application/postscript") == .counted(4))
    }

    @Test func aDocumentThatIsNotItsFormatSaysWhy() throws {
        guard case .unreadable("application/pdf", let pdf) = try Self.count(Array("%PDF-1.4\n% no page tree\n".utf8), format: "application/pdf")
        else {
            Issue.record("a PDF without a page tree was counted")
            return
        }
        #expect(pdf.hasPrefix("not a readable PDF"))
        #expect(
            try Self.count(Array("%!PS\nshowpage\n".utf8), format: "application/postscript")
                == .unreadable(
                    format: "application/postscript",
                    why: "PostScript without DSC page comments (%%Pages: or %%Page:): its pages cannot be counted"))
        #expect(
            try Self.count(Array("hello".utf8), format: "image/pwg-raster")
                == .unreadable(format: "image/pwg-raster", why: "not PWG raster: the sync word is not RaS2"))
        let cut = Array(TestDocuments.pwgRaster(pages: 1).dropLast(3))
        #expect(try Self.count(cut, format: "image/pwg-raster") == .unreadable(format: "image/pwg-raster", why: "PWG raster page 1 is cut off"))
        #expect(
            try Self.count(TestDocuments.pwgRaster(pages: 1), format: "image/urf")
                == .unreadable(format: "image/urf", why: "not Apple raster: the file does not start with UNIRAST"))
        #expect(
            try Self.count(Array(TestDocuments.appleRaster(pages: 2).dropLast(1)), format: "image/urf")
                == .unreadable(format: "image/urf", why: "Apple raster page 2 is cut off"))
        #expect(
            try Self.count(TestDocuments.appleRaster(pages: 2, declaring: 5), format: "image/urf")
                == .unreadable(format: "image/urf", why: "Apple raster declares 5 pages but holds 2"))
        var wide = TestDocuments.appleRaster(pages: 1)
        wide[12] = 7  // the first page's bits per pixel: not whole bytes
        #expect(
            try Self.count(wide, format: "image/urf")
                == .unreadable(format: "image/urf", why: "Apple raster page 1 has an impossible header (2480×3508, 7 bits per pixel)"))
        #expect(try Self.count([0x89, 0x50], format: "image/jpeg") == .unreadable(format: "image/jpeg", why: "not a JPEG file (no SOI marker)"))
        #expect(
            try Self.count(Array("plain text".utf8), format: "application/octet-stream")
                == .unreadable(
                    format: "application/octet-stream",
                    why:
                        "auto-sensing recognised none of the formats MiG prints (PDF, PostScript, PWG raster, Apple raster, JPEG): it starts with bytes 70 6c 61 69 6e 20 74 65"
                ))
    }

    @Test func aThreePagePDFOfTwoMegabytesPrintsThreePagesTimesCopiesAndRanges() throws {
        let (kernel, phone, server) = try MiGServerTests.world()
        // Padding in a comment after the header: still a 3-page PDF, now 2 MB (20 pages by the old bytes rule).
        var pdf = TestDocuments.pdf(pages: 3)
        let padding = Array(("%" + String(repeating: "x", count: 2_000_000) + "\n").utf8)
        pdf.insert(contentsOf: padding, at: 9)
        // The cross-reference offsets moved with the padding: a real reader finds the objects by scanning.
        _ = try MiGServerTests.post(kernel, phone, try MiGServerTests.printJob(document: pdf) { $0.addCopies(2) }, chunked: true)
        _ = try MiGServerTests.post(
            kernel, phone,
            try MiGServerTests.printJob(document: TestDocuments.pdf(pages: 3)) {
                $0.addPageRanges([IPPRange(2, 9)])
            })
        kernel.advance(by: .seconds(20))
        let jobs = try server.jobs()
        #expect(jobs.map(\.pages) == [3, 3])
        #expect(jobs.map(\.impressions) == [6, 2])
        #expect(jobs.map(\.state) == [.completed, .completed])
    }
    @Test func twoSidedCopiesTakeFewerSheetsThanImpressions() throws {
        let (kernel, phone, _) = try MiGServerTests.world()
        _ = try MiGServerTests.post(
            kernel, phone,
            try MiGServerTests.printJob(document: TestDocuments.pdf(pages: 3)) {
                $0.addCopies(2)
                $0.addSides("two-sided-long-edge")
            })
        kernel.advance(by: .milliseconds(4500))  // 4 of the 6 impressions: copy 1 (2 sheets) and the first sheet of copy 2
        let request = IPPMessage.request(.getJobAttributes, requestID: 2) { op in
            op.addPrinterURI("ipp://mig/ipp/print")
            op.addJobID(1)
        }
        var job = try #require(try MiGServerTests.ipp(try MiGServerTests.post(kernel, phone, try IPPEncoder().encode(request))).group(.job))
        #expect(job["job-impressions"]?.integerValue == 6)
        #expect(job["job-impressions-completed"]?.integerValue == 4)
        #expect(job["job-media-sheets"]?.integerValue == 4)
        #expect(job["job-media-sheets-completed"]?.integerValue == 3)
        kernel.advance(by: .seconds(5))
        job = try #require(try MiGServerTests.ipp(try MiGServerTests.post(kernel, phone, try IPPEncoder().encode(request))).group(.job))
        #expect(job["job-media-sheets-completed"]?.integerValue == 4)
    }
    @Test func anAppleRasterJobPrintsItsPagesTimesCopies() throws {
        let (kernel, phone, server) = try MiGServerTests.world()
        let printer = try MiGServerTests.ipp(
            try MiGServerTests.post(
                kernel, phone,
                try IPPEncoder().encode(
                    IPPMessage.request(.getPrinterAttributes, requestID: 1) { op in
                        op.addPrinterURI("ipp://mig/ipp/print")
                        op.addRequestedAttributes(["document-format-supported", "urf-supported"])
                    })))
        #expect(printer.group(.printer)?["document-format-supported"]?.stringValues.contains("image/urf") == true)
        #expect(printer.group(.printer)?["urf-supported"]?.stringValues.contains("W8") == true)
        let answer = try MiGServerTests.ipp(
            try MiGServerTests.post(
                kernel, phone,
                try MiGServerTests.printJob(
                    document: TestDocuments.appleRaster(pages: 3), format: "image/urf"
                ) { $0.addCopies(2) }))
        #expect(answer.status == .successfulOK)
        kernel.advance(by: .seconds(10))
        let job = try #require(try server.jobs().first)
        #expect(job.state == .completed)
        #expect(job.impressionsCompleted == 6)
    }

    @Test func aRasterJPEGOrPostScriptThatDoesNotReadAbortsItsJob() throws {
        let (kernel, phone, server) = try MiGServerTests.world()
        var request = IPPMessage.request(.printJob, requestID: 1) { op in
            op.addPrinterURI("ipp://mig/ipp/print")
            op.addDocumentFormat("image/pwg-raster")
        }
        request.addGroup(.job)
        let cut = Array(TestDocuments.pwgRaster(pages: 2).dropLast(5))
        let answer = try MiGServerTests.ipp(try MiGServerTests.post(kernel, phone, try IPPEncoder().encode(request) + cut))
        #expect(answer.status == .documentFormatError)
        #expect(answer.statusMessage == "Job 1 aborted (document-format-error): PWG raster page 2 is cut off.")
        kernel.advance(by: .seconds(5))
        #expect(try server.jobs().first?.state == .aborted)
        #expect(try server.jobs().first?.reasons == ["document-format-error"])
    }
}
