/// A physical page as drawn: its size and the source pages placed on it (one for a plain page, N for an n-up sheet).
struct Sheet: Sendable, Equatable {
    var size: PageSize
    var cells: [Cell]

    /// A page on a sheet: its drawing (content-stream operators at its own size `source`), scaled by `scale`, its
    /// lower-left corner at (x, y).
    struct Cell: Sendable, Equatable {
        var source: PageSize
        var content: [UInt8]
        var scale: Double = 1
        var x: Double = 0
        var y: Double = 0
    }

    /// A plain text page.
    static func page(_ lines: [String], size: PageSize) -> Sheet {
        Sheet(size: size, cells: [Cell(source: size, content: text(lines, height: size.height))])
    }

    static let fontSize = 14, leading = 18, leftMargin = 56, topMargin = 72

    /// Lines of Helvetica from the top-left margin down: one `Tj` per line, which is how the text is read back.
    static func text(_ lines: [String], height: Int) -> [UInt8] {
        guard !lines.isEmpty else { return [] }
        var out = "BT /F1 \(fontSize) Tf \(leftMargin) \(height - topMargin) Td \(leading) TL\n"
        for line in lines { out += WinAnsi.literal(WinAnsi.encode(line)) + " Tj T*\n" }
        return Array((out + "ET\n").utf8)
    }

    /// The drawing in PDF content-stream operators. The PostScript writer emits the same operators, defined in its
    /// prolog, so a page looks the same in both.
    var content: [UInt8] {
        var out: [UInt8] = []
        for cell in cells {
            if cell.scale == 1, cell.x == 0, cell.y == 0 {
                out.append("q\n")
            } else {
                let scale = formatNumber(cell.scale)
                out.append("q \(scale) 0 0 \(scale) \(formatNumber(cell.x)) \(formatNumber(cell.y)) cm\n")
            }
            // Clip to the source page, so a long line cannot spill into the neighbouring cell of an n-up sheet.
            out.append("0 0 \(cell.source.width) \(cell.source.height) re W n\n")
            out += cell.content
            out.append("Q\n")
        }
        return out
    }

    /// Our own content operators only (those the PostScript prolog defines), with their operands re-spelled: what is
    /// carried from an input page to an output page or into PostScript. Anything else is dropped, so a crafted PDF
    /// cannot smuggle PostScript through the converters.
    static func sanitize(_ content: [UInt8]) -> [UInt8] {
        let operators: Set<String> = ["q", "Q", "cm", "re", "W", "n", "BT", "ET", "Tf", "Td", "TL", "Tj", "T*"]
        var scanner = PDFScanner(content)
        var out = ""
        var operands: [String] = []
        while let token = try? scanner.nextToken() {
            switch token {
            case .integer(let value): operands.append(String(value))
            case .real(let value): operands.append(formatNumber(value))
            case .string(let bytes): operands.append(WinAnsi.literal(bytes))
            case .name(let name) where name.utf8.allSatisfy({ PDFScanner.isRegular($0) && $0 < 0x80 }): operands.append("/" + name)
            case .keyword(let word) where operators.contains(word) && operands.count <= 6:
                out += (operands + [word]).joined(separator: " ") + "\n"
                operands.removeAll()
            default:
                operands.removeAll()
            }
            if operands.count > 6 { operands.removeFirst() }
        }
        return Array(out.utf8)
    }
}

/// Writes small, valid PDF 1.4 files: pages of Helvetica text, a correct cross-reference table, no dates and no
/// /ID — the same pages always give the same bytes. `qpdf --check` and `pdfinfo` accept them.
public enum PDFWriter {
    /// The /Creator of every PDF written here: how ``PDFReader/pageLines(_:)`` knows it can read the text back.
    public static let mark = "Workbench PrintDocuments"

    /// A PDF 1.4 of A4 pages (landscape when asked), one text page per ``PDFPage``, with Info /Title and /Producer.
    public static func document(title: String, pages: [PDFPage], landscape: Bool = false) -> [UInt8] {
        document(title: title, pages: pages, pageSize: landscape ? .a4Landscape : .a4)
    }

    /// A PDF 1.4 with pages of any size and a chosen /Producer (the emulated tools name themselves, as real ones do).
    public static func document(title: String?, pages: [PDFPage], pageSize: PageSize, producer: String = mark) -> [UInt8] {
        document(title: title, producer: producer, sheets: pages.map { Sheet.page($0.lines, size: pageSize) })
    }

    /// The two header lines every PDF written here starts with: the version and the binary marker line.
    static let header: [UInt8] = Array("%PDF-1.4\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A]

    /// - parameter padding: bytes the caller will insert right after ``header`` (see ``PaddedPDF``): every offset in
    ///   the cross-reference table counts them, though they are not in the returned bytes.
    static func document(title: String?, producer: String, creator: String? = mark, sheets: [Sheet], padding: Int64 = 0) -> [UInt8] {
        var out = header
        var offsets: [Int64] = []
        func object(_ body: String, stream: [UInt8]? = nil) {
            offsets.append(Int64(out.count) + padding)
            out.append("\(offsets.count) 0 obj\n")
            out.append(body)
            if let stream {
                out.append("\nstream\n")
                out += stream
                out.append("\nendstream")
            }
            out.append("\nendobj\n")
        }
        let kids = sheets.indices.map { "\(5 + 2 * $0) 0 R" }.joined(separator: " ")
        object("<< /Type /Catalog /Pages 2 0 R >>")
        object("<< /Type /Pages /Kids [\(kids)] /Count \(sheets.count) >>")
        object("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        var info = "<<"
        if let title { info += " /Title \(textString(title))" }
        if let creator { info += " /Creator \(textString(creator))" }
        info += " /Producer \(textString(producer)) >>"
        object(info)
        for sheet in sheets {
            let content = sheet.content
            object(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(sheet.size.width) \(sheet.size.height)] "
                    + "/Resources << /Font << /F1 3 0 R >> >> /Contents \(offsets.count + 2) 0 R >>")
            object("<< /Length \(content.count) >>", stream: content)
        }
        let xref = Int64(out.count) + padding
        out.append("xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n")
        for offset in offsets {
            let digits = String(offset)
            out.append(String(repeating: "0", count: max(0, 10 - digits.count)) + digits + " 00000 n \n")
        }
        out.append("trailer\n<< /Size \(offsets.count + 1) /Root 1 0 R /Info 4 0 R >>\nstartxref\n\(xref)\n%%EOF\n")
        return out
    }

    /// A PDF text string: a literal when the text is printable ASCII, otherwise UTF-16BE with a byte-order mark (as
    /// real producers write non-Latin titles; pdfinfo shows them right).
    static func textString(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) {
            return WinAnsi.literal(Array(text.utf8))
        }
        var hex = "<FEFF"
        for unit in text.utf16 { hex += hexByte(UInt8(unit >> 8)) + hexByte(UInt8(unit & 0xFF)) }
        return hex + ">"
    }
}
