/// A PDF object as the file spells it (ISO 32000-1 §7.3). Streams keep their data as a range of the file.
indirect enum PDFObject: Sendable {
    case null
    case boolean(Bool)
    case integer(Int)
    case real(Double)
    case string([UInt8])
    case name(String)
    case array([PDFObject])
    case dictionary([String: PDFObject])
    case reference(number: Int, generation: Int)
    case stream([String: PDFObject], Range<Int>)

    var dictionary: [String: PDFObject]? {
        switch self {
        case .dictionary(let dictionary), .stream(let dictionary, _): dictionary
        default: nil
        }
    }

    var integer: Int? {
        switch self {
        case .integer(let value): value
        case .real(let value) where value.isFinite && abs(value) < 1e15 && value == value.rounded(): Int(value)
        default: nil
        }
    }

    var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }

    var name: String? { if case .name(let name) = self { name } else { nil } }
    var array: [PDFObject]? { if case .array(let array) = self { array } else { nil } }
    var string: [UInt8]? { if case .string(let bytes) = self { bytes } else { nil } }
    var referenceNumber: Int? { if case .reference(let number, _) = self { number } else { nil } }
}

/// The lexical level of PDF (and, being the same for the operators it handles, of content streams): tokens,
/// objects, with every length and depth bounded.
struct PDFScanner {
    enum Token: Equatable {
        case integer(Int)
        case real(Double)
        case string([UInt8])
        case name(String)
        case keyword(String)
        case arrayOpen, arrayClose, dictionaryOpen, dictionaryClose, braceOpen, braceClose
    }

    let bytes: [UInt8]
    var position: Int
    let end: Int

    init(_ bytes: [UInt8], at position: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.position = max(0, position)
        self.end = min(bytes.count, end ?? bytes.count)
    }

    /// PDF's white-space characters (§7.2.2): NUL, HT, LF, FF, CR, SP.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C || byte == 0x00
    }

    /// PDF's delimiters: ( ) < > [ ] { } / %.
    static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x28, 0x29, 0x3C, 0x3E, 0x5B, 0x5D, 0x7B, 0x7D, 0x2F, 0x25: true
        default: false
        }
    }

    static func isRegular(_ byte: UInt8) -> Bool { !isWhitespace(byte) && !isDelimiter(byte) }

    mutating func skipWhitespace() {
        while position < end {
            let byte = bytes[position]
            if Self.isWhitespace(byte) {
                position += 1
            } else if byte == 0x25 {  // % comment to end of line
                while position < end, bytes[position] != 0x0A, bytes[position] != 0x0D { position += 1 }
            } else {
                return
            }
        }
    }

    /// The next token, nil at the end of the data.
    mutating func nextToken() throws(DocumentError) -> Token? {
        skipWhitespace()
        guard position < end else { return nil }
        let start = position
        let byte = bytes[position]
        switch byte {
        case 0x28: return .string(try literalString())
        case 0x3C:
            if position + 1 < end, bytes[position + 1] == 0x3C {
                position += 2
                return .dictionaryOpen
            }
            return .string(try hexString())
        case 0x3E:
            if position + 1 < end, bytes[position + 1] == 0x3E {
                position += 2
                return .dictionaryClose
            }
            throw DocumentError("PDF syntax error at byte \(start): a lone '>'")
        case 0x5B:
            position += 1
            return .arrayOpen
        case 0x5D:
            position += 1
            return .arrayClose
        case 0x7B:
            position += 1
            return .braceOpen
        case 0x7D:
            position += 1
            return .braceClose
        case 0x2F: return .name(name())
        case 0x29: throw DocumentError("PDF syntax error at byte \(start): a lone ')'")
        default:
            let word = regularRun()
            return Self.number(word) ?? .keyword(String(decoding: word.prefix(64), as: UTF8.self))
        }
    }

    /// The run of regular characters at the position (a keyword or a number); only its first 256 bytes are kept, so a
    /// binary blob cannot make a huge token.
    private mutating func regularRun() -> ArraySlice<UInt8> {
        let start = position
        while position < end, Self.isRegular(bytes[position]) { position += 1 }
        return bytes[start..<min(position, start + 256)]
    }

    /// A PDF number (`12`, `-3`, `+.5`, `4.`), or nil when the word is not one.
    static func number(_ word: ArraySlice<UInt8>) -> Token? {
        var digits = 0
        var dots = 0
        for (offset, byte) in word.enumerated() {
            switch byte {
            case 0x30...0x39: digits += 1
            case 0x2E: dots += 1
            case 0x2B where offset == 0, 0x2D where offset == 0: continue
            default: return nil
            }
        }
        guard digits > 0, dots <= 1 else { return nil }
        let text = String(decoding: word, as: UTF8.self)
        if dots == 0, digits <= 18, let value = Int(text) { return .integer(value) }
        // Reals, and integers too long for Int (kept approximately, as readers do).
        var normalized = text
        if normalized.hasPrefix("+") { normalized.removeFirst() }
        if normalized.hasPrefix(".") { normalized = "0" + normalized }
        if normalized.hasPrefix("-.") { normalized = "-0" + normalized.dropFirst() }
        if normalized.hasSuffix(".") { normalized += "0" }
        return .real(Double(normalized) ?? 0)
    }

    private mutating func name() -> String {
        position += 1  // the '/'
        var out: [UInt8] = []
        while position < end, Self.isRegular(bytes[position]), out.count < 256 {
            let byte = bytes[position]
            if byte == 0x23, position + 2 < end, let high = Self.hexValue(bytes[position + 1]), let low = Self.hexValue(bytes[position + 2]) {
                out.append(high << 4 | low)  // #xx escape
                position += 3
            } else {
                out.append(byte)
                position += 1
            }
        }
        while position < end, Self.isRegular(bytes[position]) { position += 1 }
        return String(decoding: out, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    private mutating func literalString() throws(DocumentError) -> [UInt8] {
        let start = position
        position += 1
        var out: [UInt8] = []
        var depth = 1
        while position < end {
            let byte = bytes[position]
            position += 1
            switch byte {
            case 0x28:
                depth += 1
                out.append(byte)
            case 0x29:
                depth -= 1
                if depth == 0 { return out }
                out.append(byte)
            case 0x5C:
                guard position < end else { break }
                let escaped = bytes[position]
                position += 1
                switch escaped {
                case 0x6E: out.append(0x0A)  // \n
                case 0x72: out.append(0x0D)  // \r
                case 0x74: out.append(0x09)  // \t
                case 0x62: out.append(0x08)  // \b
                case 0x66: out.append(0x0C)  // \f
                case 0x0D:  // line continuation
                    if position < end, bytes[position] == 0x0A { position += 1 }
                case 0x0A: break
                case 0x30...0x37:  // \ddd octal
                    var value = Int(escaped - 0x30)
                    var count = 1
                    while count < 3, position < end, (0x30...0x37).contains(bytes[position]) {
                        value = value * 8 + Int(bytes[position] - 0x30)
                        position += 1
                        count += 1
                    }
                    out.append(UInt8(truncatingIfNeeded: value))
                default: out.append(escaped)
                }
            default: out.append(byte)
            }
        }
        throw DocumentError("PDF syntax error at byte \(start): a string that never closes")
    }

    private mutating func hexString() throws(DocumentError) -> [UInt8] {
        let start = position
        position += 1
        var out: [UInt8] = []
        var pending: UInt8?
        while position < end {
            let byte = bytes[position]
            position += 1
            if byte == 0x3E {
                if let high = pending { out.append(high << 4) }
                return out
            }
            if Self.isWhitespace(byte) { continue }
            guard let value = Self.hexValue(byte) else {
                throw DocumentError("PDF syntax error at byte \(position - 1): '\(UnicodeScalar(byte))' in a hex string")
            }
            if let high = pending {
                out.append(high << 4 | value)
                pending = nil
            } else {
                pending = value
            }
        }
        throw DocumentError("PDF syntax error at byte \(start): a hex string that never closes")
    }

    /// The next object: a direct value, or `N G R` as a reference.
    mutating func parseObject(depth: Int = 0) throws(DocumentError) -> PDFObject {
        guard let token = try nextToken() else { throw DocumentError("PDF ends where an object was expected") }
        return try parseObject(startingWith: token, depth: depth)
    }

    mutating func parseObject(startingWith token: Token, depth: Int) throws(DocumentError) -> PDFObject {
        guard depth <= DocumentLimits.maximumNesting else {
            throw DocumentError("PDF objects nested deeper than \(DocumentLimits.maximumNesting) levels")
        }
        switch token {
        case .integer(let value):
            // `N G R`: look two tokens ahead, and step back when it is not a reference.
            let saved = position
            if value >= 0, case .integer(let generation)? = try? nextToken(), generation >= 0,
                case .keyword("R")? = try? nextToken()
            {
                return .reference(number: value, generation: generation)
            }
            position = saved
            return .integer(value)
        case .real(let value): return .real(value)
        case .string(let bytes): return .string(bytes)
        case .name(let name): return .name(name)
        case .keyword("true"): return .boolean(true)
        case .keyword("false"): return .boolean(false)
        case .keyword("null"): return .null
        case .arrayOpen:
            var elements: [PDFObject] = []
            while true {
                guard let next = try nextToken() else { throw DocumentError("PDF ends inside an array") }
                if next == .arrayClose { return .array(elements) }
                elements.append(try parseObject(startingWith: next, depth: depth + 1))
            }
        case .dictionaryOpen:
            var dictionary: [String: PDFObject] = [:]
            while true {
                guard let next = try nextToken() else { throw DocumentError("PDF ends inside a dictionary") }
                if next == .dictionaryClose { return .dictionary(dictionary) }
                guard case .name(let key) = next else {
                    throw DocumentError("PDF syntax error near byte \(position): a dictionary key must be a name")
                }
                guard let valueToken = try nextToken() else { throw DocumentError("PDF ends inside a dictionary") }
                if valueToken == .dictionaryClose {  // a key without a value: readers drop it
                    return .dictionary(dictionary)
                }
                dictionary[key] = try parseObject(startingWith: valueToken, depth: depth + 1)
            }
        default:
            throw DocumentError("PDF syntax error near byte \(position): unexpected \(Self.describe(token))")
        }
    }

    static func describe(_ token: Token) -> String {
        switch token {
        case .keyword(let word): "'\(word.excerpt())'"
        case .arrayClose: "']'"
        case .dictionaryClose: "'>>'"
        case .braceOpen, .braceClose: "a brace"
        default: "a value"
        }
    }
}

/// Text in PDF and PostScript strings: printable ASCII as is, Latin-1 and the Windows-1252 punctuation that
/// Helvetica has (WinAnsiEncoding), anything else as `?` — what a simple-font text page can show.
enum WinAnsi {
    private static let specials: [(UInt32, UInt8)] = [
        (0x20AC, 0x80), (0x201A, 0x82), (0x0192, 0x83), (0x201E, 0x84), (0x2026, 0x85), (0x2020, 0x86), (0x2021, 0x87),
        (0x02C6, 0x88), (0x2030, 0x89), (0x0160, 0x8A), (0x2039, 0x8B), (0x0152, 0x8C), (0x017D, 0x8E), (0x2018, 0x91),
        (0x2019, 0x92), (0x201C, 0x93), (0x201D, 0x94), (0x2022, 0x95), (0x2013, 0x96), (0x2014, 0x97), (0x02DC, 0x98),
        (0x2122, 0x99), (0x0161, 0x9A), (0x203A, 0x9B), (0x0153, 0x9C), (0x017E, 0x9E), (0x0178, 0x9F),
    ]

    /// PostScript glyph names for 0x80–0x9F, for the re-encoded font of the PostScript writer.
    static let glyphNames: [(UInt8, String)] = [
        (0x80, "Euro"), (0x82, "quotesinglbase"), (0x83, "florin"), (0x84, "quotedblbase"), (0x85, "ellipsis"), (0x86, "dagger"),
        (0x87, "daggerdbl"), (0x88, "circumflex"), (0x89, "perthousand"), (0x8A, "Scaron"), (0x8B, "guilsinglleft"), (0x8C, "OE"),
        (0x8E, "Zcaron"), (0x91, "quoteleft"), (0x92, "quoteright"), (0x93, "quotedblleft"), (0x94, "quotedblright"),
        (0x95, "bullet"), (0x96, "endash"), (0x97, "emdash"), (0x98, "tilde"), (0x99, "trademark"), (0x9A, "scaron"),
        (0x9B, "guilsinglright"), (0x9C, "oe"), (0x9E, "zcaron"), (0x9F, "Ydieresis"),
    ]

    static func encode(_ text: String) -> [UInt8] {
        text.unicodeScalars.map { scalar in
            switch scalar.value {
            case 0x20...0x7E, 0xA0...0xFF: UInt8(truncatingIfNeeded: scalar.value)
            default: specials.first(where: { $0.0 == scalar.value })?.1 ?? 0x3F
            }
        }
    }

    static func decode(_ bytes: [UInt8]) -> String {
        var out = String.UnicodeScalarView()
        for byte in bytes {
            if let special = specials.first(where: { $0.1 == byte }), let scalar = UnicodeScalar(special.0) {
                out.append(scalar)
            } else {
                out.append(UnicodeScalar(byte))
            }
        }
        return String(out)
    }

    /// A PDF/PostScript literal string of `bytes`: parentheses and backslashes escaped, bytes outside printable ASCII
    /// as octal escapes, so the file stays 7-bit clean.
    static func literal(_ bytes: [UInt8]) -> String {
        var out = "("
        for byte in bytes {
            switch byte {
            case 0x28, 0x29, 0x5C: out += "\\" + String(UnicodeScalar(byte))
            case 0x20...0x7E: out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let octal = String(byte, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return out + ")"
    }
}
