/// Turns terminal input bytes into `Key`s incrementally.
///
/// Reads from a terminal can split an escape sequence or a multi-byte UTF-8 character anywhere,
/// so incomplete input stays buffered until the next `feed(_:)`. A lone `ESC` is ambiguous (the
/// Escape key, or the start of a sequence whose rest is still in flight); it stays pending until
/// more bytes arrive or the caller decides no more are coming and calls `flush()`.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// Whether bytes are buffered waiting for the rest of a sequence or character.
    public var hasPending: Bool { !pending.isEmpty }

    /// Whether the buffered bytes start with `ESC`: the only case where waiting for more input is a
    /// guess (a lone Escape key sends nothing further), so the caller should `flush()` after a pause.
    public var isAwaitingEscapeSequence: Bool { pending.first == 0x1B }

    /// Decodes as many complete keys as `bytes` (after any buffered bytes) contain.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [Key] where Bytes.Element == UInt8 {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var position = 0
        while position < pending.count {
            guard let (key, length) = Self.decodeOne(pending, at: position) else { break }
            Self.append(key, to: &keys)
            position += length
        }
        pending.removeFirst(position)
        return keys
    }

    /// Resolves whatever is still buffered without waiting for more input: a lone `ESC` becomes
    /// `.escape`, a truncated sequence becomes `.unknown`, a truncated character becomes U+FFFD.
    public mutating func flush() -> [Key] {
        var keys: [Key] = []
        while !pending.isEmpty {
            if let (key, length) = Self.decodeOne(pending, at: 0) {
                Self.append(key, to: &keys)
                pending.removeFirst(length)
            } else if pending[0] == 0x1B {
                if pending.count == 1 {
                    keys.append(.escape)
                } else {
                    keys.append(.unknown(pending))
                }
                pending.removeAll()
            } else {
                Self.append(.text("\u{FFFD}"), to: &keys)
                pending.removeFirst()
            }
        }
        return keys
    }

    /// Merges adjacent text so a paste becomes one insertion.
    private static func append(_ key: Key, to keys: inout [Key]) {
        if case .text(let more) = key, case .text(let previous)? = keys.last {
            keys[keys.count - 1] = .text(previous + more)
        } else {
            keys.append(key)
        }
    }

    /// Decodes the key starting at `start`, or returns nil when more bytes are needed to decide.
    private static func decodeOne(_ bytes: [UInt8], at start: Int) -> (Key, Int)? {
        let byte = bytes[start]
        switch byte {
        case 0x1B:
            return decodeEscape(bytes, at: start)
        case 0x0D, 0x0A:
            return (.enter, 1)
        case 0x09:
            return (.tab, 1)
        case 0x08, 0x7F:
            return (.backspace, 1)
        case 0x01...0x1A:
            return (.control(Character(Unicode.Scalar(byte + 0x60))), 1)
        case 0x00, 0x1C...0x1F:
            return (.control(Character(Unicode.Scalar(byte + 0x40))), 1)
        case 0x20...0x7E:
            return (.text(String(Unicode.Scalar(byte))), 1)
        default:
            return decodeUTF8(bytes, at: start)
        }
    }

    private static func decodeUTF8(_ bytes: [UInt8], at start: Int) -> (Key, Int)? {
        let lead = bytes[start]
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return (.text("\u{FFFD}"), 1)  // stray continuation byte or invalid lead
        }
        var end = start + 1
        while end < start + length {
            guard end < bytes.count else { return nil }
            // A non-continuation byte means the character was cut short; resynchronise on that byte.
            guard bytes[end] & 0xC0 == 0x80 else { return (.text("\u{FFFD}"), end - start) }
            end += 1
        }
        let decoded = String(decoding: bytes[start..<end], as: UTF8.self)
        // C1 controls (U+0080–U+009F) are not printable; drop them instead of inserting invisible text.
        if let scalar = decoded.unicodeScalars.first, (0x80...0x9F).contains(scalar.value) {
            return (.unknown(Array(bytes[start..<end])), length)
        }
        return (.text(decoded), length)
    }

    private static func decodeEscape(_ bytes: [UInt8], at start: Int) -> (Key, Int)? {
        guard start + 1 < bytes.count else { return nil }
        let next = bytes[start + 1]
        switch next {
        case UInt8(ascii: "["):
            return decodeCSI(bytes, at: start)
        case UInt8(ascii: "O"):
            guard start + 2 < bytes.count else { return nil }
            let final = bytes[start + 2]
            return (ss3Key(final) ?? .unknown(Array(bytes[start...start + 2])), 3)
        case 0x20...0x7E:
            return (.meta(Character(Unicode.Scalar(next))), 2)
        case 0x7F:
            return (.unknown([0x1B, 0x7F]), 2)
        default:
            // ESC followed by another control byte (ESC ESC, ESC ^A …): the first ESC stands alone.
            return (.escape, 1)
        }
    }

    /// `ESC [` parameters (0x30–0x3F), intermediates (0x20–0x2F), then one final byte (0x40–0x7E).
    private static func decodeCSI(_ bytes: [UInt8], at start: Int) -> (Key, Int)? {
        var index = start + 2
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x20...0x3F:
                index += 1
            case 0x40...0x7E:
                let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
                let sequence = Array(bytes[start...index])
                return (csiKey(parameters: parameters, final: byte) ?? .unknown(sequence), index - start + 1)
            default:
                // Malformed: swallow what was seen so far and let the odd byte decode on its own.
                return (.unknown(Array(bytes[start..<index])), index - start)
            }
        }
        return nil
    }

    private static func ss3Key(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        case UInt8(ascii: "M"): .enter  // keypad Enter in application mode
        default: nil
        }
    }

    private static func csiKey(parameters: String, final: UInt8) -> Key? {
        let fields = parameters.split(separator: ";", omittingEmptySubsequences: false)
        // xterm encodes modifiers as the second parameter: 1 + (shift 1 | alt 2 | ctrl 4).
        let modifier = fields.count > 1 ? Int(fields[1]) ?? 1 : 1
        let wordModified = modifier > 1 && ((modifier - 1) & 0b110) != 0
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return wordModified ? .wordRight : .right
        case UInt8(ascii: "D"): return wordModified ? .wordLeft : .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch fields.first.flatMap({ Int($0) }) {
            case 1, 7: return .home
            case 4, 8: return .end
            case 3: return .delete
            default: return nil
            }
        default: return nil
        }
    }
}
