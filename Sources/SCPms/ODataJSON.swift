/// Writes JSON text in a fixed member order (OData payloads read best with `__metadata` first, and a fixed
/// order keeps traces and tests byte-stable).
public enum ODataJSON {
    /// A JSON value as this writer needs it.
    public indirect enum Value: Sendable {
        case string(String)
        case null
        case object([(String, Value)])
    }

    /// Compact JSON text for `value`.
    public static func text(_ value: Value) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    private static func write(_ value: Value, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .string(let text): quote(text, to: &out)
        case .object(let members):
            out += "{"
            for (index, (name, member)) in members.enumerated() {
                if index > 0 { out += "," }
                quote(name, to: &out)
                out += ":"
                write(member, to: &out)
            }
            out += "}"
        }
    }

    /// RFC 8259 string escaping: quotes, backslashes and control characters.
    public static func quote(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
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
