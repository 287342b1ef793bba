/// Non-escapable typed views of an attribute's name and values, for walking a message without reference counting.
///
/// An `IPPValueView` holds the message's buffer, so that it can be kept: making and dropping one retains and
/// releases the buffer, which was ~40 % of walking a whole decoded message. The spans here hold only pointers into
/// the buffer and cannot outlive the attribute they were read from (`~Escapable`, a lifetime borrowed from the
/// `IPPAttribute`, which holds the buffer), so reading them costs no reference counting. They read the wire exactly
/// as the views do — `IPPValueView` is made from an `IPPValueSpan` — with the same clamping: no read outside the
/// buffer's bytes. Use the views to keep or hash values, the spans to read many of them.

/// The UTF-8 bytes of a name or string value, in place (valid UTF-8 in a decoded message, see `IPPStringView`).
public struct IPPStringSpan: ~Escapable {
    @usableFromInline let start: UnsafePointer<UInt8>
    /// The number of UTF-8 bytes.
    public let utf8Count: Int

    @inlinable @_lifetime(immortal)
    init(_ start: UnsafePointer<UInt8>, count: Int) {
        self.start = start
        self.utf8Count = count
    }

    /// The bytes.
    public var utf8: Span<UInt8> {
        @inlinable @_lifetime(copy self)
        get { _overrideLifetime(Span(_unsafeElements: UnsafeBufferPointer(start: start, count: utf8Count)), copying: self) }
    }

    /// The string, made now (the interned literal for a registered name or keyword).
    public var string: String {
        IPPInternedStrings.lookup(start, count: utf8Count)
            ?? String(decoding: UnsafeBufferPointer(start: start, count: utf8Count), as: UTF8.self)
    }

    /// Whether the bytes are those of `string`, compared in place.
    @inlinable
    public static func == (span: borrowing IPPStringSpan, string: String) -> Bool {
        var string = string
        let have = UnsafeBufferPointer(start: span.start, count: span.utf8Count)
        return string.withUTF8 { wanted in have.count == wanted.count && have.elementsEqual(wanted) }
    }
}

/// The bytes of an `octetString` or unknown-syntax value, in place.
public struct IPPBytesSpan: ~Escapable {
    @usableFromInline let start: UnsafePointer<UInt8>
    /// The number of bytes, clamped so that they lie within the message's buffer.
    public let count: Int

    @inlinable @_lifetime(immortal)
    init(_ start: UnsafePointer<UInt8>, count: Int) {
        self.start = start
        self.count = count
    }

    /// The bytes.
    public var bytes: Span<UInt8> {
        @inlinable @_lifetime(copy self)
        get { _overrideLifetime(Span(_unsafeElements: UnsafeBufferPointer(start: start, count: count)), copying: self) }
    }
}

/// One attribute value read in place, with the cases of `IPPValueView`; valid while the attribute it came from is.
public enum IPPValueSpan: ~Escapable {
    /// An `integer` (tag 0x21): a signed 32-bit number, e.g. `copies` or `job-id`.
    case integer(Int32)
    /// A `boolean` (tag 0x22), e.g. `ipp-attribute-fidelity`; a decoded octet other than 0 reads as true.
    case boolean(Bool)
    /// An `enum` value such as `printer-state` 3 (idle).
    case enumValue(Int32)
    /// An `octetString` (tag 0x30): octets with no syntax of their own, read in place.
    case octetString(IPPBytesSpan)
    /// A `dateTime` (tag 0x31), e.g. `date-time-at-creation`.
    case dateTime(IPPDateTime)
    /// A `resolution` (tag 0x32), e.g. `printer-resolution` 600×600 dpi.
    case resolution(IPPResolution)
    /// A `rangeOfInteger` (tag 0x33), e.g. one range of `page-ranges`.
    case rangeOfInteger(IPPRange)
    /// A `textWithLanguage` (tag 0x35): text and the natural language it is in (instead of the message's), both as
    /// UTF-8 bytes read in place.
    case textWithLanguage(IPPStringSpan, language: IPPStringSpan)
    /// A `nameWithLanguage` (tag 0x36): a name and the natural language it is in (instead of the message's), both as
    /// UTF-8 bytes read in place.
    case nameWithLanguage(IPPStringSpan, language: IPPStringSpan)
    /// A `textWithoutLanguage` (tag 0x41): text in the message's natural language, e.g. `status-message`, as UTF-8
    /// bytes read in place.
    case text(IPPStringSpan)
    /// A `nameWithoutLanguage` (tag 0x42): a name in the message's natural language, e.g. `job-name`, as UTF-8 bytes
    /// read in place.
    case name(IPPStringSpan)
    /// A `keyword` (tag 0x44): an identifier such as `two-sided-long-edge`, as UTF-8 bytes read in place.
    case keyword(IPPStringSpan)
    /// A `uri` (tag 0x45) such as `ipp://printer.example/ipp/print`, as UTF-8 bytes read in place.
    case uri(IPPStringSpan)
    /// A `uriScheme` (tag 0x46): a scheme name such as `ipps`, as UTF-8 bytes read in place.
    case uriScheme(IPPStringSpan)
    /// A `charset` (tag 0x47): a charset name such as `utf-8` in `attributes-charset`, as UTF-8 bytes read in place.
    case charset(IPPStringSpan)
    /// A `naturalLanguage` (tag 0x48): a language tag such as `en` in `attributes-natural-language`, as UTF-8 bytes
    /// read in place.
    case naturalLanguage(IPPStringSpan)
    /// A `mimeMediaType` (tag 0x49): a media type such as `application/pdf` in `document-format`, as UTF-8 bytes read
    /// in place.
    case mimeMediaType(IPPStringSpan)
    /// A `collection` (`begCollection` 0x34 to `endCollection` 0x37), e.g. `media-col`: its members, read in place one
    /// by one.
    case collection(IPPCollectionSpan)
    /// An out-of-band value: the tag is the whole meaning.
    case outOfBand(IPPValueTag)
    /// Any other syntax, as its bytes.
    case other(IPPValueTag, IPPBytesSpan)
}

/// The values of an attribute or of a collection member, read one by one with `next()` in wire order.
public struct IPPValueSpans: ~Escapable {
    @usableFromInline let reader: IPPItemReader
    @usableFromInline var position: Int
    @usableFromInline let end: Int

    @inlinable @_lifetime(immortal)
    init(_ reader: IPPItemReader, start: Int, end: Int) {
        self.reader = reader
        self.position = start
        self.end = end
    }

    /// The next value (a collection's members are walked once to find its end), or nil after the last.
    // Always inlined, so that the value is made in the caller's registers rather than returned through memory.
    @inlinable @inline(__always) @_lifetime(copy self)
    public mutating func next() -> IPPValueSpan? {
        guard position < end else { return nil }
        let (value, next) = reader.value(item: position, end: end)
        position = Swift.max(next, position + 1)
        return _overrideLifetime(value, copying: self)
    }
}

/// A name and its values, read in place: an attribute (see `IPPAttributeGroup.attributeSpans`) or a collection member.
public struct IPPAttributeSpan: ~Escapable {
    /// The name.
    public let name: IPPStringSpan
    /// The values (more than one for a 1setOf).
    public let values: IPPValueSpans

    @inlinable @_lifetime(copy name, copy values)
    init(name: IPPStringSpan, values: IPPValueSpans) {
        self.name = name
        self.values = values
    }
}

/// The attributes of a group, read one by one with `next()` in wire order.
public struct IPPAttributeSpans: ~Escapable {
    @usableFromInline let reader: IPPItemReader
    @usableFromInline let attributes: UnsafePointer<IPPAttributeRecord>
    @usableFromInline var position: Int
    @usableFromInline let end: Int

    @inlinable @_lifetime(immortal)
    init(_ reader: IPPItemReader, attributes: UnsafePointer<IPPAttributeRecord>, start: Int, end: Int) {
        self.reader = reader
        self.attributes = attributes
        self.position = start
        self.end = end
    }

    /// The next attribute, or nil after the last.
    @inlinable @_lifetime(copy self)
    public mutating func next() -> IPPAttributeSpan? {
        guard position < end else { return nil }
        let record = attributes[position]
        position += 1
        let first = Int(record.firstItem)
        let item = reader.items[first]
        let attribute = IPPAttributeSpan(
            name: reader.string(start: item.nameStart, count: Int(item.nameLength)),
            values: IPPValueSpans(reader, start: first, end: first + Int(record.itemCount)))
        return _overrideLifetime(attribute, copying: self)
    }
}

/// A `collection` value read in place: its members in wire order with `next()`.
public struct IPPCollectionSpan: ~Escapable {
    /// One member: its name and its values (more than one for a 1setOf member).
    public typealias Member = IPPAttributeSpan

    @usableFromInline let reader: IPPItemReader
    /// The buffer's item index of the next member's memberAttrName item.
    @usableFromInline var position: Int
    /// The endCollection item (or the end of the enclosing values, for a collection that never closes).
    @usableFromInline let end: Int

    @inlinable @_lifetime(immortal)
    init(_ reader: IPPItemReader, start: Int, end: Int) {
        self.reader = reader
        self.position = start
        self.end = end
    }

    /// The next member, or nil after the last (its values are found with one walk to the member after it).
    @inlinable @_lifetime(copy self)
    public mutating func next() -> Member? {
        guard position < end else { return nil }
        let first = position
        position = reader.nextMember(after: first, end: end)
        let item = reader.items[first]
        // A well-formed collection starts with a memberAttrName; anything else reads as a member with no name.
        let named = item.tag == 0x4A
        let member = Member(
            name: named ? reader.string(start: item.valueStart, count: Int(item.valueLength)) : reader.string(start: 0, count: 0),
            values: IPPValueSpans(reader, start: named ? first + 1 : first, end: position))
        return _overrideLifetime(member, copying: self)
    }
}

extension IPPAttributeGroup {
    /// Every attribute, its name and values read in place with `next()`; valid while this group is. Reading them
    /// allocates nothing and retains nothing (unlike `IPPAttribute`s, which hold the message's buffer).
    public var attributeSpans: IPPAttributeSpans {
        @inlinable @_lifetime(borrow self)
        get {
            let record = box.groups[index]
            let first = Int(record.firstAttribute)
            let spans = IPPAttributeSpans(
                IPPItemReader(box), attributes: UnsafePointer(box.attributePointer), start: first,
                end: first + Int(record.attributeCount))
            return _overrideLifetime(spans, borrowing: self)
        }
    }
}

extension IPPAttribute {
    /// The name, read in place; valid while this attribute is.
    public var nameSpan: IPPStringSpan {
        @inlinable @_lifetime(borrow self)
        get {
            let reader = IPPItemReader(box)
            let item = reader.items[firstItem]
            return _overrideLifetime(reader.string(start: item.nameStart, count: Int(item.nameLength)), borrowing: self)
        }
    }

    /// Every value, read in place with `next()`; valid while this attribute is. Reading them allocates nothing and
    /// retains nothing.
    public var valueSpans: IPPValueSpans {
        @inlinable @_lifetime(borrow self)
        get {
            _overrideLifetime(IPPValueSpans(IPPItemReader(box), start: firstItem, end: firstItem + Int(record.itemCount)), borrowing: self)
        }
    }
}

/// Reads the items and wire bytes of a buffer through pointers, so that reading holds no reference; whoever makes
/// one keeps the buffer alive for as long as it is used (the spans do so through their lifetime). Defensive like the
/// rest of the readers: every byte read is checked against the buffer's byte count.
@usableFromInline
struct IPPItemReader {
    @usableFromInline let items: UnsafePointer<IPPItem>
    @usableFromInline let bytes: UnsafePointer<UInt8>
    @usableFromInline let byteCount: Int

    @inlinable
    init(_ box: IPPStorageBox) {
        items = UnsafePointer(box.itemPointer)
        bytes = UnsafePointer(box.bytePointer)
        byteCount = box.head.pointee.byteCount
    }

    /// The bytes `start..<start + count`, clamped to the buffer's bytes.
    @inlinable @inline(__always) @_lifetime(immortal)
    func string(start: Int, count: Int) -> IPPStringSpan {
        let first = Swift.min(Swift.max(start, 0), byteCount)
        return IPPStringSpan(bytes + first, count: Swift.min(Swift.max(count, 0), byteCount - first))
    }

    @inlinable @inline(__always) @_lifetime(immortal)
    func octets(start: Int, count: Int) -> IPPBytesSpan {
        let first = Swift.min(Swift.max(start, 0), byteCount)
        return IPPBytesSpan(bytes + first, count: Swift.min(Swift.max(count, 0), byteCount - first))
    }

    /// Big-endian integer of `width` bytes at `offset` (0 past the end, never traps).
    @inlinable @inline(__always)
    func integer(at offset: Int, width: Int) -> UInt32 {
        guard offset >= 0, offset + width <= byteCount else { return 0 }
        var value: UInt32 = 0
        for index in offset..<(offset + width) {
            value = value << 8 | UInt32(bytes[index])
        }
        return value
    }

    /// The byte at `offset` (0 past the end, never traps).
    @inlinable @inline(__always)
    func byte(at offset: Int) -> UInt8 {
        offset >= 0 && offset < byteCount ? bytes[offset] : 0
    }

    /// The value starting at item `index`, and the index of the item after it (after the matching endCollection for
    /// a collection). A malformed item reads as `.other`.
    @inlinable @inline(__always) @_lifetime(immortal)
    func value(item index: Int, end: Int) -> (value: IPPValueSpan, next: Int) {
        let item = items[index]
        let start = item.valueStart
        let length = Int(item.valueLength)
        let tag = item.tag
        switch tag {
        case 0x21 where length == 4:
            return (.integer(Int32(bitPattern: integer(at: start, width: 4))), index + 1)
        case 0x23 where length == 4:
            return (.enumValue(Int32(bitPattern: integer(at: start, width: 4))), index + 1)
        case 0x22 where length == 1:
            return (.boolean(byte(at: start) != 0), index + 1)
        case 0x30:
            return (.octetString(octets(start: start, count: length)), index + 1)
        case 0x31 where length == 11:
            let date = IPPDateTime(
                year: UInt16(integer(at: start, width: 2)), month: byte(at: start + 2), day: byte(at: start + 3),
                hour: byte(at: start + 4), minutes: byte(at: start + 5), seconds: byte(at: start + 6),
                deciseconds: byte(at: start + 7), utcDirection: byte(at: start + 8),
                utcHours: byte(at: start + 9), utcMinutes: byte(at: start + 10))
            return (.dateTime(date), index + 1)
        case 0x32 where length == 9:
            let resolution = IPPResolution(
                crossFeed: Int32(bitPattern: integer(at: start, width: 4)),
                feed: Int32(bitPattern: integer(at: start + 4, width: 4)),
                units: IPPResolution.Units(rawValue: byte(at: start + 8)))
            return (.resolution(resolution), index + 1)
        case 0x33 where length == 8:
            let range = IPPRange(
                Int32(bitPattern: integer(at: start, width: 4)),
                Int32(bitPattern: integer(at: start + 4, width: 4)))
            return (.rangeOfInteger(range), index + 1)
        case 0x35, 0x36:
            // Two length-prefixed strings, language first, that must fill the value.
            guard length >= 4 else { break }
            let languageLength = Int(integer(at: start, width: 2))
            guard 4 + languageLength <= length else { break }
            let textLength = Int(integer(at: start + 2 + languageLength, width: 2))
            guard 4 + languageLength + textLength == length else { break }
            let text = string(start: start + 4 + languageLength, count: textLength)
            let language = string(start: start + 2, count: languageLength)
            return (tag == 0x35 ? .textWithLanguage(text, language: language) : .nameWithLanguage(text, language: language), index + 1)
        case 0x34:
            let next = collectionEnd(at: index, end: end)
            // `next` is one past the endCollection item (or `end` for a collection that never closes).
            let close = next > index + 1 && items[next - 1].tag == 0x37 ? next - 1 : next
            return (.collection(IPPCollectionSpan(self, start: index + 1, end: close)), next)
        case 0x10...0x1F:
            return (.outOfBand(IPPValueTag(rawValue: UInt32(tag))), index + 1)
        case 0x41: return (.text(string(start: start, count: length)), index + 1)
        case 0x42: return (.name(string(start: start, count: length)), index + 1)
        case 0x44: return (.keyword(string(start: start, count: length)), index + 1)
        case 0x45: return (.uri(string(start: start, count: length)), index + 1)
        case 0x46: return (.uriScheme(string(start: start, count: length)), index + 1)
        case 0x47: return (.charset(string(start: start, count: length)), index + 1)
        case 0x48: return (.naturalLanguage(string(start: start, count: length)), index + 1)
        case 0x49: return (.mimeMediaType(string(start: start, count: length)), index + 1)
        case 0x7F where length >= 4:
            let extended = IPPValueTag(rawValue: integer(at: start, width: 4))
            return (.other(extended, octets(start: start + 4, count: length - 4)), index + 1)
        default:
            break
        }
        return (.other(IPPValueTag(rawValue: UInt32(tag)), octets(start: start, count: length)), index + 1)
    }

    /// The item after the endCollection that closes the collection whose begCollection item is at `index` (`end` if
    /// it never closes).
    @inlinable
    func collectionEnd(at index: Int, end: Int) -> Int {
        var depth = 0
        var cursor = index
        while cursor < end {
            switch items[cursor].tag {
            case 0x34: depth += 1
            case 0x37:
                depth -= 1
                if depth == 0 { return cursor + 1 }
            default: break
            }
            cursor += 1
        }
        return end
    }

    /// The item of the collection member after the one at `index` (its next memberAttrName at the same depth),
    /// or `end`.
    @inlinable
    func nextMember(after index: Int, end: Int) -> Int {
        var cursor = index + 1
        while cursor < end {
            switch items[cursor].tag {
            case 0x4A: return cursor
            case 0x34: cursor = collectionEnd(at: cursor, end: end)
            default: cursor += 1
            }
        }
        return end
    }
}
