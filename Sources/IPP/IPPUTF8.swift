/// UTF-8 validation of names and string values at decode time, so that the typed views (`IPPStringView`) of a
/// decoded message only ever hold valid UTF-8 and a String made from one never needs repairing.
enum IPPUTF8 {
    /// The offset of the first byte of `start..<start + count` that does not belong to well-formed UTF-8 (RFC 3629:
    /// no overlong forms, no surrogates, nothing above U+10FFFF), or nil when every byte does.
    @inline(__always)
    static func firstInvalidByte(_ bytes: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int? {
        isASCII(bytes + start, count: count) ? nil : firstInvalidByte(beyondASCII: bytes, from: start, end: start + count)
    }

    /// Whether no byte has its high bit set. Names and most values are ASCII, so this is the common case: the bytes
    /// are ORed together eight (or four) at a time, the last load overlapping the one before, and tested once.
    @inline(__always)
    static func isASCII(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        let raw = UnsafeRawPointer(bytes)
        if count >= 8 {
            var bits = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            var offset = 0
            while offset + 8 <= count {
                bits |= raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            return bits & 0x8080_8080_8080_8080 == 0
        }
        if count >= 4 {
            let bits = raw.loadUnaligned(as: UInt32.self) | raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            return bits & 0x8080_8080 == 0
        }
        var bits: UInt8 = 0
        for offset in 0..<count { bits |= bytes[offset] }
        return bits < 0x80
    }

    /// The multi-byte part of `firstInvalidByte`, out of line so that the ASCII loop stays small.
    @inline(never)
    static func firstInvalidByte(beyondASCII bytes: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int? {
        var position = start
        while position < end {
            let lead = bytes[position]
            if lead < 0x80 {
                position += 1
                continue
            }
            // Continuation bytes after the lead, and the range the first of them must fall in.
            let continuations: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: continuations = 1
            case 0xE0:
                continuations = 2
                low = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: continuations = 2
            case 0xED:
                continuations = 2
                high = 0x9F
            case 0xF0:
                continuations = 3
                low = 0x90
            case 0xF1...0xF3: continuations = 3
            case 0xF4:
                continuations = 3
                high = 0x8F
            default: return position
            }
            guard position + continuations < end, (low...high).contains(bytes[position + 1]) else { return position }
            for offset in stride(from: 2, through: continuations, by: 1) where bytes[position + offset] & 0xC0 != 0x80 {
                return position
            }
            position += continuations + 1
        }
        return nil
    }
}
