import Foundation

/// Small documents a printer counts the pages of, for the tests of MiG and of clients printing to it.
public enum TestDocuments {
    /// A PDF of `pages` A4 pages with a page tree and cross-reference table, as a PDF reader counts them.
    public static func pdf(pages: Int) -> [UInt8] {
        var objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [\((0..<pages).map { "\(3 + $0 * 2) 0 R" }.joined(separator: " "))] /Count \(pages) >>",
        ]
        for page in 0..<pages {
            let content = "BT /F1 24 Tf 72 720 Td (Page \(page + 1)) Tj ET"
            objects.append(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents \(4 + page * 2) 0 R "
                    + "/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>")
            objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
        }
        var out = Array("%PDF-1.4\n".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(index + 1) 0 obj\n\(object)\nendobj\n".utf8)
        }
        let xref = out.count
        out += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets { out += Array((String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n").utf8) }
        out += Array("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return out
    }

    /// PWG raster (PWG 5102.4): `pages` white pages of `size` points (A4 by default) at `dpi` in `type` (a
    /// pwg-raster-document-type: black_1, sgray_8, srgb_8, srgb_16, cmyk_8), each a 1796-byte page header and its
    /// run-length encoded lines.
    public static func pwgRaster(pages: Int, dpi: Int = 300, type: String = "sgray_8", size: (width: Int, length: Int) = (595, 842)) -> [UInt8] {
        // Bits per colour, colours, CUPS colour space, the white pixel's byte.
        let (bitsPerColor, colors, colorSpace, white): (Int, Int, UInt32, UInt8) =
            switch type {
            case "black_1": (1, 1, 3, 0x00)
            case "srgb_8": (8, 3, 19, 0xFF)
            case "srgb_16": (16, 3, 19, 0xFF)
            case "cmyk_8": (8, 4, 6, 0x00)
            default: (8, 1, 18, 0xFF)
            }
        let bitsPerPixel = bitsPerColor * colors
        let (width, height) = ((size.width * dpi + 36) / 72, (size.length * dpi + 36) / 72)
        let bytesPerLine = (width * bitsPerPixel + 7) / 8
        // The unit a run repeats: a pixel, or a byte of pixels below 8 bits.
        let unit = max(1, bitsPerPixel / 8)
        var out = Array("RaS2".utf8)
        for _ in 1...pages {
            var header = [UInt8](repeating: 0, count: 1796)
            func put(_ value: Int, at offset: Int) {
                withUnsafeBytes(of: UInt32(value).bigEndian) { header.replaceSubrange(offset..<offset + 4, with: $0) }
            }
            header.replaceSubrange(0..<9, with: Array("PwgRaster".utf8))
            put(dpi, at: 276)
            put(dpi, at: 280)  // HWResolution
            put(size.width, at: 352)
            put(size.length, at: 356)  // PageSize, points
            put(width, at: 372)  // cupsWidth
            put(height, at: 376)  // cupsHeight
            put(bitsPerColor, at: 384)
            put(bitsPerPixel, at: 388)
            put(bytesPerLine, at: 392)
            put(Int(colorSpace), at: 400)
            put(colors, at: 420)  // cupsNumColors
            put(pages, at: 452)  // TotalPageCount
            out += header
            // One white line, in runs of at most 128 units; repeated in groups of at most 256 lines.
            var line: [UInt8] = []
            var units = bytesPerLine / unit
            while units > 0 {
                let run = min(128, units)
                line += [UInt8(run - 1)] + [UInt8](repeating: white, count: unit)
                units -= run
            }
            var lines = height
            while lines > 0 {
                let group = min(256, lines)
                out += [UInt8(group - 1)] + line
                lines -= group
            }
        }
        return out
    }

    /// Apple raster (`image/urf`, as AirPrint clients send): "UNIRAST\0" and the page count, then `pages` white A4
    /// pages, 8-bit grey at 300 dpi, each a 32-byte page header and its run-length encoded lines (the same line
    /// encoding as PWG raster).
    public static func appleRaster(pages: Int, declaring declared: Int? = nil) -> [UInt8] {
        func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        // A4 at 300 dpi: 595 × 842 points.
        let (width, height) = (2480, 3508)
        var out = Array("UNIRAST\0".utf8) + bigEndian(UInt32(declared ?? pages))
        // One white line, in runs of at most 128 pixels; repeated in groups of at most 256 lines.
        var line: [UInt8] = []
        var pixels = width
        while pixels > 0 {
            line += [UInt8(min(128, pixels) - 1), 0xFF]
            pixels -= min(128, pixels)
        }
        for _ in 0..<pages {
            var header = [UInt8](repeating: 0, count: 32)
            header[0] = 8  // bits per pixel
            header[1] = 0  // colour space: sGray
            header.replaceSubrange(12..<16, with: bigEndian(UInt32(width)))
            header.replaceSubrange(16..<20, with: bigEndian(UInt32(height)))
            header.replaceSubrange(20..<24, with: bigEndian(300))  // resolution
            out += header
            var lines = height
            while lines > 0 {
                out += [UInt8(min(256, lines) - 1)] + line
                lines -= min(256, lines)
            }
        }
        return out
    }

    /// The documents an ipptool suite prints, next to it: PDF, PostScript and JPEG under the names CUPS' tests use
    /// (Debian ships the tests, not the documents), and every PWG raster sample the suite names (`FILE
    /// pwg-raster-samples-300dpi/sgray-8/….pwg`, which PWG publishes separately), made at the resolution and type its
    /// path says. ipptool stops at the first file missing, even in a test it would skip, so all of them are written.
    public static func writeIpptoolDocuments(for suite: String) throws {
        let directory = URL(fileURLWithPath: suite).deletingLastPathComponent()
        func write(_ bytes: [UInt8], _ path: String) throws {
            let file = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: file)
        }
        for name in ["document-a4.pdf", "document-letter.pdf", "testfile.pdf"] { try write(pdf(pages: 1), name) }
        let postscript = Array("%!PS-Adobe-3.0\n%%Pages: 1\n%%EndComments\n%%Page: 1 1\nshowpage\n%%EOF\n".utf8)
        for name in ["document-a4.ps", "document-letter.ps"] { try write(postscript, name) }
        for name in ["color.jpg", "gray.jpg"] { try write([0xFF, 0xD8, 0xFF, 0xE0], name) }
        let samples = Set(
            try String(contentsOfFile: suite, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
                let words = line.split(whereSeparator: \.isWhitespace)
                return words.count == 2 && words[0] == "FILE" && words[1].hasPrefix("pwg-raster-samples-") ? String(words[1]) : nil
            })
        for path in samples.sorted() {
            let parts = path.split(separator: "/")  // pwg-raster-samples-300dpi, sgray-8, its name
            guard parts.count == 3, let dpi = Int(parts[0].dropFirst("pwg-raster-samples-".count).dropLast("dpi".count)) else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "an unexpected sample path in \(suite): \(path)"])
            }
            try write(
                pwgRaster(pages: parts[2].hasPrefix("document-") ? 2 : 1, dpi: dpi, type: parts[1].replacingOccurrences(of: "-", with: "_")), path)
        }
    }
}
