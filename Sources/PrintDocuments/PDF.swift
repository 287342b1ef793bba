/// One page of text, what the generated documents show (so a printout says which page of what it is).
public struct PDFPage: Sendable, Equatable {
    public var lines: [String]
    public init(lines: [String]) { self.lines = lines }
}

/// Writes small, valid PDF 1.4 files: A4 pages of Helvetica text, a correct cross-reference table, no dates — the
/// same pages always give the same bytes.
public enum PDFWriter {
    /// Marks files written here, so readers can recover their page texts.
    static let producer = "Workbench PrintDocuments"

    public static func document(title: String, pages: [PDFPage], landscape: Bool = false) -> [UInt8] {
        var out = Array("%PDF-1.4\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".utf8)
        var offsets: [Int] = []
        func object(_ body: [UInt8]) {
            offsets.append(out.count)
            out += Array("\(offsets.count) 0 obj\n".utf8) + body + Array("\nendobj\n".utf8)
        }
        let (width, height) = landscape ? (842, 595) : (595, 842)
        let pageObjects = (0..<pages.count).map { 5 + 2 * $0 }
        object(Array("<< /Type /Catalog /Pages 2 0 R >>".utf8))
        object(Array("<< /Type /Pages /Kids [\(pageObjects.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages.count) >>".utf8))
        object(Array("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".utf8))
        object(Array("<< /Title (\(escape(title))) /Producer (\(producer)) >>".utf8))
        for page in pages {
            var content = "BT /F1 14 Tf 56 \(height - 72) Td 18 TL\n"
            for line in page.lines { content += "(\(escape(line))) Tj T*\n" }
            content += "ET"
            object(Array("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Resources << /Font << /F1 3 0 R >> >> /Contents \(offsets.count + 2) 0 R >>".utf8))
            object(Array("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream".utf8))
        }
        let xref = out.count
        out += Array("xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets {
            let digits = String(offset)
            out += Array((String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n").utf8)
        }
        out += Array("trailer\n<< /Size \(offsets.count + 1) /Root 1 0 R /Info 4 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return out
    }

    /// Text for a PDF string literal: backslash, parentheses escaped; anything outside printable ASCII becomes `?`
    /// (Helvetica's standard encoding would print it wrong anyway).
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\", "(", ")": out += "\\" + String(scalar)
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "?"
            }
        }
        return out
    }
}

/// Reads what a print host needs of a PDF: how many pages it has.
public enum PDFReader {
    /// The page count a real reader reports: the trailer's /Root → /Pages → /Count; when that chain is broken or
    /// hidden in compressed object streams, a count of `/Type /Page` objects.
    public static func pageCount(_ bytes: [UInt8]) throws(DocumentError) -> Int {
        guard bytes.count >= 8, bytes.starts(with: Array("%PDF-".utf8)) else {
            throw DocumentError("not a PDF: it does not start with %PDF-")
        }
        guard bytes.count <= DocumentLimits.maximumDocumentBytes else {
            throw DocumentError("PDF of \(bytes.count) bytes; the limit is \(DocumentLimits.maximumDocumentBytes)")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var count: Int?
        if let root = lastReference(after: "/Root", in: text), let catalog = object(root, in: text),
           let pagesReference = lastReference(after: "/Pages", in: catalog), let pages = object(pagesReference, in: text),
           let value = number(after: "/Count", in: pages) {
            count = value
        } else {
            let pages = text.ranges(of: "/Type").filter { range in
                let rest = text[range.upperBound...].drop(while: { $0 == " " || $0 == "\n" || $0 == "\r" })
                return rest.hasPrefix("/Page") && !rest.hasPrefix("/Pages")
            }.count
            count = pages > 0 ? pages : nil
        }
        guard let count else { throw DocumentError("PDF without a page tree: no /Root → /Pages → /Count and no /Type /Page objects") }
        guard (0...DocumentLimits.maximumPages).contains(count) else {
            throw DocumentError("PDF claims \(count) pages; the limit is \(DocumentLimits.maximumPages)")
        }
        return count
    }

    /// Each page's text lines, for PDFs written by ``PDFWriter`` (nil for any other PDF).
    public static func pageLines(_ bytes: [UInt8]) -> [[String]]? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("/Producer (\(PDFWriter.producer))") else { return nil }
        var pages: [[String]] = []
        var rest = Substring(text)
        while let start = rest.range(of: "stream\nBT "), let end = rest[start.upperBound...].range(of: "\nendstream") {
            let content = rest[start.upperBound..<end.lowerBound]
            pages.append(content.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("("), line.hasSuffix(") Tj T*") else { return nil }
                return unescape(line.dropFirst().dropLast(") Tj T*".count))
            })
            rest = rest[end.upperBound...]
        }
        return pages
    }

    private static func unescape(_ text: Substring) -> String {
        var out = ""
        var escaped = false
        for character in text {
            if escaped || character != "\\" {
                out.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        return out
    }

    /// `N G R` after the last occurrence of `key`.
    private static func lastReference(after key: String, in text: some StringProtocol) -> (Int, Int)? {
        guard let range = text.ranges(of: key).last else { return nil }
        let words = text[range.upperBound...].split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" }).prefix(3)
        guard words.count == 3, let number = Int(words[words.startIndex]), let generation = Int(words[words.startIndex + 1]),
              words[words.startIndex + 2].hasPrefix("R") else { return nil }
        return (number, generation)
    }

    /// The text of object `N G obj … endobj` (the last definition wins, as with incremental updates).
    private static func object(_ reference: (Int, Int), in text: String) -> Substring? {
        let header = "\(reference.0) \(reference.1) obj"
        guard let start = text.ranges(of: header).last(where: { range in
            range.lowerBound == text.startIndex || [" ", "\n", "\r"].contains(text[text.index(before: range.lowerBound)])
        }), let end = text[start.upperBound...].range(of: "endobj") else { return nil }
        return text[start.upperBound..<end.lowerBound]
    }

    private static func number(after key: String, in text: some StringProtocol) -> Int? {
        guard let range = text.range(of: key) else { return nil }
        let digits = text[range.upperBound...].drop(while: { $0 == " " }).prefix(while: \.isNumber)
        return digits.count <= 9 ? Int(digits) : Int.max
    }
}

/// Writes DSC-conforming PostScript (Adobe's Document Structuring Conventions 3.0), one text page per page, so
/// spoolers and `lpq` see the page count in `%%Pages:`.
public enum PostScriptWriter {
    public static func document(title: String, creator: String, pages: [PDFPage], landscape: Bool = false) -> [UInt8] {
        let (width, height) = landscape ? (842, 595) : (595, 842)
        var out = """
            %!PS-Adobe-3.0
            %%Title: \(clean(title))
            %%Creator: \(clean(creator))
            %%BoundingBox: 0 0 \(width) \(height)
            %%Pages: \(pages.count)
            %%DocumentData: Clean7Bit
            %%EndComments
            %%BeginProlog
            /F { /Helvetica findfont 14 scalefont setfont } bind def
            %%EndProlog

            """
        for (index, page) in pages.enumerated() {
            out += "%%Page: \(index + 1) \(index + 1)\nF\n"
            var y = height - 72
            for line in page.lines {
                out += "56 \(y) moveto (\(PDFWriter.escape(line))) show\n"
                y -= 18
            }
            out += "showpage\n"
        }
        out += "%%Trailer\n%%EOF\n"
        return Array(out.utf8)
    }

    private static func clean(_ text: String) -> String {
        String(text.unicodeScalars.map { (" "..."~").contains($0) ? Character($0) : "?" })
    }
}

/// Reads what a spooler needs of PostScript.
public enum PostScriptReader {
    public static func isPostScript(_ bytes: [UInt8]) -> Bool { bytes.starts(with: [0x25, 0x21]) }  // "%!"

    /// `%%Pages: N` (with `(atend)` resolved from the trailer), else the number of `%%Page:` comments; nil when not PostScript.
    public static func pageCount(_ bytes: [UInt8]) -> Int? {
        guard isPostScript(bytes) else { return nil }
        let text = String(decoding: bytes.prefix(DocumentLimits.maximumDocumentBytes), as: UTF8.self)
        let declared = text.split(separator: "\n").filter { $0.hasPrefix("%%Pages:") }
            .compactMap { Int($0.dropFirst("%%Pages:".count).trimmingCharacters(in: " \r")) }
        if let count = declared.last { return min(count, DocumentLimits.maximumPages) }
        return min(text.split(separator: "\n").filter { $0.hasPrefix("%%Page:") }.count, DocumentLimits.maximumPages)
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(drop(while: { set.contains($0) }).reversed().drop(while: { set.contains($0) }).reversed())
    }
}
