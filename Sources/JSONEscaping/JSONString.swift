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
    ///
    /// The runs between characters to escape are appended whole: every such character is ASCII, so its byte is
    /// never inside another character's UTF-8, and appending a run costs a copy, not a step per character (the
    /// trace's canonical lines pass here for every event of every seed).
    public static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        let utf8 = text.utf8
        var run = utf8.startIndex
        var index = run
        while index != utf8.endIndex {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                utf8.formIndex(after: &index)
                continue
            }
            out += text[run..<index]
            switch byte {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case UInt8(ascii: "\n"): out += "\\n"
            case UInt8(ascii: "\r"): out += "\\r"
            case UInt8(ascii: "\t"): out += "\\t"
            default:
                let hex = String(byte, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            utf8.formIndex(after: &index)
            run = index
        }
        out += text[run..<index]
        out += "\""
    }
}
