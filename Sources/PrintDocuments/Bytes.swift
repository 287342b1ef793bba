/// Little-endian fields, byte searches and number formatting shared by the readers and writers. Every read is
/// bounds-checked and returns nil past the end, so a truncated file is an error to report, never a trap.
extension Array where Element == UInt8 {
    func readUInt16LE(_ offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        return UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    func readUInt32LE(_ offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16 | UInt32(self[offset + 3]) << 24
    }

    func readUInt64LE(_ offset: Int) -> UInt64? {
        guard let low = readUInt32LE(offset), let high = readUInt32LE(offset + 4) else { return nil }
        return UInt64(low) | UInt64(high) << 32
    }

    mutating func appendUInt16LE(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }

    mutating func appendUInt32LE(_ value: UInt32) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8 & 0xFF))
        append(UInt8(value >> 16 & 0xFF))
        append(UInt8(value >> 24))
    }

    mutating func append(_ text: String) { append(contentsOf: text.utf8) }

    /// Whether `pattern` occurs at `offset`.
    func matches(_ pattern: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset <= count - pattern.count else { return false }
        for index in 0..<pattern.count where self[offset + index] != pattern[index] { return false }
        return true
    }

    /// First offset in `range` where `pattern` starts (the pattern lies wholly inside the range).
    func firstOffset(of pattern: [UInt8], in range: Range<Int>) -> Int? {
        guard let first = pattern.first else { return nil }
        let lower = Swift.max(0, range.lowerBound)
        let upper = Swift.min(count, range.upperBound) - pattern.count
        guard lower <= upper else { return nil }
        return withUnsafeBufferPointer { buffer -> Int? in
            var offset = lower
            while offset <= upper {
                if buffer[offset] == first {
                    var index = 1
                    while index < pattern.count, buffer[offset + index] == pattern[index] { index += 1 }
                    if index == pattern.count { return offset }
                }
                offset += 1
            }
            return nil
        }
    }

    /// Last offset in `range` where `pattern` starts.
    func lastOffset(of pattern: [UInt8], in range: Range<Int>) -> Int? {
        guard let first = pattern.first else { return nil }
        let lower = Swift.max(0, range.lowerBound)
        let upper = Swift.min(count, range.upperBound) - pattern.count
        guard lower <= upper else { return nil }
        return withUnsafeBufferPointer { buffer -> Int? in
            var offset = upper
            while offset >= lower {
                if buffer[offset] == first {
                    var index = 1
                    while index < pattern.count, buffer[offset + index] == pattern[index] { index += 1 }
                    if index == pattern.count { return offset }
                }
                offset -= 1
            }
            return nil
        }
    }
}

extension String {
    /// `self` with every `target` replaced (Foundation-free).
    func replacing(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }

    /// The last path component (`socPrint/source.pdf` → `source.pdf`).
    var lastPathComponent: String {
        split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? self
    }

    /// The text for a diagnostic: at most `limit` characters, control characters shown as `?`.
    func excerpt(_ limit: Int = 40) -> String {
        String(unicodeScalars.prefix(limit).map { $0.value < 32 || $0.value == 127 ? "?" : Character($0) })
    }
}

/// Numbers as PDF and PostScript want them: at most two decimals, no exponent, no trailing zeros. Pure arithmetic,
/// so the same value always prints the same text.
func formatNumber(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let hundredths = (value * 100).rounded()
    guard abs(hundredths) < 1e15 else { return "0" }
    let scaled = Int(hundredths)
    let sign = scaled < 0 ? "-" : ""
    let magnitude = scaled.magnitude
    let whole = magnitude / 100
    let fraction = magnitude % 100
    if fraction == 0 { return sign + String(whole) }
    if fraction % 10 == 0 { return sign + String(whole) + "." + String(fraction / 10) }
    return sign + String(whole) + "." + (fraction < 10 ? "0" : "") + String(fraction)
}

/// A short, printable description of the first bytes of a file, for "expected X, found Y" messages.
func describePrefix(_ bytes: [UInt8]) -> String {
    if bytes.isEmpty { return "an empty file" }
    let shown = bytes.prefix(8).map { byte -> String in
        (0x20...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + hexByte(byte)
    }.joined()
    return "'\(shown)'"
}

func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
}
