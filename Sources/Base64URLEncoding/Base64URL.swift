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
        String(unsafeUninitializedCapacity: (bytes.count * 4 + 2) / 3) { out in
            var written = 0
            var iterator = bytes.makeIterator()
            while let b0 = iterator.next() {
                let b1 = iterator.next()
                let b2 = iterator.next()
                out[written] = alphabet[Int(b0 >> 2)]
                out[written + 1] = alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)]
                written += 2
                guard let b1 else { break }
                out[written] = alphabet[Int((b1 & 0x0F) << 2 | (b2 ?? 0) >> 6)]
                written += 1
                guard let b2 else { break }
                out[written] = alphabet[Int(b2 & 0x3F)]
                written += 1
            }
            return written
        }
    }

    /// The bytes `text` encodes, or nil when it is not strict base64url with `padding`.
    public static func decode(_ text: UnsafeBufferPointer<UInt8>, padding: Padding = .forbidden) -> [UInt8]? {
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
        return decodeTable.withUnsafeBufferPointer { table -> [UInt8]? in
            var valid = true
            let result = [UInt8](unsafeUninitializedCapacity: count * 3 / 4) { out, initialized in
                var index = 0
                var written = 0
                while index + 4 <= count {
                    let a = table[Int(text[index])]
                    let b = table[Int(text[index + 1])]
                    let c = table[Int(text[index + 2])]
                    let d = table[Int(text[index + 3])]
                    if (a | b | c | d) & 0xC0 != 0 {
                        valid = false
                        break
                    }
                    out[written] = a << 2 | b >> 4
                    out[written + 1] = b << 4 | c >> 2
                    out[written + 2] = c << 6 | d
                    written += 3
                    index += 4
                }
                let rest = count - index
                if valid && rest >= 2 {
                    let a = table[Int(text[index])]
                    let b = table[Int(text[index + 1])]
                    let c = rest == 3 ? table[Int(text[index + 2])] : 0
                    if (a | b | c) & 0xC0 != 0 {
                        valid = false
                    } else if rest == 2 {
                        if b & 0x0F != 0 { valid = false }
                        out[written] = a << 2 | b >> 4
                        written += 1
                    } else {
                        if c & 0x03 != 0 { valid = false }
                        out[written] = a << 2 | b >> 4
                        out[written + 1] = b << 4 | c >> 2
                        written += 2
                    }
                }
                initialized = written
            }
            return valid ? result : nil
        }
    }

    /// The bytes `text` encodes, or nil when it is not strict base64url with `padding`.
    public static func decode(_ text: some StringProtocol, padding: Padding = .forbidden) -> [UInt8]? {
        var copy = String(text)
        return copy.withUTF8 { decode($0, padding: padding) }
    }
}
