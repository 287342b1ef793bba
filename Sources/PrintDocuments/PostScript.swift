/// Writes PostScript that follows Adobe's Document Structuring Conventions 3.0, so spoolers (and `lpq`, `psnup`,
/// printer accounting) see the page count in `%%Pages:` and each page behind `%%Page: i i`. Pages draw the same
/// operators as the PDF writer's content streams, defined in a small prolog, so Ghostscript renders them alike.
public enum PostScriptWriter {
    /// `%!PS-Adobe-3.0`, `%%Title`, `%%Creator`, `%%BoundingBox`, `%%Pages: N`, `%%EndComments`, a prolog,
    /// `%%Page: i i` per page, `%%Trailer`, `%%EOF`. A4 pages, landscape when asked.
    public static func document(title: String, creator: String, pages: [PDFPage], landscape: Bool = false) -> [UInt8] {
        let size: PageSize = landscape ? .a4Landscape : .a4
        return document(
            flavour: .workbench(title: title, creator: creator, landscape: landscape),
            sheets: pages.map { Sheet.page($0.lines, size: size) })
    }

    enum Flavour {
        /// Our own documents: title, creator and orientation in the header.
        case workbench(title: String, creator: String, landscape: Bool)
        /// What poppler's pdftops 22.12 writes: its header comments (with the PDF's /Creator), media per page,
        /// `%%PageTrailer`s.
        case pdftops(creator: String?)
    }

    static let pdftopsVersion = "22.12.0"

    static func document(flavour: Flavour, sheets: [Sheet]) -> [UInt8] {
        let first = sheets.first?.size ?? .a4
        let boxWidth = sheets.map(\.size.width).max() ?? first.width
        let boxHeight = sheets.map(\.size.height).max() ?? first.height
        var media: [PageSize] = []
        for sheet in sheets where !media.contains(sheet.size) { media.append(sheet.size) }
        if media.isEmpty { media = [first] }
        let mediaLines = media.enumerated().map { index, size in
            (index == 0 ? "%%DocumentMedia: " : "%%+ ") + "\(mediaName(size)) \(size.width) \(size.height) 0 () ()\n"
        }.joined()
        var out = "%!PS-Adobe-3.0\n"
        let dictionary: String
        switch flavour {
        case .workbench(let title, let creator, let landscape):
            dictionary = "WorkbenchDict"
            out += "%%Title: \(dscText(title))\n%%Creator: \(dscText(creator))\n%%LanguageLevel: 2\n"
            out += "%%BoundingBox: 0 0 \(boxWidth) \(boxHeight)\n" + mediaLines
            out += "%%Orientation: \(landscape ? "Landscape" : "Portrait")\n%%Pages: \(sheets.count)\n%%DocumentData: Clean7Bit\n"
            out += "%%EndComments\n%%BeginProlog\n" + prolog(dictionary) + "%%EndProlog\n"
        case .pdftops(let creator):
            // The header pdftops 22.12.0 writes (captured on Debian 12); the procset under its name is this
            // module's own, defining only the operators our pages use.
            dictionary = "xpdf"
            out += "%Produced by poppler pdftops version: \(pdftopsVersion) (http://poppler.freedesktop.org)\n"
            if let creator { out += "%%Creator: \(dscText(creator))\n" }
            out += "%%LanguageLevel: 2\n%%DocumentSuppliedResources: (atend)\n" + mediaLines
            out += "%%BoundingBox: 0 0 \(boxWidth) \(boxHeight)\n%%Pages: \(sheets.count)\n%%EndComments\n"
            out += "%%BeginProlog\n%%BeginResource: procset xpdf 3.00 0\n%%Copyright: Copyright 1996-2011, 2022 Glyph & Cog, LLC\n"
            out += prolog(dictionary) + "%%EndResource\n%%EndProlog\n"
        }
        out += "%%BeginSetup\n\(dictionary) begin\n%%EndSetup\n"
        var bytes = Array(out.utf8)
        for (index, sheet) in sheets.enumerated() {
            var page = "%%Page: \(index + 1) \(index + 1)\n"
            if case .pdftops = flavour { page += "%%PageMedia: \(mediaName(sheet.size))\n" }
            page += "%%PageBoundingBox: 0 0 \(sheet.size.width) \(sheet.size.height)\n"
            if case .pdftops = flavour { page += "%%PageOrientation: Portrait\n" }
            page += "%%BeginPageSetup\n\(sheet.size.width) \(sheet.size.height) setPaper\n%%EndPageSetup\nstartPage\n"
            bytes.append(page)
            bytes += sheet.content
            bytes.append("endPage\n")
            if case .pdftops = flavour { bytes.append("%%PageTrailer\n") }
        }
        switch flavour {
        case .workbench: bytes.append("%%Trailer\nend\n%%EOF\n")
        case .pdftops: bytes.append("%%Trailer\nend\n%%DocumentSuppliedResources:\n%%EOF\n")
        }
        return bytes
    }

    /// The media name pdftops gives a size: `A4`, `Letter`, else width x height in whole millimetres.
    static func mediaName(_ size: PageSize) -> String {
        if abs(size.width - 595) <= 1, abs(size.height - 842) <= 1 { return "A4" }
        if size == .letter { return "Letter" }
        return "\(size.width * 254 / 720)x\(size.height * 254 / 720)mm"
    }

    /// Header-comment text: printable ASCII only, one line.
    static func dscText(_ text: String) -> String {
        String(text.unicodeScalars.prefix(200).map { (0x20...0x7E).contains($0.value) ? Character($0) : "?" })
    }

    /// The PDF text operators the pages use (q Q cm re W n BT ET Tf Td TL Tj T*), and Helvetica re-encoded to
    /// WinAnsi like the PDF's font, inside a private dictionary.
    static func prolog(_ dictionary: String) -> String {
        let winAnsi = WinAnsi.glyphNames.map { "dup 16#\(String($0.0, radix: 16)) /\($0.1) put" }.joined(separator: " ")
        return """
            /\(dictionary) 40 dict def
            \(dictionary) begin
            /setPaper { 2 array astore << /PageSize 3 -1 roll >> setpagedevice } bind def
            /startPage { save /pageSave exch def } bind def
            /endPage { pageSave restore showpage } bind def
            /q { gsave } bind def
            /Q { grestore } bind def
            /cm { 6 array astore concat } bind def
            /re { 4 2 roll moveto 1 index 0 rlineto 0 exch rlineto neg 0 rlineto closepath } bind def
            /W { clip } bind def
            /n { newpath } bind def
            /BT { /tx 0 def /ty 0 def } bind def
            /ET { } bind def
            /Tf { exch pop /Helvetica-WinAnsi findfont exch scalefont setfont } bind def
            /Td { ty add /ty exch def tx add /tx exch def } bind def
            /TL { /tl exch def } bind def
            /T* { /ty ty tl sub def } bind def
            /Tj { tx ty moveto show } bind def
            /tx 0 def /ty 0 def /tl 0 def
            /Helvetica findfont dup length dict begin
              { 1 index /FID ne { def } { pop pop } ifelse } forall
              /Encoding ISOLatin1Encoding 256 array copy
                dup 16#27 /quotesingle put dup 16#60 /grave put dup 16#2d /hyphen put
                \(winAnsi)
              def
              currentdict
            end
            /Helvetica-WinAnsi exch definefont pop
            end

            """
    }
}

/// Reads what a spooler needs of PostScript.
public enum PostScriptReader {
    /// Whether the data is PostScript: it starts with `%!` (after a ^D, which Windows drivers put first).
    public static func isPostScript(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x25, 0x21]) || bytes.starts(with: [0x04, 0x25, 0x21])
    }

    /// The DSC page count: the header's `%%Pages: N`; for `%%Pages: (atend)` the one after `%%Trailer`; without
    /// either (or with a count beyond ``DocumentLimits/maximumPages``), the number of `%%Page:` comments outside
    /// embedded documents. nil when the data is not PostScript or its pages cannot be counted within the limit.
    public static func pageCount(_ bytes: [UInt8]) -> Int? {
        guard isPostScript(bytes), bytes.count <= DocumentLimits.maximumDocumentBytes else { return nil }
        var headerCount: Int?
        var atEnd = false
        var trailerCount: Int?
        var inHeader = true
        var inTrailer = false
        var embedded = 0
        var pageComments = 0
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A, bytes[lineEnd] != 0x0D { lineEnd += 1 }
            if lineEnd - lineStart >= 2, bytes[lineStart] == 0x25, bytes[lineStart + 1] == 0x25 {
                let line = bytes[lineStart..<min(lineEnd, lineStart + 200)]
                func starts(_ keyword: String) -> Bool { line.starts(with: keyword.utf8) }
                if starts("%%EndComments") || starts("%%BeginProlog") {
                    inHeader = false
                } else if starts("%%BeginDocument") {
                    embedded += 1
                } else if starts("%%EndDocument") {
                    embedded = max(0, embedded - 1)
                } else if embedded == 0, starts("%%Trailer") {
                    inTrailer = true
                } else if embedded == 0, starts("%%Pages:") {
                    let value = String(decoding: line.dropFirst(8), as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
                    if value == "(atend)" {
                        if inHeader { atEnd = true }
                    } else if let number = value.count <= 9 ? Int(value) : nil {
                        if inHeader, headerCount == nil, !atEnd { headerCount = number }
                        if inTrailer { trailerCount = number }
                    }
                } else if embedded == 0, starts("%%Page:") {
                    pageComments += 1
                }
            } else if lineEnd > lineStart, bytes[lineStart] != 0x25 {
                inHeader = false  // the header ends at the first non-comment line
            }
            lineStart = lineEnd + 1
        }
        let declared = atEnd ? trailerCount : headerCount
        if let declared, (0...DocumentLimits.maximumPages).contains(declared) { return declared }
        return pageComments <= DocumentLimits.maximumPages ? pageComments : nil
    }
}
