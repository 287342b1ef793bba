import Foundation
/// The office formats the app prints.
public enum OfficeFormat: String, CaseIterable, Sendable {
    case doc, docx, ppt, pptx, odt

    /// Slide formats convert to landscape pages.
    public var isPresentation: Bool { self == .ppt || self == .pptx }
}

/// Real, minimal office files with a chosen number of pages, and the page counts a converter reads from them.
///
/// DOCX, PPTX and ODT are ZIP packages whose metadata says how many pages they have, as the producers write it:
/// `docProps/app.xml` `<Pages>` (DOCX) or `<Slides>` (PPTX), `meta.xml` `meta:page-count` (ODT). DOC and PPT are
/// OLE2 compound files whose page count is not readable without parsing their binary streams, so this workbench uses
/// a documented rule: **one page per started 20,000 bytes of a DOC, one slide per started 40,000 bytes of a PPT**, and
/// `generate` sizes them to match.
public enum OfficeDocument {
    public static let docBytesPerPage = 20_000
    public static let pptBytesPerSlide = 40_000
    static let oleMagic: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]

    public static func generate(_ format: OfficeFormat, pages: Int, title: String) -> [UInt8] {
        let pages = max(1, min(pages, DocumentLimits.maximumPages))
        let safeTitle = xmlEscape(title)
        switch format {
        case .docx:
            var zip = ZIPWriter()
            zip.add("[Content_Types].xml", Array(contentTypes(main: ("/word/document.xml",
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"), extra: []).utf8), compress: true)
            zip.add("_rels/.rels", Array(rootRelationships(main: "word/document.xml",
                type: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument").utf8), compress: true)
            let body = (1...pages).map { page in
                "<w:p><w:r><w:t>\(safeTitle) — page \(page) of \(pages)</w:t></w:r></w:p>"
                    + (page < pages ? "<w:p><w:r><w:br w:type=\"page\"/></w:r></w:p>" : "")
            }.joined()
            zip.add("word/document.xml", Array("""
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>\(body)</w:body></w:document>
                """.utf8), compress: true)
            zip.add("docProps/app.xml", Array(appProperties("<Pages>\(pages)</Pages>", application: "Microsoft Office Word").utf8), compress: true)
            return zip.finish()
        case .pptx:
            var zip = ZIPWriter()
            let slides = (1...pages).map { ("/ppt/slides/slide\($0).xml", "application/vnd.openxmlformats-officedocument.presentationml.slide+xml") }
            zip.add("[Content_Types].xml", Array(contentTypes(main: ("/ppt/presentation.xml",
                "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"), extra: slides).utf8), compress: true)
            zip.add("_rels/.rels", Array(rootRelationships(main: "ppt/presentation.xml",
                type: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument").utf8), compress: true)
            let ids = (1...pages).map { "<p:sldId id=\"\(255 + $0)\" r:id=\"rId\($0)\"/>" }.joined()
            zip.add("ppt/presentation.xml", Array("""
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:sldIdLst>\(ids)</p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/></p:presentation>
                """.utf8), compress: true)
            let relationships = (1...pages).map {
                "<Relationship Id=\"rId\($0)\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide\" Target=\"slides/slide\($0).xml\"/>"
            }.joined()
            zip.add("ppt/_rels/presentation.xml.rels", Array("""
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\(relationships)</Relationships>
                """.utf8), compress: true)
            for slide in 1...pages {
                zip.add("ppt/slides/slide\(slide).xml", Array("""
                    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                    <p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree><p:sp><p:txBody><a:bodyPr/><a:p><a:r><a:t>\(safeTitle) — slide \(slide) of \(pages)</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>
                    """.utf8), compress: true)
            }
            zip.add("docProps/app.xml", Array(appProperties("<Slides>\(pages)</Slides>", application: "Microsoft Office PowerPoint").utf8), compress: true)
            return zip.finish()
        case .odt:
            var zip = ZIPWriter()
            // ODF requires `mimetype` first and stored, so tools can recognise the file by its first bytes.
            zip.add("mimetype", Array("application/vnd.oasis.opendocument.text".utf8), compress: false)
            zip.add("META-INF/manifest.xml", Array("""
                <?xml version="1.0" encoding="UTF-8"?>
                <manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>
                """.utf8), compress: true)
            let paragraphs = (1...pages).map { "<text:p text:style-name=\"\($0 > 1 ? "Break" : "Standard")\">\(safeTitle) — page \($0) of \(pages)</text:p>" }.joined()
            zip.add("content.xml", Array("""
                <?xml version="1.0" encoding="UTF-8"?>
                <office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.2"><office:automatic-styles><style:style style:name="Break" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/></style:style></office:automatic-styles><office:body><office:text>\(paragraphs)</office:text></office:body></office:document-content>
                """.utf8), compress: true)
            zip.add("meta.xml", Array("""
                <?xml version="1.0" encoding="UTF-8"?>
                <office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.2"><office:meta><dc:title>\(safeTitle)</dc:title><meta:generator>Workbench PrintDocuments</meta:generator><meta:document-statistic meta:page-count="\(pages)" meta:paragraph-count="\(pages)"/></office:meta></office:document-meta>
                """.utf8), compress: true)
            return zip.finish()
        case .doc, .ppt:
            let unit = format == .doc ? docBytesPerPage : pptBytesPerSlide
            // A compound-file header, then filler: exactly `pages` units, the last one started but not full.
            var bytes = oleMagic + Array("Workbench \(format.rawValue.uppercased()) stand-in: \(title)".utf8)
            let size = (pages - 1) * unit + unit / 2
            bytes += [UInt8](repeating: 0, count: max(0, size - bytes.count))
            return bytes
        }
    }

    public static func pageCount(_ bytes: [UInt8], format: OfficeFormat) throws(DocumentError) -> Int {
        let count: Int
        switch format {
        case .docx:
            count = try metadataNumber(bytes, entry: "docProps/app.xml", open: "<Pages>", close: "</Pages>", format: format)
        case .pptx:
            count = try metadataNumber(bytes, entry: "docProps/app.xml", open: "<Slides>", close: "</Slides>", format: format)
        case .odt:
            count = try metadataNumber(bytes, entry: "meta.xml", open: "meta:page-count=\"", close: "\"", format: format)
        case .doc, .ppt:
            guard bytes.starts(with: oleMagic) else {
                throw DocumentError("not a \(format.rawValue.uppercased()) file: no OLE2 compound-file signature")
            }
            let unit = format == .doc ? docBytesPerPage : pptBytesPerSlide
            count = max(1, (bytes.count + unit - 1) / unit)
        }
        guard (1...DocumentLimits.maximumPages).contains(count) else {
            throw DocumentError("the \(format.rawValue.uppercased()) file claims \(count) pages; expected 1…\(DocumentLimits.maximumPages)")
        }
        return count
    }

    private static func metadataNumber(_ bytes: [UInt8], entry: String, open: String, close: String, format: OfficeFormat) throws(DocumentError) -> Int {
        let zip: ZIPReader
        do {
            zip = try ZIPReader(bytes)
        } catch {
            throw DocumentError("not a \(format.rawValue.uppercased()) file: \(error.message)")
        }
        guard let data = try zip.contents(of: entry, limit: DocumentLimits.maximumMetadataBytes) else {
            throw DocumentError("the \(format.rawValue.uppercased()) file has no \(entry), where its page count is kept")
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let start = text.range(of: open), let end = text[start.upperBound...].range(of: close) else {
            throw DocumentError("\(entry) of the \(format.rawValue.uppercased()) file has no \(open)…\(close) page count")
        }
        let digits = text[start.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespaces)
        guard digits.count <= 9, let value = Int(digits) else {
            throw DocumentError("\(entry) says the page count is '\(digits.prefix(20))'; expected a number")
        }
        return value
    }

    static func xmlEscape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func contentTypes(main: (String, String), extra: [(String, String)]) -> String {
        let overrides = ([main] + extra).map { "<Override PartName=\"\($0.0)\" ContentType=\"\($0.1)\"/>" }.joined()
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>\(overrides)<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/></Types>
            """
    }

    private static func rootRelationships(main: String, type: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="\(type)" Target="\(main)"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/></Relationships>
        """
    }

    private static func appProperties(_ count: String, application: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>\(application)</Application>\(count)</Properties>
        """
    }
}
