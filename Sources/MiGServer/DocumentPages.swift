import Foundation
import NIOCore
import PrintDocuments

/// How many pages a document has, read from the document itself: PDF through a real reader (trailer → page tree),
/// PWG raster by its page headers, JPEG as one page, PostScript by its DSC comments.
public enum DocumentPages: Sendable, Equatable {
    /// Counted from the document.
    case counted(Int)
    /// The bytes are not a document of the format they were read as (`why` says what was found).
    case unreadable(format: String, why: String)
    /// Not examined: MiG keeps no content it could read (digests only), or the document is larger than the readers
    /// take (`DocumentLimits.maximumDocumentBytes`).
    case unexamined
}

/// Counts a document's pages while it streams into the spool: PWG raster and JPEG from the bytes as they pass; PDF
/// and PostScript, which need the whole document, from the spool file (or, when the spool keeps only digests, from
/// the bytes held here up to `heldLimit`).
final class PageCountingWriter: DocumentWriter {
    private let inner: any DocumentWriter
    private var kind: Kind
    private var raster = PWGRasterPages()
    private var held: [UInt8]? = []
    private var prefix: [UInt8] = []
    private let readsSpoolFile: Bool
    /// Largest PDF or PostScript document held in memory to be read when the spool keeps no file.
    static let heldLimit = 16 << 20

    private enum Kind { case sniff, pdf, postscript, pwgRaster, jpeg, other }

    /// - parameters:
    ///   - format: the document-format the client declared; `application/octet-stream` is recognised by its first bytes.
    ///   - readsSpoolFile: the spool keeps the document in a file: PDF and PostScript are read from there.
    init(inner: any DocumentWriter, format: String, readsSpoolFile: Bool) {
        self.inner = inner
        self.readsSpoolFile = readsSpoolFile
        kind = switch format {
        case "application/pdf": .pdf
        case "application/postscript": .postscript
        case "image/pwg-raster": .pwgRaster
        case "image/jpeg": .jpeg
        case "application/octet-stream": .sniff
        default: .other
        }
        if readsSpoolFile { held = nil }
    }

    func write(_ bytes: ByteBuffer) throws(SpoolError) {
        try inner.write(bytes)
        bytes.withUnsafeReadableBytes { raw in
            let seen = prefix
            if prefix.count < 8 { prefix += raw.prefix(8 - prefix.count) }
            if case .sniff = kind, prefix.count >= 4 {
                kind = Self.recognise(prefix)
                // Recognised only now: the raster reader also needs the bytes that came before this chunk.
                if case .pwgRaster = kind { seen.withUnsafeBytes { raster.feed($0) } }
            }
            switch kind {
            case .pwgRaster: raster.feed(raw)
            case .pdf, .postscript, .sniff: break
            case .jpeg, .other: held = nil  // counted without the whole document, or not at all
            }
            if held != nil {
                if held!.count + raw.count <= Self.heldLimit { held! += raw } else { held = nil }
            }
        }
    }

    func finish() throws(SpoolError) -> SpooledDocument {
        var document = try inner.finish()
        if case .sniff = kind { kind = Self.recognise(prefix) }
        document.pages = count(document)
        return document
    }

    func discard() { inner.discard() }

    private static func recognise(_ prefix: [UInt8]) -> Kind {
        if prefix.starts(with: Array("%PDF-".utf8)) { return .pdf }
        if PostScriptReader.isPostScript(prefix) { return .postscript }
        if prefix.starts(with: Array("RaS2".utf8)) { return .pwgRaster }
        if prefix.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        return .other
    }

    private func count(_ document: SpooledDocument) -> DocumentPages {
        switch kind {
        case .pwgRaster: return raster.outcome
        case .jpeg: return prefix.starts(with: [0xFF, 0xD8, 0xFF]) ? .counted(1) : .unreadable(format: "image/jpeg", why: "not a JPEG file (no SOI marker)")
        case .pdf, .postscript:
            guard let bytes = wholeDocument(document) else { return .unexamined }
            if case .pdf = kind {
                do { return .counted(try PDFReader.pageCount(bytes)) } catch { return .unreadable(format: "application/pdf", why: "not a readable PDF: \(error)") }
            }
            guard PostScriptReader.isPostScript(bytes) else { return .unreadable(format: "application/postscript", why: "not PostScript (it does not start with %!)") }
            guard let pages = PostScriptReader.pageCount(bytes), pages > 0 else {
                return .unreadable(format: "application/postscript",
                                   why: "PostScript without DSC page comments (%%Pages: or %%Page:): its pages cannot be counted")
            }
            return .counted(pages)
        case .sniff, .other: return .unexamined
        }
    }

    /// The document's bytes for the readers that need all of them: held here, or read back from the spool file.
    private func wholeDocument(_ document: SpooledDocument) -> [UInt8]? {
        if let held { return held }
        guard readsSpoolFile, let path = document.path, document.bytes <= Int64(DocumentLimits.maximumDocumentBytes) else { return nil }
        return FileManager.default.contents(atPath: path).map(Array.init)
    }
}

/// PWG raster (PWG 5102.4) read as it streams: "RaS2", then per page a 1796-byte header and its lines, each line a
/// repeat count and runs of pixels. Only the structure is followed; pixels are skipped.
struct PWGRasterPages {
    private var sync: [UInt8] = []
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

    var outcome: DocumentPages {
        let unreadable = { (why: String) in DocumentPages.unreadable(format: "image/pwg-raster", why: why) }
        if let problem { return unreadable(problem) }
        if sync.count < 4 { return unreadable("not PWG raster: the file ends before its RaS2 sync word") }
        if !header.isEmpty || inPage { return unreadable("PWG raster page \(pages + 1) is cut off") }
        return pages > 0 ? .counted(pages) : unreadable("PWG raster without pages")
    }

    mutating func feed(_ raw: UnsafeRawBufferPointer) {
        var index = 0
        while index < raw.count, problem == nil {
            if sync.count < 4 {
                sync.append(raw[index])
                index += 1
                if sync.count == 4, sync != Array("RaS2".utf8) { problem = "not PWG raster: the sync word is not RaS2" }
                continue
            }
            if !inPage {
                let take = min(1796 - header.count, raw.count - index)
                header += raw[index..<index + take]
                index += take
                if header.count == 1796 { startPage() }
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
            if lineDone > bytesPerLine { problem = "PWG raster page \(pages + 1): a line runs past its \(bytesPerLine) bytes" }
        }
    }

    private mutating func startPage() {
        func value(_ offset: Int) -> Int { header[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        let width = value(372), height = value(376), bitsPerPixel = value(388)
        bytesPerLine = value(392)
        header = []
        guard width > 0, height > 0, (1...64).contains(bitsPerPixel), bytesPerLine == (width * bitsPerPixel + 7) / 8 else {
            problem = "PWG raster page \(pages + 1) has an impossible header (\(width)×\(height), \(bitsPerPixel) bits per pixel, \(bytesPerLine) bytes per line)"
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
