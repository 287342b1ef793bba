/// A JSON value as the strict parser read it. Numbers keep their kind: JWT timestamps must be integers,
/// so `1497577381.0` and `"1497577381"` are told apart from `1497577381` instead of being coerced.
///
/// Not `indirect`: the arrays already give recursion a heap home, and an indirect enum boxes every value
/// (one allocation per claim), which the verify profile showed.
public enum JSONValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    /// A number with a fraction or exponent (or beyond 64 bits), kept as written.
    case fractional(String)
    case bool(Bool)
    case null
    case array([JSONValue])
    /// Members in document order; the parser guarantees the names are unique.
    case object([JSONMember])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.fractional(let a), .fractional(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    /// What a message shows for a value of the wrong type.
    var kindName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .fractional(let text): "the non-integer number \(text)"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// One member of a JSON object. A struct rather than a tuple: arrays of tuples need their type metadata
/// built at run time, which showed up in the verify profile.
public struct JSONMember: Equatable, Sendable {
    public let name: String
    public let value: JSONValue
}

/// A strict RFC 8259 parser for the small objects a JWT carries: no duplicate member names, no trailing
/// data, UTF-8 only, bounded depth. Duplicates are refused because parsers disagree on which copy wins —
/// a signer and a verifier could read different claims from the same signed bytes.
public enum StrictJSON {
    /// Deepest nesting accepted.
    public static let maxDepth = 16

    /// Parses `bytes` as one JSON object.
    /// - throws: ``JWTError`` with code `invalidJSON` or `duplicateMember`; `what` names the part in messages.
    public static func parseObject(_ bytes: UnsafeBufferPointer<UInt8>, what: String) throws(JWTError) -> [JSONMember] {
        var parser = Parser(bytes: bytes, what: what)
        parser.skipSpace()
        guard parser.peek == UInt8(ascii: "{") else { throw parser.error("expected a JSON object starting with '{'") }
        guard case .object(let members) = try parser.value(depth: 0) else { throw parser.error("expected a JSON object") }
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.error("unexpected data after the JSON object") }
        return members
    }

    /// Parses `bytes` as one JSON object.
    public static func parseObject(_ bytes: [UInt8], what: String) throws(JWTError) -> [JSONMember] {
        try bytes.withUnsafeBufferPointer { buffer in Result { () throws(JWTError) in try parseObject(buffer, what: what) } }.get()
    }

    /// Not private: ``JWTObjectReader`` reads a token's header and claims with this parser's rules and messages.
    struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        let what: String
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>, what: String) {
            self.bytes = bytes
            self.what = what
        }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        func error(_ message: String) -> JWTError {
            JWTError(.invalidJSON, "\(what) is not valid JSON at byte \(index): \(message)")
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func expect(_ byte: UInt8, _ message: String) throws(JWTError) {
            skipSpace()
            guard peek == byte else { throw error(message) }
            index += 1
        }

        mutating func value(depth: Int) throws(JWTError) -> JSONValue {
            guard depth < StrictJSON.maxDepth else { throw error("nested deeper than \(StrictJSON.maxDepth) levels") }
            skipSpace()
            guard let byte = peek else { throw error("expected a value, found the end") }
            switch byte {
            case UInt8(ascii: "{"):
                index += 1
                var members: [JSONMember] = []
                members.reserveCapacity(8)
                skipSpace()
                if peek == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard peek == UInt8(ascii: "\"") else { throw error("expected a member name in double quotes") }
                    let name = try string()
                    if members.contains(where: { $0.name == name }) {
                        throw JWTError(.duplicateMember, "\(what) has the member \"\(name)\" twice; expected each name once")
                    }
                    try expect(UInt8(ascii: ":"), "expected ':' after the member name \"\(name)\"")
                    members.append(JSONMember(name: name, value: try value(depth: depth + 1)))
                    skipSpace()
                    if peek == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    if peek == UInt8(ascii: "}") {
                        index += 1
                        return .object(members)
                    }
                    throw error("expected ',' or '}' in an object")
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [JSONValue] = []
                skipSpace()
                if peek == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                }
                while true {
                    elements.append(try value(depth: depth + 1))
                    skipSpace()
                    if peek == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    if peek == UInt8(ascii: "]") {
                        index += 1
                        return .array(elements)
                    }
                    throw error("expected ',' or ']' in an array")
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return try number()
            default:
                throw error("unexpected character '\(Unicode.Scalar(byte))'")
            }
        }

        mutating func literal(_ word: StaticString) throws(JWTError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error("expected \(word)") }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
                throw error("expected \(word)")
            }
            index += count
        }

        mutating func number() throws(JWTError) -> JSONValue {
            let start = index
            var negative = false
            if peek == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            guard let first = peek, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { throw error("expected a digit") }
            // Integers are accumulated here rather than through String and Int64(_:), which the profile
            // showed costing more than the rest of the claims parse.
            var magnitude: UInt64 = 0
            var fits = true
            if first == UInt8(ascii: "0") {
                index += 1
                if let next = peek, next >= UInt8(ascii: "0"), next <= UInt8(ascii: "9") { throw error("numbers may not have leading zeros") }
            } else {
                while let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") {
                    let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
                    if overflow1 || overflow2 { fits = false }
                    magnitude = sum
                    index += 1
                }
            }
            var integral = true
            if peek == UInt8(ascii: ".") {
                integral = false
                index += 1
                guard let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { throw error("expected a digit after '.'") }
                while let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") { index += 1 }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                integral = false
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else {
                    throw error("expected a digit in the exponent")
                }
                while let digit = peek, digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") { index += 1 }
            }
            if integral && fits {
                if !negative && magnitude <= UInt64(Int64.max) { return .integer(Int64(magnitude)) }
                if negative && magnitude <= UInt64(Int64.max) + 1 { return .integer(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)) }
            }
            return .fractional(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        }

        mutating func string() throws(JWTError) -> String {
            index += 1  // the opening quote
            let start = index
            // Fast path: no escapes. ASCII needs no UTF-8 validation, and String(decoding:) on a buffer is far
            // cheaper than the generic String(validating:as:).
            var ascii = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    if ascii { return String(decoding: raw, as: UTF8.self) }
                    guard let text = String(validating: raw, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
                    return text
                }
                if byte >= 0x80 { ascii = false }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw error("control characters must be escaped in strings") }
                index += 1
            }
            var scalars = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: scalars, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    guard let escape = peek else { throw error("unterminated escape") }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800...0xDBFF).contains(code) {
                            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                                throw error("a high surrogate must be followed by a low surrogate")
                            }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(code) {
                            throw error("a lone low surrogate")
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                        scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default:
                        throw error("unknown escape '\\\(Unicode.Scalar(escape))'")
                    }
                default:
                    if byte < 0x20 { throw error("control characters must be escaped in strings") }
                    scalars.append(byte)
                }
            }
            throw error("unterminated string")
        }

        mutating func hex4() throws(JWTError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("expected four hex digits after \\u") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw error("expected four hex digits after \\u")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }
    }
}

/// Writes JSON strings with the escapes RFC 8259 requires (and nothing else, so output is canonical). `package`, not
/// public: the fuzz target JWTFuzz writes parsed values back with it.
package enum JSONWriter {
    package static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
                ])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    static func appendMember(_ name: String, string value: String, to out: inout [UInt8]) {
        if out.count > 1 { out.append(UInt8(ascii: ",")) }
        appendString(name, to: &out)
        out.append(UInt8(ascii: ":"))
        appendString(value, to: &out)
    }

    static func appendMember(_ name: String, integer value: Int64, to out: inout [UInt8]) {
        if out.count > 1 { out.append(UInt8(ascii: ",")) }
        appendString(name, to: &out)
        out.append(UInt8(ascii: ":"))
        out.append(contentsOf: String(value).utf8)
    }
}
