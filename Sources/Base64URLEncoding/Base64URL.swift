/// Base64url (RFC 4648 §5), the one codec of JWTs and of binary values in AppConnect bus URLs. Encoding writes no
/// padding (RFC 7515 §2). Decoding is strict: only the URL-safe alphabet, no white space, and unused trailing bits must
/// be zero, so one byte string has exactly one unpadded encoding; whether `=` padding may follow is the caller's
/// ``Padding`` choice.
public enum Base64URL {
    /// Whether decoding accepts `=` after the last characters.
    public enum Padding: Sendable {
        /// No `=` at all (JWTs: RFC 7515 forbids it).
        case forbidden
        /// As many `=` as complete the last group of four, or fewer, or none (bus URLs: senders differ).
        case optional
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// The encoding of `bytes`.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // Arrays and buffers take the pointer loop: called from another module this function is not specialised, and
        // iterating a collection through its witness table cost more than the rest of making a JWT (bench jwt's sign).
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode(contiguous: $0) }) { return encoded }
        return Array(bytes).withUnsafeBufferPointer { encode(contiguous: $0) }
    }

    private static func encode(contiguous bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: (bytes.count * 4 + 2) / 3) { out in
            alphabet.withUnsafeBufferPointer { alphabet in
                var written = 0
                var index = 0
                while index + 3 <= bytes.count {
                    let b0 = bytes[index]
                    let b1 = bytes[index + 1]
                    let b2 = bytes[index + 2]
                    out[written] = alphabet[Int(b0 >> 2)]
                    out[written + 1] = alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)]
                    out[written + 2] = alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)]
                    out[written + 3] = alphabet[Int(b2 & 0x3F)]
                    written += 4
                    index += 3
                }
                if index < bytes.count {
                    let b0 = bytes[index]
                    let b1: UInt8 = index + 1 < bytes.count ? bytes[index + 1] : 0
                    out[written] = alphabet[Int(b0 >> 2)]
                    out[written + 1] = alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)]
                    written += 2
                    if index + 1 < bytes.count {
                        out[written] = alphabet[Int((b1 & 0x0F) << 2)]
                        written += 1
                    }
                }
                return written
            }
        }
    }

    /// The bytes `text` encodes, or nil when it is not strict base64url with `padding`.
    public static func decode(_ text: UnsafeBufferPointer<UInt8>, padding: Padding = .forbidden) -> [UInt8]? {
        var valid = true
        let result = [UInt8](unsafeUninitializedCapacity: text.count * 3 / 4) { out, initialized in
            if let written = decode(text, into: out, padding: padding) {
                initialized = written
            } else {
                valid = false
                initialized = 0
            }
        }
        return valid ? result : nil
    }

    /// Decodes `text` into `out`, which must hold `text.count * 3 / 4` bytes, without allocating (the JWT core decodes a
    /// token's header and claims onto the stack this way).
    /// - returns: how many bytes were written, or nil when `text` is not strict base64url with `padding` (`out` may then
    ///   hold some of them).
    public static func decode(_ text: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, padding: Padding = .forbidden) -> Int?
    {
        var count = text.count
        if padding == .optional {
            var padded = 0
            while count > 0, text[count - 1] == UInt8(ascii: "=") {
                count -= 1
                padded += 1
            }
            guard padded == 0 || (count % 4 != 0 && count % 4 + padded <= 4) else { return nil }
        }
        guard count % 4 != 1 else { return nil }
        precondition(out.count >= count * 3 / 4, "Base64URL.decode(_:into:): the output holds \(out.count) bytes; \(count * 3 / 4) needed")
        return decodeTable.withUnsafeBufferPointer { table -> Int? in
            var index = 0
            var written = 0
            // Eight characters at a time, their 48 bits stored with one 8-byte write (the two bytes past them are
            // overwritten by the next group, so this runs while 8 bytes of room remain): a third fewer instructions
            // than four at a time, on the ~600 characters of a JWT.
            let raw = UnsafeMutableRawBufferPointer(out)
            while index + 8 <= count && written + 8 <= out.count {
                let a = UInt64(table[Int(text[index])])
                let b = UInt64(table[Int(text[index + 1])])
                let c = UInt64(table[Int(text[index + 2])])
                let d = UInt64(table[Int(text[index + 3])])
                let e = UInt64(table[Int(text[index + 4])])
                let f = UInt64(table[Int(text[index + 5])])
                let g = UInt64(table[Int(text[index + 6])])
                let h = UInt64(table[Int(text[index + 7])])
                if (a | b | c | d | e | f | g | h) & 0xC0 != 0 { return nil }
                let bits = a << 58 | b << 52 | c << 46 | d << 40 | e << 34 | f << 28 | g << 22 | h << 16
                raw.storeBytes(of: bits.bigEndian, toByteOffset: written, as: UInt64.self)
                written += 6
                index += 8
            }
            while index + 4 <= count {
                let a = table[Int(text[index])]
                let b = table[Int(text[index + 1])]
                let c = table[Int(text[index + 2])]
                let d = table[Int(text[index + 3])]
                if (a | b | c | d) & 0xC0 != 0 { return nil }
                out[written] = a << 2 | b >> 4
                out[written + 1] = b << 4 | c >> 2
                out[written + 2] = c << 6 | d
                written += 3
                index += 4
            }
            let rest = count - index
            if rest >= 2 {
                let a = table[Int(text[index])]
                let b = table[Int(text[index + 1])]
                let c = rest == 3 ? table[Int(text[index + 2])] : 0
                if (a | b | c) & 0xC0 != 0 { return nil }
                if rest == 2 {
                    if b & 0x0F != 0 { return nil }
                    out[written] = a << 2 | b >> 4
                    written += 1
                } else {
                    if c & 0x03 != 0 { return nil }
                    out[written] = a << 2 | b >> 4
                    out[written + 1] = b << 4 | c >> 2
                    written += 2
                }
            }
            return written
        }
    }

    /// The bytes `text` encodes, or nil when it is not strict base64url with `padding`.
    public static func decode(_ text: some StringProtocol, padding: Padding = .forbidden) -> [UInt8]? {
        var copy = String(text)
        return copy.withUTF8 { decode($0, padding: padding) }
    }
}
