import JSONEscaping

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
        case .string(let text): JSONString.appendQuoted(text, to: &out)
        case .object(let members):
            out += "{"
            for (index, (name, member)) in members.enumerated() {
                if index > 0 { out += "," }
                JSONString.appendQuoted(name, to: &out)
                out += ":"
                write(member, to: &out)
            }
            out += "}"
        }
    }
}
