/// RFC 3986 percent-encoding, the one codec of the modules that put text into URLs or read it back strictly: bus URLs
/// (DerivedCredential), the SOC Print inbox URL (SOCPrint), SCPms request paths.
///
/// Decoding is strict and the same for all of them: a `%` must be followed by two hex digits, the result must be
/// UTF-8, and `+` stays `+` (it means a space only in form bodies, which none of these are).
public enum Percent {
    /// `text` with every UTF-8 byte but the unreserved characters (`A-Z a-z 0-9 - . _ ~`) as `%XX`, upper-case hex.
    public static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "-._~".unicodeScalars.contains(scalar)
            {
                out.unicodeScalars.append(scalar)
            } else {
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// The text `text` encodes, or nil for a broken escape (`%`, `%2`, `%zz`) or bytes that are not UTF-8; it never
    /// guesses.
    public static func decode(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            // Two hex digits exactly: UInt8(_:radix:) alone would also take a sign ("%+a" as 0x0A), a reading no other
            // URL parser shares.
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
