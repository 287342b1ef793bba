/// Encodes IPP messages (RFC 8010 §3) to bytes.
///
/// A message keeps its values in wire form, so encoding writes the header and
/// copies the items' spans; spans that are adjacent in storage (everything,
/// for a decoded message) are copied in one go. A decoded message therefore
/// encodes back to exactly the bytes it was decoded from.
public struct IPPEncoder: Sendable {
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
        let storage = message.storage
        if let problem = storage.problem { throw problem }
        Self.encode(message, storage.bytes, storage.items, into: &output)
    }

    /// The header, the items' spans, the end tag; the arrays are passed apart from the storage so that the
    /// copying loop works on locals (reading them through the storage's box made it ~30 % slower).
    private static func encode(
        _ message: IPPMessage, _ bytes: [UInt8], _ items: [IPPItem], into output: inout [UInt8]
    ) {
        // The arena is at least as large as what is encoded (it may also hold the header and removed attributes).
        output.reserveCapacity(output.count + bytes.count + 9)
        output.append(message.version.major)
        output.append(message.version.minor)
        output.appendBigEndian(message.code)
        output.appendBigEndian(UInt32(bitPattern: message.requestID))
        bytes.withUnsafeBufferPointer { bytes in
            items.withUnsafeBufferPointer { items in
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
            }
        }
        output.append(IPPGroupTag.endOfAttributes.rawValue)
    }
}

extension IPPMessage {
    /// The number of bytes `IPPEncoder` writes for this message.
    public var encodedSize: Int {
        var size = 9
        for item in storage.items { size += item.wireLength }
        return size
    }

    /// The message encoded by `IPPEncoder`.
    /// - throws: `IPPError` (`.unencodable`) if a builder was given a value that does not fit the wire format.
    public func encoded() throws(IPPError) -> [UInt8] {
        try IPPEncoder().encode(self)
    }
}
