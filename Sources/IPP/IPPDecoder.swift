/// Decodes IPP messages (RFC 8010 §3) from bytes, within explicit limits.
///
/// The decoder never traps: truncated, overlong, ill-nested or otherwise
/// malformed input throws an `IPPError` with the byte offset and what was
/// expected. One pass checks the input (names and strings must be UTF-8) and writes the message's records into
/// one buffer sized from the input's length, which also holds the message's
/// bytes (see `IPPStorageBox`): decoding allocates once per message, not once
/// per value (twice for an unusual message that needs more records than the
/// first buffer has room for).
///
/// A server reading from the network can call `decodePrefix(_:)` on the bytes
/// received so far: it answers `.needMoreData` until the end-of-attributes tag
/// has arrived, then the message and the offset where the document data begins.
public struct IPPDecoder: Sendable {
    /// Upper bounds on what one message may contain; exceeding one throws a `.limitExceeded` error.
    public struct Limits: Sendable, Hashable {
        /// Attributes in the whole message (collection members not counted). Large printers send a few hundred.
        public var maxAttributes: Int
        /// Collections nested in one another. `media-col` values nest two or three deep.
        public var maxCollectionDepth: Int
        /// Bytes in one value. No IPP syntax needs more than 1023 (octetString(MAX) aside), and
        /// some libraries read lengths as signed 16-bit, so larger values do not interoperate.
        public var maxValueLength: Int
        /// Bytes from the start of the message to the end-of-attributes tag, inclusive (document data not counted).
        public var maxMessageSize: Int

        /// Creates limits; the ones not given keep the defaults (4096 attributes, depth 16, 32767-byte values, 1 MiB
        /// messages).
        public init(
            maxAttributes: Int = 4096, maxCollectionDepth: Int = 16,
            maxValueLength: Int = 32767, maxMessageSize: Int = 1 << 20
        ) {
            self.maxAttributes = maxAttributes
            self.maxCollectionDepth = maxCollectionDepth
            self.maxValueLength = maxValueLength
            self.maxMessageSize = maxMessageSize
        }

        /// 4096 attributes, depth 16, 32767-byte values, 1 MiB messages.
        public static let `default` = Limits()
    }

    /// The outcome of decoding a prefix of a byte stream.
    public enum Progress: Sendable {
        /// The message is not complete yet: call again once at least this many bytes are available.
        case needMoreData(atLeast: Int)
        /// The message is complete; document data (if any) starts at `documentOffset`.
        case complete(IPPMessage, documentOffset: Int)
    }

    /// The limits this decoder enforces.
    public var limits: Limits

    /// Creates a decoder with the given limits.
    public init(limits: Limits = .default) {
        self.limits = limits
    }

    /// The header of a message that cannot be decoded as a whole — its first 8 bytes: version, operation-id or
    /// status-code, request-id (RFC 8010 §3.1.1) — so that a printer can still answer it and echo the request-id
    /// (RFC 8011 §4.1.1). The values are as sent, unchecked.
    /// - returns: the header as a message without groups; nil when fewer than 8 bytes arrived.
    public static func header(of bytes: [UInt8]) -> IPPMessage? {
        guard bytes.count >= 8 else { return nil }
        let requestID = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
        return IPPMessage(
            version: IPPVersion(major: bytes[0], minor: bytes[1]), code: UInt16(bytes[2]) << 8 | UInt16(bytes[3]),
            requestID: Int32(bitPattern: requestID))
    }

    /// Decodes a message; bytes after the end-of-attributes tag (document data) are allowed and not kept.
    /// - throws: `IPPError` if the input is truncated, malformed or over the limits.
    public func decode(_ bytes: [UInt8]) throws(IPPError) -> IPPMessage {
        try decodeWithDocumentOffset(bytes).message
    }

    /// Decodes a message and tells where the document data after it begins.
    /// - returns: the message and the offset just after the end-of-attributes tag.
    /// - throws: `IPPError` if the input is truncated, malformed or over the limits.
    public func decodeWithDocumentOffset(_ bytes: [UInt8]) throws(IPPError) -> (message: IPPMessage, documentOffset: Int) {
        let limits = self.limits
        // withUnsafeBytes is not typed-throws: carry the typed error out in a Result.
        return try bytes.withUnsafeBytes { buffer in
            Result { () throws(IPPError) in
                let message = try IPPDecoder.message(buffer, limits: limits)
                return (message.message, message.end)
            }
        }.get()
    }

    /// Decodes a message into `message`, reusing its buffer when `message` holds it alone and the new message fits
    /// (a connection that reads one request after another then allocates nothing once its buffer is as large as a
    /// message needs). The checks, limits and errors are those of `decode(_:)`.
    /// - returns: the offset just after the end-of-attributes tag, where document data begins.
    /// - throws: `IPPError` as `decode(_:)` does; `message` then has no groups (its buffer is kept for the next call).
    @discardableResult
    public func decode(_ bytes: [UInt8], into message: inout IPPMessage) throws(IPPError) -> Int {
        let limits = self.limits
        return try bytes.withUnsafeBytes { buffer in
            Result { () throws(IPPError) in try IPPDecoder.decode(buffer, limits: limits, into: &message) }
        }.get()
    }

    /// Decodes the bytes received so far of a message that may still be arriving.
    /// - returns: `.needMoreData` while the attribute section is incomplete, else the message and document offset.
    /// - throws: `IPPError` for malformed input or input over the limits, even before it is complete.
    public func decodePrefix(_ bytes: [UInt8]) throws(IPPError) -> Progress {
        do {
            let (message, offset) = try decodeWithDocumentOffset(bytes)
            return .complete(message, documentOffset: offset)
        } catch  where error.kind == .truncated {
            return .needMoreData(atLeast: error.bytesNeeded)
        }
    }

    /// Decodes the bytes received so far from raw memory (e.g. a network buffer); the message copies what it keeps.
    /// - returns: `.needMoreData` while the attribute section is incomplete, else the message and document offset.
    /// - throws: `IPPError` for malformed input or input over the limits, even before it is complete.
    public func decodePrefix(_ buffer: UnsafeRawBufferPointer) throws(IPPError) -> Progress {
        do {
            let (message, end) = try IPPDecoder.message(buffer, limits: limits)
            return .complete(message, documentOffset: end)
        } catch  where error.kind == .truncated {
            return .needMoreData(atLeast: error.bytesNeeded)
        }
    }
}

// MARK: Parsing

extension IPPDecoder {
    /// What the checking pass over the input found: the header, how many records the message needs, where it ends.
    struct Parsed {
        var version: IPPVersion
        var code: UInt16
        var requestID: Int32
        var items: Int
        var attributes: Int
        var groups: Int
        /// Offset just after the end-of-attributes tag.
        var end: Int
    }

    /// Where `parse` writes the records it finds: the regions of a buffer, each up to its capacity. Past a
    /// capacity it only counts, so that a buffer that turned out too small can be replaced by one of the right size.
    struct Records {
        let items: UnsafeMutablePointer<IPPItem>
        let itemCapacity: Int
        let attributes: UnsafeMutablePointer<IPPAttributeRecord>
        let attributeCapacity: Int
        let groups: UnsafeMutablePointer<IPPGroupRecord>
        let groupCapacity: Int

        init(_ box: IPPStorageBox) {
            items = box.itemPointer
            itemCapacity = box.head.pointee.itemCapacity
            attributes = box.attributePointer
            attributeCapacity = box.head.pointee.attributeCapacity
            groups = box.groupPointer
            groupCapacity = box.head.pointee.groupCapacity
        }

        /// Whether every record of the message was written.
        func hold(_ parsed: Parsed) -> Bool {
            parsed.items <= itemCapacity && parsed.attributes <= attributeCapacity && parsed.groups <= groupCapacity
        }

        @inline(__always)
        func item(_ index: Int, _ item: IPPItem) {
            if index < itemCapacity { items[index] = item }
        }

        @inline(__always)
        func group(_ index: Int, tag: UInt8, item: Int, position: Int, attribute: Int) {
            if index < groupCapacity {
                groups[index] = IPPGroupRecord(
                    tag: tag, delimiterItem: UInt32(item), firstAttribute: UInt32(attribute), attributeCount: 0)
            }
            self.item(item, IPPItem(start: UInt32(position), nameLength: 0, valueLength: 0, tag: tag))
        }

        @inline(__always)
        func close(group index: Int, attributes count: Int) {
            if index >= 0, index < groupCapacity {
                groups[index].attributeCount = UInt32(count) - groups[index].firstAttribute
            }
        }

        @inline(__always)
        func attribute(_ index: Int, item: Int) {
            if index < attributeCapacity {
                attributes[index] = IPPAttributeRecord(firstItem: UInt32(item), itemCount: 0, valueCount: 0)
            }
        }

        @inline(__always)
        func close(attribute index: Int, items: Int, values: UInt32) {
            if index < attributeCapacity {
                attributes[index].itemCount = UInt32(items) - attributes[index].firstItem
                attributes[index].valueCount = values
            }
        }
    }

    /// Checks the input and makes the message in one buffer: first into one sized from the input's length, which
    /// typical messages fit (one pass, one allocation); when one does not, again into one of exactly its size.
    static func message(_ input: UnsafeRawBufferPointer, limits: Limits) throws(IPPError) -> (message: IPPMessage, end: Int) {
        // Room for the records a typical message needs (captured messages take 16–35 bytes per item and 27–88
        // per attribute), sized for at most the first 16 KiB: input beyond is most likely document data.
        let guessed = min(input.count, 1 << 14)
        let guess = IPPStorageBox.make(
            IPPStorageHeader(
                itemCapacity: guessed / 12 + 8, attributeCapacity: guessed / 24 + 4, groupCapacity: guessed / 128 + 2,
                byteCapacity: guessed))
        let records = Records(guess)
        let parsed = try parse(input, limits: limits, into: records)
        let box = parsed.end <= guessed && records.hold(parsed) ? guess : try exactBuffer(input, parsed, limits: limits)
        fill(box, parsed, input)
        return (
            IPPMessage(version: parsed.version, code: parsed.code, requestID: parsed.requestID, box: box), parsed.end
        )
    }

    /// `message(_:limits:)` into the buffer `message` holds alone when the new message fits it: no allocation. The
    /// buffer's records are overwritten as they are parsed, so on an error its counts are reset (no groups).
    static func decode(_ input: UnsafeRawBufferPointer, limits: Limits, into message: inout IPPMessage) throws(IPPError) -> Int {
        // The shared empty buffer is never unique (the static holds it), so it is never written to.
        guard isKnownUniquelyReferenced(&message.box) else {
            let decoded = try IPPDecoder.message(input, limits: limits)
            message = decoded.message
            return decoded.end
        }
        let box = message.box
        let records = Records(box)
        let parsed: Parsed
        do {
            parsed = try parse(input, limits: limits, into: records)
        } catch {
            empty(box)
            throw error
        }
        guard parsed.end <= box.head.pointee.byteCapacity && records.hold(parsed) else {
            empty(box)
            let decoded = try IPPDecoder.message(input, limits: limits)
            message = decoded.message
            return decoded.end
        }
        fill(box, parsed, input)
        box.head.pointee.problem = nil
        message.version = parsed.version
        message.code = parsed.code
        message.requestID = parsed.requestID
        return parsed.end
    }

    /// Sets the counts of a buffer `parse` wrote the records of, and copies the message's bytes into it.
    @inline(__always)
    private static func fill(_ box: IPPStorageBox, _ parsed: Parsed, _ input: UnsafeRawBufferPointer) {
        box.head.pointee.itemCount = parsed.items
        box.head.pointee.attributeCount = parsed.attributes
        box.head.pointee.groupCount = parsed.groups
        box.head.pointee.byteCount = parsed.end
        if let source = input.baseAddress {
            UnsafeMutableRawPointer(box.bytePointer).copyMemory(from: source, byteCount: parsed.end)
        }
    }

    /// Leaves a reused buffer whose records a failed parse may have overwritten without groups.
    @inline(never)
    private static func empty(_ box: IPPStorageBox) {
        box.head.pointee.itemCount = 0
        box.head.pointee.attributeCount = 0
        box.head.pointee.groupCount = 0
        box.head.pointee.byteCount = 0
        box.head.pointee.problem = nil
    }

    /// A buffer of exactly the message's size, parsed into again (the rare message the first guess was too small for).
    @inline(never)
    private static func exactBuffer(
        _ input: UnsafeRawBufferPointer, _ parsed: Parsed, limits: Limits
    ) throws(IPPError) -> IPPStorageBox {
        let box = IPPStorageBox.make(
            IPPStorageHeader(
                itemCapacity: parsed.items, attributeCapacity: parsed.attributes, groupCapacity: parsed.groups,
                byteCapacity: parsed.end))
        _ = try parse(input, limits: limits, into: Records(box))
        return box
    }

    /// Where a collection is between its members.
    private enum MemberState {
        /// Just opened: a memberAttrName must come first.
        case expectingName
        /// After a memberAttrName: a value must come.
        case expectingValue
        /// After a value: another value (1setOf), a memberAttrName or endCollection may come.
        case afterValue
    }

    static func parse(_ buffer: UnsafeRawBufferPointer, limits requested: Limits, into records: Records) throws(IPPError) -> Parsed {
        // Offsets are stored as UInt32: no limit may let them overflow.
        var limits = requested
        limits.maxMessageSize = min(limits.maxMessageSize, Int(UInt32.max))
        let count = buffer.count
        guard count >= 8, let raw = buffer.baseAddress else {
            throw truncated(at: count, "message header needs 8 bytes (\(count) available)", needed: 9)
        }
        let bytes = raw.assumingMemoryBound(to: UInt8.self)
        @inline(__always) func u16(_ offset: Int) -> Int { Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) }

        let version = IPPVersion(major: bytes[0], minor: bytes[1])
        let code = UInt16(u16(2))
        let requestID = Int32(bitPattern: UInt32(u16(4)) << 16 | UInt32(u16(6)))

        // How many records the message needs; those within the capacities of `records` are written there.
        var items = 0
        var attributes = 0
        var groups = 0

        // The attribute being read (-1: none), and its value count so far (written back when it ends).
        var attribute = -1
        var valueCount: UInt32 = 0
        var depth = 0
        var member = MemberState.expectingName
        var position = 8

        // No local functions capture these variables: captured mutable variables are boxed and
        // every access pays a dynamic exclusivity check, which made decoding several times slower.

        while true {
            guard position < count else {
                try checkSize(position + 1, at: position, limits: limits)
                throw truncated(
                    at: position, "expected a group tag or end-of-attributes tag (0x03), found end of input",
                    needed: position + 1)
            }
            let tag = bytes[position]

            // Delimiters: a new group or the end of the attributes.
            if tag < 0x10 {
                guard tag == 0x03 || IPPGroupTag(rawValue: tag).isGroup else {
                    throw malformed(at: position, "reserved delimiter tag \(ippHex(tag)): expected a group tag (0x01-0x0A) or a value tag")
                }
                if depth > 0 {
                    throw malformed(
                        at: position,
                        "\(IPPGroupTag(rawValue: tag)) (\(ippHex(tag))) inside \(depth) open collection(s): expected endCollection (0x37)")
                }
                if attribute >= 0 {
                    records.close(attribute: attribute, items: items, values: valueCount)
                    attribute = -1
                }
                records.close(group: groups - 1, attributes: attributes)
                if tag == 0x03 {
                    return Parsed(
                        version: version, code: code, requestID: requestID, items: items,
                        attributes: attributes, groups: groups, end: position + 1)
                }
                records.group(groups, tag: tag, item: items, position: position, attribute: attributes)
                groups += 1
                items += 1
                position += 1
                continue
            }

            // A value: tag, name-length, name, value-length, value.
            guard tag < 0x80 else {
                throw malformed(at: position, "reserved value tag \(ippHex(tag)): expected a value tag 0x10-0x7F")
            }
            guard groups > 0 else {
                throw malformed(at: position, "value tag \(ippHex(tag)) before any group: expected operation-attributes-tag (0x01)")
            }
            guard position + 3 <= count else {
                try checkSize(position + 3, at: position, limits: limits)
                throw truncated(
                    at: position + 1, "name length needs 2 bytes (\(count - position - 1) left)",
                    needed: position + 3)
            }
            let nameLength = u16(position + 1)
            let nameEnd = position + 3 + nameLength
            guard nameEnd + 2 <= count else {
                try checkSize(nameEnd + 2, at: position + 1, limits: limits)
                if nameEnd > count {
                    throw truncated(
                        at: position + 1, "name length \(nameLength) runs past end of input (\(count - position - 3) bytes left)",
                        needed: nameEnd + 2)
                }
                throw truncated(at: nameEnd, "value length needs 2 bytes (\(count - nameEnd) left)", needed: nameEnd + 2)
            }
            let valueLength = u16(nameEnd)
            let valueStart = nameEnd + 2
            let valueEnd = valueStart + valueLength
            if valueLength > limits.maxValueLength {
                throw limitExceeded(at: nameEnd, "value length \(valueLength) exceeds the limit of \(limits.maxValueLength)")
            }
            guard valueEnd <= count else {
                try checkSize(valueEnd + 1, at: nameEnd, limits: limits)
                throw truncated(
                    at: nameEnd, "value length \(valueLength) runs past end of input (\(count - valueStart) bytes left)",
                    needed: valueEnd + 1)
            }
            try checkSize(valueEnd + 1, at: position, limits: limits)

            // Fixed-size syntaxes and the inner structure of composite values.
            switch tag {
            case 0x21, 0x23:
                if valueLength != 4 { throw badLength(tag, valueLength, expected: 4, at: nameEnd) }
            case 0x22:
                if valueLength != 1 { throw badLength(tag, valueLength, expected: 1, at: nameEnd) }
            case 0x31:
                if valueLength != 11 { throw badLength(tag, valueLength, expected: 11, at: nameEnd) }
            case 0x32:
                if valueLength != 9 { throw badLength(tag, valueLength, expected: 9, at: nameEnd) }
            case 0x33:
                if valueLength != 8 { throw badLength(tag, valueLength, expected: 8, at: nameEnd) }
            case 0x35, 0x36:
                try checkWithLanguage(bytes, tag: tag, start: valueStart, length: valueLength, at: nameEnd)
            case 0x37:
                if valueLength != 0 { throw badLength(tag, valueLength, expected: 0, at: nameEnd) }
            case 0x4A:
                if valueLength == 0 {
                    throw malformed(at: nameEnd, "memberAttrName (0x4A) with an empty value: expected the member's name")
                }
            case 0x7F:
                guard valueLength >= 4 else {
                    throw malformed(at: nameEnd, "extension (0x7F) value length \(valueLength): expected at least 4 (the extended tag)")
                }
                if bytes[valueStart] & 0x80 != 0 {
                    throw malformed(
                        at: valueStart,
                        "extension tag \(ippHex(UInt32(u16(valueStart)) << 16 | UInt32(u16(valueStart + 2)), digits: 8)) is above 0x7FFFFFFF")
                }
            default:
                break
            }

            // Names and character strings are UTF-8 (RFC 8011 §5.1), checked here once so that every string view of
            // the message holds valid UTF-8 (keywords, URIs and the like are ASCII, which is UTF-8 too). Most are
            // ASCII: for a character-string value, name, value length and value are tested in one go first (an ASCII
            // run is valid UTF-8 whatever the length bytes are); for another value only a name is, if it has one. Each
            // part is checked on its own (out of line, which keeps this loop small) only when that test fails, and
            // always for the two parts of a with-language value.
            let characterString = tag == 0x41 || tag == 0x42 || (0x44...0x4A).contains(tag)
            let ascii =
                characterString
                ? IPPUTF8.isASCII(bytes + position + 3, count: valueEnd - position - 3)
                : tag != 0x35 && tag != 0x36 && (nameLength == 0 || IPPUTF8.isASCII(bytes + position + 3, count: nameLength))
            if !ascii {
                try checkUTF8(bytes, tag: tag, nameStart: position + 3, nameLength: nameLength, valueStart: valueStart, valueEnd: valueEnd)
            }

            // Structure: attributes and 1setOf values at the top, members inside collections.
            if depth == 0 {
                if nameLength > 0 {
                    guard tag != 0x37, tag != 0x4A else {
                        throw malformed(at: position, "\(IPPValueTag(rawValue: UInt32(tag))) (\(ippHex(tag))) outside a collection")
                    }
                    guard attributes < limits.maxAttributes else {
                        throw limitExceeded(at: position, "more than \(limits.maxAttributes) attributes")
                    }
                    if attribute >= 0 {
                        records.close(attribute: attribute, items: items, values: valueCount)
                    }
                    records.attribute(attributes, item: items)
                    attribute = attributes
                    attributes += 1
                    valueCount = 1
                } else {
                    guard attribute >= 0 else {
                        throw malformed(
                            at: position,
                            "value with name length 0 at the start of a group: expected an attribute name (an additional value needs a preceding attribute)"
                        )
                    }
                    guard tag != 0x37, tag != 0x4A else {
                        throw malformed(at: position, "\(IPPValueTag(rawValue: UInt32(tag))) (\(ippHex(tag))) outside a collection")
                    }
                    valueCount += 1
                }
                if tag == 0x34 {
                    try openCollection(&depth, &member, at: position, limits: limits)
                }
            } else {
                if nameLength != 0 {
                    throw malformed(
                        at: position + 1,
                        "name length \(nameLength) inside a collection: expected 0 (members are named by memberAttrName) or endCollection (0x37)")
                }
                switch tag {
                case 0x4A:
                    if member == .expectingValue {
                        throw malformed(at: position, "memberAttrName (0x4A) right after another: expected a value for the previous member")
                    }
                    member = .expectingValue
                case 0x37:
                    if member == .expectingValue {
                        throw malformed(at: position, "endCollection (0x37) right after memberAttrName: expected a value for the member")
                    }
                    depth -= 1
                    member = .afterValue
                default:
                    if member == .expectingName {
                        throw malformed(at: position, "value tag \(ippHex(tag)) at the start of a collection: expected memberAttrName (0x4A)")
                    }
                    member = .afterValue
                    if tag == 0x34 {
                        try openCollection(&depth, &member, at: position, limits: limits)
                    }
                }
            }
            records.item(
                items, IPPItem(start: UInt32(position), nameLength: UInt16(nameLength), valueLength: UInt16(valueLength), tag: tag))
            items += 1
            position = valueEnd
        }
    }

    /// Checks that the name and a character-string value (both parts of a with-language one) are UTF-8.
    @inline(never)
    private static func checkUTF8(
        _ bytes: UnsafePointer<UInt8>, tag: UInt8, nameStart: Int, nameLength: Int, valueStart: Int, valueEnd: Int
    ) throws(IPPError) {
        if nameLength > 0, let bad = IPPUTF8.firstInvalidByte(bytes, from: nameStart, count: nameLength) {
            throw notUTF8("attribute name", bytes[bad], at: bad)
        }
        switch tag {
        case 0x41, 0x42, 0x44...0x4A:
            if let bad = IPPUTF8.firstInvalidByte(bytes, from: valueStart, count: valueEnd - valueStart) {
                throw notUTF8("\(IPPValueTag(rawValue: UInt32(tag))) value", bytes[bad], at: bad)
            }
        case 0x35, 0x36:
            // checkWithLanguage has checked that the two inner lengths fill the value.
            let languageLength = Int(bytes[valueStart]) << 8 | Int(bytes[valueStart + 1])
            let textStart = valueStart + 4 + languageLength
            let syntax = IPPValueTag(rawValue: UInt32(tag))
            if let bad = IPPUTF8.firstInvalidByte(bytes, from: valueStart + 2, count: languageLength) {
                throw notUTF8("\(syntax) language", bytes[bad], at: bad)
            }
            if let bad = IPPUTF8.firstInvalidByte(bytes, from: textStart, count: valueEnd - textStart) {
                throw notUTF8("\(syntax) text", bytes[bad], at: bad)
            }
        default:
            break
        }
    }

    @inline(__always)
    private static func openCollection(
        _ depth: inout Int, _ member: inout MemberState, at position: Int,
        limits: Limits
    ) throws(IPPError) {
        guard depth < limits.maxCollectionDepth else {
            throw limitExceeded(at: position, "collections nested deeper than \(limits.maxCollectionDepth)")
        }
        depth += 1
        member = .expectingName
    }

    @inline(__always)
    private static func checkSize(_ needed: Int, at position: Int, limits: Limits) throws(IPPError) {
        if needed > limits.maxMessageSize {
            throw limitExceeded(at: position, "message exceeds the limit of \(limits.maxMessageSize) bytes before its end-of-attributes tag")
        }
    }

    /// textWithLanguage / nameWithLanguage: language length, language, text length, text — filling the value exactly.
    private static func checkWithLanguage(
        _ bytes: UnsafePointer<UInt8>, tag: UInt8, start: Int, length: Int,
        at lengthOffset: Int
    ) throws(IPPError) {
        let syntax = IPPValueTag(rawValue: UInt32(tag))
        guard length >= 4 else {
            throw malformed(at: lengthOffset, "\(syntax) value length \(length): expected at least 4 (two inner lengths)")
        }
        let languageLength = Int(bytes[start]) << 8 | Int(bytes[start + 1])
        guard 2 + languageLength + 2 <= length else {
            throw malformed(at: start, "\(syntax) language length \(languageLength) runs past the value (\(length - 2) bytes left)")
        }
        let textOffset = start + 2 + languageLength
        let textLength = Int(bytes[textOffset]) << 8 | Int(bytes[textOffset + 1])
        guard 4 + languageLength + textLength == length else {
            throw malformed(at: textOffset, "\(syntax) text length \(textLength) does not fill the value: expected \(length - 4 - languageLength)")
        }
    }

    // Error construction stays out of line so that the loop above stays small.

    @inline(never)
    private static func truncated(at offset: Int, _ message: String, needed: Int) -> IPPError {
        IPPError(.truncated, at: offset, message, bytesNeeded: needed)
    }

    @inline(never)
    private static func malformed(at offset: Int, _ message: String) -> IPPError {
        IPPError(.malformed, at: offset, message)
    }

    @inline(never)
    private static func limitExceeded(at offset: Int, _ message: String) -> IPPError {
        IPPError(.limitExceeded, at: offset, message)
    }

    @inline(never)
    private static func notUTF8(_ what: String, _ byte: UInt8, at offset: Int) -> IPPError {
        IPPError(.malformed, at: offset, "\(what) is not UTF-8 at byte \(ippHex(byte)): expected UTF-8 text (RFC 3629)")
    }

    @inline(never)
    private static func badLength(_ tag: UInt8, _ length: Int, expected: Int, at offset: Int) -> IPPError {
        IPPError(
            .malformed, at: offset,
            "\(IPPValueTag(rawValue: UInt32(tag))) value length \(length): expected \(expected)")
    }
}
