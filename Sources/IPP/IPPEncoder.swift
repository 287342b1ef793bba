/// Encodes IPP messages (RFC 8010 §3) to bytes.
///
/// A message keeps its values in wire form, so encoding writes the header and
/// copies the items' spans; spans that are adjacent in storage (everything,
/// for a decoded message) are copied in one go. A decoded message therefore
/// encodes back to exactly the bytes it was decoded from.
public struct IPPEncoder: Sendable {
    /// Creates an encoder; it has no settings and no state, so one can be shared freely.
    public init() {}

    /// Encodes a message.
    /// - returns: the bytes, from the version number to the end-of-attributes tag.
    /// - throws: `IPPError` (`.unencodable`) if a builder was given a value that does not fit the wire format.
    public func encode(_ message: IPPMessage) throws(IPPError) -> [UInt8] {
        var output: [UInt8] = []
        try encode(message, into: &output)
        return output
    }

    /// Appends the encoded message to `output` (e.g. an HTTP body that document data will follow).
    /// - throws: `IPPError` (`.unencodable`) if a builder was given a value that does not fit the wire format.
    public func encode(_ message: IPPMessage, into output: inout [UInt8]) throws(IPPError) {
        let box = message.box
        if let problem = box.problem { throw problem }
        withExtendedLifetime(box) { Self.encode(message, box.bytes, box.items, into: &output) }
    }

    /// The header, the items' spans, the end tag; the regions are passed as locals so that the copying loop
    /// does not read them through the buffer's header each time.
    private static func encode(
        _ message: IPPMessage, _ bytes: UnsafeBufferPointer<UInt8>, _ items: UnsafeBufferPointer<IPPItem>,
        into output: inout [UInt8]
    ) {
        // The bytes are at least as many as what is encoded (they may also hold the header and removed attributes).
        output.reserveCapacity(output.count + bytes.count + 9)
        // The header in one append (eight appends each checked the array's capacity and uniqueness).
        let code = message.code
        let requestID = UInt32(bitPattern: message.requestID)
        let header: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
            message.version.major, message.version.minor, UInt8(code >> 8), UInt8(truncatingIfNeeded: code),
            UInt8(requestID >> 24), UInt8(truncatingIfNeeded: requestID >> 16), UInt8(truncatingIfNeeded: requestID >> 8),
            UInt8(truncatingIfNeeded: requestID)
        )
        withUnsafeBytes(of: header) { output.append(contentsOf: $0) }
        var runStart = 0
        var runEnd = 0
        for item in items {
            let start = Int(item.start)
            if start != runEnd {
                if runEnd > runStart { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<runEnd])) }
                runStart = start
            }
            runEnd = start + item.wireLength
        }
        if runEnd > runStart { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<runEnd])) }
        output.append(IPPGroupTag.endOfAttributes.rawValue)
    }
}

extension IPPMessage {
    /// The number of bytes `IPPEncoder` writes for this message.
    public var encodedSize: Int {
        var size = 9
        withExtendedLifetime(box) {
            for item in box.items { size += item.wireLength }
        }
        return size
    }

    /// The message encoded by `IPPEncoder`.
    /// - throws: `IPPError` (`.unencodable`) if a builder was given a value that does not fit the wire format.
    public func encoded() throws(IPPError) -> [UInt8] {
        try IPPEncoder().encode(self)
    }
}
