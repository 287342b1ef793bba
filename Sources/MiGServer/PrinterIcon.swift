import CZlib

/// The printer's icons (`printer-icons`, PWG 5100.13: 48×48 and 128×128 PNG), drawn here rather than shipped as
/// files so every MiG serves the same bytes at `/icon-48.png` and `/icon-128.png`.
enum PrinterIcon {
    static let sizes = [48, 128]

    /// The path an icon is served at.
    static func path(size: Int) -> String { "/icon-\(size).png" }

    /// The PNG served at `path`, if it is an icon's.
    static func png(at path: String) -> [UInt8]? {
        sizes.first { Self.path(size: $0) == path }.map(Self.cache)
    }

    private static func cache(_ size: Int) -> [UInt8] { size == 48 ? small : large }
    private static let small = draw(size: 48)
    private static let large = draw(size: 128)

    /// A grey printer with a white sheet coming out of it, 8-bit greyscale.
    static func draw(size: Int) -> [UInt8] {
        var rows: [UInt8] = []
        rows.reserveCapacity(size * (size + 1))
        let unit = Double(size) / 16
        for y in 0..<size {
            rows.append(0)  // PNG filter type: none
            for x in 0..<size {
                let (u, v) = (Double(x) / unit, Double(y) / unit)
                let sheet = u >= 4 && u < 12 && v >= 1 && v < 7
                let body = u >= 1 && u < 15 && v >= 6 && v < 13
                let slot = u >= 4 && u < 12 && v >= 10 && v < 11
                rows.append(slot ? 0x20 : sheet ? 0xD8 : body ? 0x60 : 0xFF)
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk("IHDR", bigEndian(UInt32(size)) + bigEndian(UInt32(size)) + [8, 0, 0, 0, 0], into: &png)
        chunk("IDAT", deflate(rows), into: &png)
        chunk("IEND", [], into: &png)
        return png
    }

    private static func chunk(_ type: String, _ data: [UInt8], into png: inout [UInt8]) {
        let typed = Array(type.utf8) + data
        png += bigEndian(UInt32(data.count)) + typed
        png += bigEndian(UInt32(typed.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }))
    }

    private static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&output, &length, bytes, uLong(bytes.count), Z_BEST_COMPRESSION)
        precondition(status == Z_OK, "zlib compress2 failed on a buffer it sized itself")
        return Array(output.prefix(Int(length)))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
}
