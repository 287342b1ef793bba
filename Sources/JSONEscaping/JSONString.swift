/// JSON string literals (RFC 8259, section 7), the one escaper every module that writes JSON by hand uses:
/// the trace's canonical lines, OData payloads, IMS answers, bench reports.
///
/// Escapes what a string may not contain as itself — `"`, `\` and the control characters U+0000 to U+001F —
/// using the short forms `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t` where they exist and `\u00XX` (lower-case hex)
/// otherwise. Everything else, non-ASCII included, is kept as it is (UTF-8 on output); `/` is not escaped.
public enum JSONString {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var out = ""
        appendQuoted(text, to: &out)
        return out
    }

    /// Appends `text` as a JSON string literal, quotes included, to `out`.
    public static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
