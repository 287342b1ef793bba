/// Small documents a printer counts the pages of, for the tests of MiG and of clients printing to it.
public enum TestDocuments {
    /// A PDF of `pages` A4 pages with a page tree and cross-reference table, as a PDF reader counts them.
    public static func pdf(pages: Int) -> [UInt8] {
        var objects = ["<< /Type /Catalog /Pages 2 0 R >>",
                       "<< /Type /Pages /Kids [\((0..<pages).map { "\(3 + $0 * 2) 0 R" }.joined(separator: " "))] /Count \(pages) >>"]
        for page in 0..<pages {
            let content = "BT /F1 24 Tf 72 720 Td (Page \(page + 1)) Tj ET"
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents \(4 + page * 2) 0 R "
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

    /// PWG raster (PWG 5102.4): `pages` white 1-inch pages, 8-bit grey at 300 dpi, each a 1796-byte page header and
    /// its run-length encoded lines.
    public static func pwgRaster(pages: Int) -> [UInt8] {
        let size: UInt32 = 300
        var out = Array("RaS2".utf8)
        for page in 1...pages {
            var header = [UInt8](repeating: 0, count: 1796)
            func put(_ value: UInt32, at offset: Int) { withUnsafeBytes(of: value.bigEndian) { header.replaceSubrange(offset..<offset + 4, with: $0) } }
            header.replaceSubrange(0..<9, with: Array("PwgRaster".utf8))
            put(300, at: 276)
            put(300, at: 280)  // HWResolution
            put(72, at: 352)
            put(72, at: 356)  // PageSize, points
            put(size, at: 372)  // cupsWidth
            put(size, at: 376)  // cupsHeight
            put(8, at: 384)  // cupsBitsPerColor
            put(8, at: 388)  // cupsBitsPerPixel
            put(size, at: 392)  // cupsBytesPerLine
            put(18, at: 400)  // cupsColorSpace: sgray
            put(1, at: 420)  // cupsNumColors
            put(UInt32(pages), at: 452)  // TotalPageCount
            _ = page
            out += header
            // Lines: 256 identical lines, then 44; each line 128 + 128 + 44 white pixels.
            let line: [UInt8] = [127, 0xFF, 127, 0xFF, 43, 0xFF]
            out += [255] + line + [43] + line
        }
        return out
    }

    /// Apple raster (`image/urf`, as AirPrint clients send): "UNIRAST\0" and the page count, then `pages` white
    /// 1-inch pages, 8-bit grey at 300 dpi, each a 32-byte page header and its run-length encoded lines (the same
    /// line encoding as PWG raster).
    public static func appleRaster(pages: Int, declaring declared: Int? = nil) -> [UInt8] {
        func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        var out = Array("UNIRAST\0".utf8) + bigEndian(UInt32(declared ?? pages))
        for _ in 0..<pages {
            var header = [UInt8](repeating: 0, count: 32)
            header[0] = 8  // bits per pixel
            header[1] = 0  // colour space: sGray
            header.replaceSubrange(12..<16, with: bigEndian(300))  // width
            header.replaceSubrange(16..<20, with: bigEndian(300))  // height
            header.replaceSubrange(20..<24, with: bigEndian(300))  // resolution
            out += header
            let line: [UInt8] = [127, 0xFF, 127, 0xFF, 43, 0xFF]
            out += [255] + line + [43] + line
        }
        return out
    }
}
