/// The office formats the app prints besides PDF.
public enum OfficeFormat: String, CaseIterable, Sendable {
    case doc, docx, ppt, pptx, odt

    /// Slide formats: the converter renders them as landscape pages of the slide's shape.
    public var isPresentation: Bool { self == .ppt || self == .pptx }
}

/// Real, minimal but valid office files with a chosen number of pages, and the page counts (and texts) a converter
/// reads from them.
///
/// - DOCX: `word/document.xml` with a page break between pages, A4 section, `docProps/app.xml` `<Pages>`,
///   `docProps/core.xml` title. PPTX: one slide per page with master, layout and theme, 16:9,
///   `docProps/app.xml` `<Slides>`. ODT: `mimetype` stored first, `content.xml` with page-break paragraphs,
///   `styles.xml` (A4), `meta.xml` `meta:page-count`. Counting reads that metadata through ``ZIPReader``; when a
///   producer left it out, the body's page breaks (or slides) are counted instead.
/// - DOC and PPT are OLE2 compound files whose page count is not readable without laying out their binary streams,
///   so this workbench uses a documented rule on the size: **one page per started 20,000 bytes of a DOC, one slide
///   per started 40,000 bytes of a PPT** (a 12-page DOC is 220,001–240,000 bytes). `generate` sizes its compound
///   files to match, and reading also checks the compound file's structure and its main stream (`WordDocument`,
///   `PowerPoint Document`).
public enum OfficeDocument {
    public static let docBytesPerPage = 20_000
    public static let pptBytesPerSlide = 40_000

    /// The most pages `generate` makes in `format`: ``DocumentLimits/maximumPages``, and for DOC and PPT what the size
    /// rule allows within ``DocumentLimits/maximumDocumentBytes`` (3,355 pages, 1,677 slides).
    public static func maximumPages(_ format: OfficeFormat) -> Int {
        switch format {
        case .doc: DocumentLimits.maximumDocumentBytes / docBytesPerPage
        case .ppt: DocumentLimits.maximumDocumentBytes / pptBytesPerSlide
        default: DocumentLimits.maximumPages
        }
    }

    /// A valid file of `format` with `pages` pages (slides), clamped to 1…``maximumPages(_:)``; each page says its
    /// title and number. The same arguments always give the same bytes.
    public static func generate(_ format: OfficeFormat, pages: Int, title: String) -> [UInt8] {
        let pages = max(1, min(pages, maximumPages(format)))
        switch format {
        case .docx: return OfficeXML.docx(pages: pages, title: title)
        case .pptx: return OfficeXML.pptx(pages: pages, title: title)
        case .odt: return OfficeXML.odt(pages: pages, title: title)
        case .doc, .ppt:
            let unit = format == .doc ? docBytesPerPage : pptBytesPerSlide
            var text = "\(title)\r"
            for page in 1...min(pages, 50) { text += "\(format == .doc ? "Page" : "Slide") \(page) of \(pages)\r" }
            let body = Array(text.unicodeScalars.map { $0.isASCII ? UInt8($0.value) : 0x3F })
            // The main stream's own header: Word's FIB magic (0xA5EC, nFib 0xC1), or PowerPoint's DocumentContainer record.
            let prefix: [UInt8] =
                format == .doc
                ? [0xEC, 0xA5, 0xC1, 0x00] + [UInt8](repeating: 0, count: 28) + body
                : [0x0F, 0x00, 0xE8, 0x03, 0, 0, 0, 0] + body
            return CompoundFile.write(
                streamName: format == .doc ? "WordDocument" : "PowerPoint Document", prefix: prefix,
                totalSize: pages * unit)
        }
    }

    /// The page (slide) count from the file's own metadata, or for DOC and PPT from the size rule above. Throws for a
    /// file that is not of `format`, or claims 0 or more than ``DocumentLimits/maximumPages`` pages.
    public static func pageCount(_ bytes: [UInt8], format: OfficeFormat) throws(DocumentError) -> Int {
        try read(bytes, format: format, withText: false).pages
    }

    /// What the converter takes from an office file.
    struct Content {
        var pages: Int
        var title: String?
        /// Each page's text, when the body splits into exactly `pages` pages.
        var pageTexts: [[String]]?
        /// The page (DOCX, ODT) or slide (PPTX) size, when the file says.
        var size: PageSize?
    }

    static func read(_ bytes: [UInt8], format: OfficeFormat, withText: Bool) throws(DocumentError) -> Content {
        let kind = format.rawValue.uppercased()
        guard bytes.count <= DocumentLimits.maximumDocumentBytes else {
            throw DocumentError("\(kind) of \(bytes.count) bytes; the limit is \(DocumentLimits.maximumDocumentBytes)")
        }
        var content: Content
        switch format {
        case .doc, .ppt:
            do {
                _ = try CompoundFile.entryNames(bytes, requiring: format == .doc ? "WordDocument" : "PowerPoint Document")
            } catch {
                throw DocumentError("not a \(kind) file: \(error.message)")
            }
            let unit = format == .doc ? docBytesPerPage : pptBytesPerSlide
            content = Content(pages: max(1, (bytes.count + unit - 1) / unit))
        case .docx, .pptx, .odt:
            let zip: ZIPReader
            do {
                zip = try ZIPReader(bytes)
            } catch {
                throw DocumentError("not a \(kind) file: \(error.message)")
            }
            content = try OfficeXML.read(zip, format: format, withText: withText)
        }
        guard (1...DocumentLimits.maximumPages).contains(content.pages) else {
            throw DocumentError("the \(kind) file claims \(content.pages) pages; expected 1…\(DocumentLimits.maximumPages)")
        }
        if let texts = content.pageTexts, texts.count != content.pages { content.pageTexts = nil }
        return content
    }
}
