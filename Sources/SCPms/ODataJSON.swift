import JSONEscaping

/// Writes JSON text in a fixed member order (OData payloads read best with `__metadata` first, and a fixed
/// order keeps traces and tests byte-stable).
public enum ODataJSON {
    /// A JSON value as this writer needs it.
    public indirect enum Value: Sendable {
        case string(String)
        case integer(Int64)
        case bool(Bool)
        case null
        case array([Value])
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
        case .integer(let number): out += String(number)
        case .bool(let flag): out += flag ? "true" : "false"
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                write(element, to: &out)
            }
            out += "]"
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
