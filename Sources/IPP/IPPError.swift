/// An error from decoding or encoding an IPP message.
///
/// Decode errors carry the byte offset in the input where the problem was
/// found and say what was expected there, e.g.
/// `IPP decode error at byte 37: value length 300 runs past end of input (33 bytes left)`.
/// The kind is a struct over a private enum so that new kinds do not break callers.
public struct IPPError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What went wrong, coarsely; the message says precisely.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case truncated, limitExceeded, malformed, unencodable
        }
        private let base: Base

        /// The input ends before the message does (more bytes would be needed).
        public static let truncated = Kind(base: .truncated)
        /// The input exceeds one of the decoder's `Limits`.
        public static let limitExceeded = Kind(base: .limitExceeded)
        /// The input breaks the encoding rules of RFC 8010.
        public static let malformed = Kind(base: .malformed)
        /// A value given to a builder cannot be represented on the wire.
        public static let unencodable = Kind(base: .unencodable)

        /// The kind in words: `truncated`, `limit exceeded`, `malformed` or `unencodable`.
        public var description: String {
            switch base {
            case .truncated: "truncated"
            case .limitExceeded: "limit exceeded"
            case .malformed: "malformed"
            case .unencodable: "unencodable"
            }
        }
    }

    /// The coarse kind of the error.
    public let kind: Kind
    /// Byte offset in the decoder's input (for `.unencodable`: in the encoded output) where the problem is.
    public let offset: Int
    /// What was wrong and what was expected instead.
    public let message: String
    /// For `.truncated`: the input length at which decoding can go on (what `needMoreData` reports).
    let bytesNeeded: Int

    /// Creates an error; the codec creates these, tests and callers may compare against them.
    public init(_ kind: Kind, at offset: Int, _ message: String) {
        self.init(kind, at: offset, message, bytesNeeded: 0)
    }

    init(_ kind: Kind, at offset: Int, _ message: String, bytesNeeded: Int) {
        self.kind = kind
        self.offset = offset
        self.message = message
        self.bytesNeeded = bytesNeeded
    }

    /// Whether two errors have the same kind, offset and message.
    // bytesNeeded is bookkeeping for `decodePrefix`, not part of what the error says.
    public static func == (lhs: IPPError, rhs: IPPError) -> Bool {
        lhs.kind == rhs.kind && lhs.offset == rhs.offset && lhs.message == rhs.message
    }

    /// Hashes the kind, offset and message, the parts `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(offset)
        hasher.combine(message)
    }

    /// The error as a message, e.g. `IPP decode error at byte 37: …` (`IPP encode error` for `.unencodable`).
    public var description: String {
        if kind == .unencodable {
            return "IPP encode error at byte \(offset): \(message)"
        }
        return "IPP decode error at byte \(offset): \(message)"
    }
}

/// Hexadecimal formatting without Foundation, for tag values in messages and names.
@usableFromInline
func ippHex(_ value: some BinaryInteger, digits: Int = 2) -> String {
    let text = String(value, radix: 16, uppercase: true)
    let padding = text.count < digits ? String(repeating: "0", count: digits - text.count) : ""
    return "0x" + padding + text
}
