/// Finds where an arriving IPP message's attribute section ends, looking at each byte once.
///
/// A server receiving a request in chunks must not decode the whole prefix again on every chunk: a client
/// trickling small attributes up to the 1 MiB limit would cost O(n²). The scanner walks only the framing —
/// the 8-byte header, then delimiter tags and `tag, name-length, name, value-length, value` — which every
/// attribute, collection member and extension value shares, and resumes where it stopped. Once it has seen
/// the end-of-attributes tag the caller decodes the message once. It checks nothing else: the decoder does.
public struct IPPFrameScanner: Sendable {
    /// Offset of the next attribute (or delimiter) not yet walked over.
    private var position = 8

    /// Creates a scanner for one new message, to be given that message's bytes from its first byte (the header) on.
    public init() {}

    /// What the bytes received so far show.
    public enum Outcome: Sendable, Equatable {
        /// The end-of-attributes tag is not among them yet; call again with more (the same bytes, extended).
        case needMoreData
        /// The attribute section ends (document data starts) at this offset.
        case complete(documentOffset: Int)
    }

    /// Walks `bytes` — everything received so far, of which earlier calls saw a prefix — from where it stopped.
    /// Any collection of bytes will do (an array, or a slice of one without copying); offsets count from its start.
    public mutating func scan<Bytes: RandomAccessCollection>(_ received: Bytes) -> Outcome where Bytes.Element == UInt8, Bytes.Index == Int {
        let base = received.startIndex
        let count = received.count
        func byte(_ offset: Int) -> UInt8 { received[base + offset] }
        while position < count {
            let tag = byte(position)
            if tag < 0x10 {
                // A delimiter tag: one byte. 0x03 ends the attributes.
                position += 1
                if tag == IPPGroupTag.endOfAttributes.rawValue { return .complete(documentOffset: position) }
                continue
            }
            guard position + 3 <= count else { return .needMoreData }
            let nameLength = Int(byte(position + 1)) << 8 | Int(byte(position + 2))
            let valueLengthAt = position + 3 + nameLength
            guard valueLengthAt + 2 <= count else { return .needMoreData }
            let valueLength = Int(byte(valueLengthAt)) << 8 | Int(byte(valueLengthAt + 1))
            let next = valueLengthAt + 2 + valueLength
            guard next <= count else { return .needMoreData }
            position = next
        }
        return .needMoreData
    }

    /// How many bytes have been walked over (the header included).
    public var scanned: Int { position }
}
