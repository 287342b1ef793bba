import Foundation
import NIOCore
import PrintDocuments

/// How many pages a document has, read from the document itself: PDF through a real reader (trailer → page tree),
/// PWG and Apple raster by their page headers, JPEG as one page, PostScript by its DSC comments.
public enum DocumentPages: Sendable, Equatable {
    /// Counted from the document.
    case counted(Int)
    /// The bytes are not a document of the format they were read as (`why` says what was found).
    case unreadable(format: String, why: String)
    /// Not examined: MiG keeps no content it could read (digests only), or the document is larger than the readers
    /// take (`DocumentLimits.maximumDocumentBytes`).
    case unexamined
}

/// Counts a document's pages while it streams into the spool: raster and JPEG from the bytes as they pass; PDF
/// and PostScript, which need the whole document, from the spool file (or, when the spool keeps only digests, from
/// the bytes held here up to `heldLimit`). A PDF is first counted from its first and last bytes, kept as they pass
/// (`PDFReader.pageCount(head:end:fileSize:)`): most PDFs end with their cross-reference and page tree, and then the
/// spool file is not read back. When that cannot decide, or the PDF is unreadable, the whole file is read as before,
/// so the count and the refusal are the full reader's.
final class PageCountingWriter: DocumentWriter {
    private let inner: any DocumentWriter
    private var kind: Kind
    private var raster: RasterPages?
    private var held: [UInt8]? = []
    private var prefix: [UInt8] = []
    private let readsSpoolFile: Bool
    /// The client declared `application/octet-stream`: the format is sensed from the first bytes, and bytes that are
    /// none of MiG's formats are unreadable rather than estimated (a guessed page would be counted and billed).
    private let sensed: Bool
    /// Largest PDF or PostScript document held in memory to be read when the spool keeps no file.
    static let heldLimit = 16 << 20
    /// A PDF's first bytes (where its header is) and its last `endLimit` bytes, copied as they pass into a ring, kept
    /// only when the spool keeps a file (else `held` has it all). Copied, not kept as the chunks: a chunk still held
    /// makes NIO's receive-buffer pool copy its buffer on the next read, on the event loop.
    private var head: [UInt8] = []
    private var end: [UInt8] = []
    /// Where the next byte goes in `end` once it is full (then also where its oldest byte is).
    private var endNext = 0
    /// Every byte of the document seen so far.
    private var seen = 0
    /// How much of a PDF's end is kept: enough for the cross-reference section, trailer and page tree of most PDFs.
    static let endLimit = 128 << 10

    private enum Kind { case sniff, pdf, postscript, raster, jpeg, other }

    /// - parameters:
    ///   - format: the document-format the client declared; `application/octet-stream` is recognised by its first bytes.
    ///   - readsSpoolFile: the spool keeps the document in a file: PDF and PostScript are read from there.
    init(inner: any DocumentWriter, format: String, readsSpoolFile: Bool) {
        self.inner = inner
        self.readsSpoolFile = readsSpoolFile
        sensed = format == "application/octet-stream"
        kind =
            switch format {
            case "application/pdf": .pdf
            case "application/postscript": .postscript
            case "image/pwg-raster", "image/urf": .raster
            case "image/jpeg": .jpeg
            case "application/octet-stream": .sniff
            default: .other
            }
        raster =
            switch format {
            case "image/pwg-raster": RasterPages(.pwg)
            case "image/urf": RasterPages(.apple)
            default: nil
            }
        if readsSpoolFile { held = nil }
    }

    func write(_ chunks: [ByteBuffer]) throws(SpoolError) {
        try inner.write(chunks)
        for bytes in chunks { examine(bytes) }
    }

    /// Sniffs the format and feeds the raster reader (and the held copy) with one chunk.
    private func examine(_ bytes: ByteBuffer) {
        bytes.withUnsafeReadableBytes { raw in
            let seen = prefix
            if prefix.count < 8 { prefix += raw.prefix(8 - prefix.count) }
            if case .sniff = kind, prefix.count >= 4 {
                (kind, raster) = Self.recognise(prefix)
                // Recognised only now: the raster reader also needs the bytes that came before this chunk.
                if case .raster = kind { seen.withUnsafeBytes { raster!.feed($0) } }
                if kind != .pdf { dropEnds() }
            }
            switch kind {
            case .raster: raster!.feed(raw)
            case .pdf, .sniff: if readsSpoolFile { keepEnds(raw) }
            case .postscript: break
            case .jpeg, .other: held = nil  // counted without the whole document, or not at all
            }
            if held != nil {
                if held!.count + raw.count <= Self.heldLimit { held! += raw } else { held = nil }
            }
        }
    }

    /// Keeps a chunk's bytes as part of a PDF's head and end.
    private func keepEnds(_ raw: UnsafeRawBufferPointer) {
        if head.count < PDFReader.headBytes { head += raw.prefix(PDFReader.headBytes - head.count) }
        seen += raw.count
        var rest = UnsafeRawBufferPointer(rebasing: raw.suffix(Self.endLimit))
        if end.count < Self.endLimit {
            let filling = min(Self.endLimit - end.count, rest.count)
            end += rest.prefix(filling)
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(filling))
        }
        while !rest.isEmpty {
            let run = min(Self.endLimit - endNext, rest.count)
            end.withUnsafeMutableBytes { ring in
                UnsafeMutableRawBufferPointer(rebasing: ring[endNext..<endNext + run]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: rest.prefix(run)))
            }
            endNext = (endNext + run) % Self.endLimit
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(run))
        }
    }

    private func dropEnds() {
        head = []
        end = []
        endNext = 0
        seen = 0
    }

    func finish() throws(SpoolError) -> SpooledDocument {
        var document = try inner.finish()
        if case .sniff = kind { (kind, raster) = Self.recognise(prefix) }
        document.pages = count(document)
        if sensed { document.detectedFormat = detectedFormat }
        if case .raster = kind { document.pageSizes = raster!.pageSizes }
        return document
    }

    func discard() { inner.discard() }

    /// The format the first bytes were recognised as; nil for none.
    private var detectedFormat: String? {
        switch kind {
        case .pdf: "application/pdf"
        case .postscript: "application/postscript"
        case .raster: raster!.flavour.format
        case .jpeg: "image/jpeg"
        case .sniff, .other: nil
        }
    }

    /// Why bytes sent as application/octet-stream are none of MiG's formats: what they start with.
    private var unrecognised: DocumentPages {
        let start =
            prefix.isEmpty
            ? "the document is empty"
            : "it starts with bytes " + prefix.map { String($0 >> 4, radix: 16) + String($0 & 0xF, radix: 16) }.joined(separator: " ")
        return .unreadable(
            format: "application/octet-stream",
            why: "auto-sensing recognised none of the formats MiG prints (PDF, PostScript, PWG raster, Apple raster, JPEG): \(start)")
    }

    private static func recognise(_ prefix: [UInt8]) -> (Kind, RasterPages?) {
        if prefix.starts(with: Array("%PDF-".utf8)) { return (.pdf, nil) }
        if PostScriptReader.isPostScript(prefix) { return (.postscript, nil) }
        if prefix.starts(with: Array("RaS2".utf8)) { return (.raster, RasterPages(.pwg)) }
        if prefix.starts(with: Array("UNIR".utf8)) { return (.raster, RasterPages(.apple)) }
        if prefix.starts(with: [0xFF, 0xD8, 0xFF]) { return (.jpeg, nil) }
        return (.other, nil)
    }

    private func count(_ document: SpooledDocument) -> DocumentPages {
        switch kind {
        case .raster: return raster!.outcome
        case .jpeg:
            return prefix.starts(with: [0xFF, 0xD8, 0xFF]) ? .counted(1) : .unreadable(format: "image/jpeg", why: "not a JPEG file (no SOI marker)")
        case .pdf, .postscript:
            if case .pdf = kind, let pages = countFromEnds(document) { return .counted(pages) }
            guard let bytes = wholeDocument(document) else { return .unexamined }
            if case .pdf = kind {
                do { return .counted(try PDFReader.pageCount(bytes)) } catch {
                    return .unreadable(format: "application/pdf", why: "not a readable PDF: \(error)")
                }
            }
            guard PostScriptReader.isPostScript(bytes) else {
                return .unreadable(format: "application/postscript", why: "not PostScript (it does not start with %!)")
            }
            guard let pages = PostScriptReader.pageCount(bytes), pages > 0 else {
                return .unreadable(
                    format: "application/postscript",
                    why: "PostScript without DSC page comments (%%Pages: or %%Page:): its pages cannot be counted")
            }
            return .counted(pages)
        case .sniff, .other: return sensed ? unrecognised : .unexamined
        }
    }

    /// A PDF's pages from its kept head and end, when they tell (and the end is not the whole document: then
    /// `wholeDocument` has it, for the full reader).
    private func countFromEnds(_ document: SpooledDocument) -> Int? {
        guard readsSpoolFile, Int64(seen) == document.bytes, seen > end.count, document.bytes <= Int64(DocumentLimits.maximumDocumentBytes)
        else { return nil }
        return PDFReader.pageCount(head: head, end: orderedEnd(), fileSize: seen)
    }

    /// The kept end's bytes in order (the ring turned so that its oldest byte comes first).
    private func orderedEnd() -> [UInt8] { endNext == 0 ? end : Array(end[endNext...] + end[..<endNext]) }

    /// The document's bytes for the readers that need all of them: held here, kept whole as its end, or read back
    /// from the spool file.
    private func wholeDocument(_ document: SpooledDocument) -> [UInt8]? {
        if let held { return held }
        if readsSpoolFile, kind == .pdf, seen == end.count, Int64(seen) == document.bytes { return end }
        guard readsSpoolFile, let path = document.path, document.bytes <= Int64(DocumentLimits.maximumDocumentBytes) else { return nil }
        return Self.read(path, bytes: Int(document.bytes))
    }

    /// The file's `bytes` bytes, read straight into the array the readers take (through `Data`, each read-back
    /// cost a second copy of the whole document); nil if the file cannot be read or has not that many bytes.
    private static func read(_ path: String, bytes: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var complete = false
        let content = [UInt8](unsafeUninitializedCapacity: bytes) { buffer, count in
            count = 0
            while count < bytes {
                let got = pread(fd, buffer.baseAddress! + count, bytes - count, off_t(count))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { break }
                count += got
            }
            complete = count == bytes
        }
        return complete ? content : nil
    }
}

/// A raster page's size in points (1/72 inch), as its header gives it.
public struct PageSize: Sendable, Equatable {
    public var width: Int
    public var length: Int

    /// In hundredths of a millimetre, as PWG 5101.1 gives media sizes.
    var hundredthsOfMillimetre: (width: Int, length: Int) { ((width * 2540 + 36) / 72, (length * 2540 + 36) / 72) }
}

/// Raster read as it streams, in either of the two formats driverless clients send: PWG raster (PWG 5102.4:
/// "RaS2", then per page a 1796-byte header) and Apple raster (`image/urf`: "UNIRAST\0" and a page count, then per
/// page a 32-byte header). In both, each page's lines are a repeat count and runs of pixels. Only the structure is
/// followed; pixels are skipped.
struct RasterPages {
    enum Flavour {
        case pwg, apple

        var format: String { self == .pwg ? "image/pwg-raster" : "image/urf" }
        var name: String { self == .pwg ? "PWG raster" : "Apple raster" }
        /// What the file starts with: the sync word, and for Apple raster its page count after it.
        var fileHeader: Int { self == .pwg ? 4 : 12 }
        var magic: [UInt8] { self == .pwg ? Array("RaS2".utf8) : Array("UNIRAST\0".utf8) }
        var pageHeader: Int { self == .pwg ? 1796 : 32 }
    }

    let flavour: Flavour
    /// Each distinct page size the pages' headers give, in points, in the order first met: the printer checks them
    /// against the media it has (a raster page is already laid out for one size of paper).
    private(set) var pageSizes: [PageSize] = []
    private var fileHeader: [UInt8] = []
    private var header: [UInt8] = []
    private var pages = 0
    private var problem: String?
    // The page being read.
    private var inPage = false
    private var linesLeft = 0
    private var bytesPerLine = 0
    private var bytesPerPixel = 1
    private var lineDone = 0
    private var inLine = false
    /// Bytes of pixel data still to skip in the current run.
    private var skip = 0

    init(_ flavour: Flavour) { self.flavour = flavour }

    var outcome: DocumentPages {
        let unreadable = { (why: String) in DocumentPages.unreadable(format: flavour.format, why: why) }
        if let problem { return unreadable(problem) }
        if fileHeader.count < flavour.fileHeader {
            return unreadable("not \(flavour.name): the file ends before its \(flavour == .pwg ? "RaS2 sync word" : "UNIRAST header")")
        }
        if !header.isEmpty || inPage { return unreadable("\(flavour.name) page \(pages + 1) is cut off") }
        if pages == 0 { return unreadable("\(flavour.name) without pages") }
        // Apple raster says how many pages follow; a file that holds fewer or more is not what its sender made.
        if flavour == .apple, case let declared = Self.integer(fileHeader, 8), declared != pages {
            return unreadable("Apple raster declares \(declared) page\(declared == 1 ? "" : "s") but holds \(pages)")
        }
        return .counted(pages)
    }

    mutating func feed(_ raw: UnsafeRawBufferPointer) {
        var index = 0
        while index < raw.count, problem == nil {
            if fileHeader.count < flavour.fileHeader {
                fileHeader.append(raw[index])
                index += 1
                if fileHeader.count == flavour.magic.count, fileHeader != flavour.magic {
                    problem = flavour == .pwg ? "not PWG raster: the sync word is not RaS2" : "not Apple raster: the file does not start with UNIRAST"
                }
                continue
            }
            if !inPage {
                let take = min(flavour.pageHeader - header.count, raw.count - index)
                header += raw[index..<index + take]
                index += take
                if header.count == flavour.pageHeader { startPage() }
                continue
            }
            if skip > 0 {
                let take = min(skip, raw.count - index)
                skip -= take
                index += take
                if skip == 0, lineDone >= bytesPerLine { endLine() }
                continue
            }
            let byte = Int(raw[index])
            index += 1
            if !inLine {
                // The line repeat count: this line stands for byte + 1 lines.
                inLine = true
                lineDone = 0
                linesLeft -= min(linesLeft - 1, byte)
                continue
            }
            if byte == 128 {
                lineDone = bytesPerLine  // the rest of the line is white
                endLine()
            } else if byte < 128 {
                lineDone += (byte + 1) * bytesPerPixel
                skip = bytesPerPixel
            } else {
                lineDone += (257 - byte) * bytesPerPixel
                skip = (257 - byte) * bytesPerPixel
            }
            if lineDone > bytesPerLine { problem = "\(flavour.name) page \(pages + 1): a line runs past its \(bytesPerLine) bytes" }
        }
    }

    private static func integer(_ bytes: [UInt8], _ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }

    private mutating func startPage() {
        let width: Int
        let height: Int
        let bitsPerPixel: Int
        let size: PageSize?
        switch flavour {
        case .pwg:
            (width, height, bitsPerPixel) = (Self.integer(header, 372), Self.integer(header, 376), Self.integer(header, 388))
            bytesPerLine = Self.integer(header, 392)
            // PageSize, in points.
            size = PageSize(width: Self.integer(header, 352), length: Self.integer(header, 356))
        case .apple:
            // Bits per pixel in the first byte; width, height at 12 and 16. Apple raster is whole bytes per pixel.
            (width, height, bitsPerPixel) = (Self.integer(header, 12), Self.integer(header, 16), Int(header[0]))
            bytesPerLine = bitsPerPixel % 8 == 0 ? width * bitsPerPixel / 8 : -1
            // No page size in the header: the pixels at the resolution (dots per inch, at 20) make it.
            let resolution = Self.integer(header, 20)
            size =
                resolution > 0
                ? PageSize(width: (width * 72 + resolution / 2) / resolution, length: (height * 72 + resolution / 2) / resolution) : nil
        }
        if let size, !pageSizes.contains(size) { pageSizes.append(size) }
        header = []
        guard width > 0, height > 0, (1...64).contains(bitsPerPixel), bytesPerLine == (width * bitsPerPixel + 7) / 8 else {
            problem =
                "\(flavour.name) page \(pages + 1) has an impossible header (\(width)×\(height), \(bitsPerPixel) bits per pixel"
                + (flavour == .pwg ? ", \(bytesPerLine) bytes per line)" : ")")
            return
        }
        bytesPerPixel = (bitsPerPixel + 7) / 8
        linesLeft = height
        inPage = true
    }

    private mutating func endLine() {
        inLine = false
        linesLeft -= 1
        if linesLeft <= 0 {
            inPage = false
            pages += 1
        }
    }
}
