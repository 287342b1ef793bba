/// Typed views of a message's names and values, read in place from its buffer (see `IPPStorageBox`).
///
/// `IPPAttribute.values` materialises owned `IPPValue`s (Strings, arrays, collections with member arrays), which
/// allocates for every string and collection. The views here carry a checked byte range into the message's buffer
/// instead: walking a whole message as views allocates nothing, and a String is made only when asked for. Every view
/// holds the buffer, so it stays valid as long as it is kept; the buffer of a message never changes while a view of
/// it exists (see `IPPStorageBox`).

/// The UTF-8 bytes of a name or string value in a message's buffer.
///
/// A decoded message's strings were checked to be valid UTF-8 when it was decoded. Compares with a `String` and
/// hashes without making one; `string` (and `description`) make one on demand — the interned literal for a
/// registered name or keyword, which allocates nothing either.
// Unchecked: the buffer is never changed while a view of it exists (see `IPPStorageBox`).
public struct IPPStringView: @unchecked Sendable, Hashable, CustomStringConvertible {
    @usableFromInline let box: IPPStorageBox
    @usableFromInline let start: Int
    /// The number of UTF-8 bytes.
    public let utf8Count: Int

    /// The bytes `start..<start + count`, clamped to the buffer's bytes so that reading never goes past them.
    @inlinable
    init(box: IPPStorageBox, start: Int, count: Int) {
        let limit = box.head.pointee.byteCount
        let first = Swift.min(Swift.max(start, 0), limit)
        self.box = box
        self.start = first
        self.utf8Count = Swift.min(Swift.max(count, 0), limit - first)
    }

    /// The bytes, valid only inside `body`.
    @inlinable
    public func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: box.bytePointer + start, count: utf8Count))
    }

    /// The bytes as a collection.
    public var utf8: IPPBytesView { IPPBytesView(box: box, start: start, count: utf8Count) }

    /// The string, made now (the interned literal for a registered name or keyword).
    public var string: String { box.internedString(from: start, count: utf8Count) }

    /// The string, made now, as ``string``.
    public var description: String { string }

    /// The string, made now without looking it up among the interned ones (for text, names and URIs, which are
    /// rarely registered strings).
    @usableFromInline var plainString: String { box.string(from: start, count: utf8Count) }

    /// Whether the bytes are those of `string`, compared in place.
    @inlinable
    public static func == (view: IPPStringView, string: String) -> Bool {
        var string = string
        return string.withUTF8 { wanted in
            view.withUTF8 { have in
                have.count == wanted.count && have.elementsEqual(wanted)
            }
        }
    }

    /// Whether `string`'s UTF-8 bytes are the view's, compared in place without making a `String`.
    @inlinable
    public static func == (string: String, view: IPPStringView) -> Bool { view == string }

    /// Whether the view's bytes differ from `string`'s UTF-8 bytes, compared in place without making a `String`.
    @inlinable
    public static func != (view: IPPStringView, string: String) -> Bool { !(view == string) }

    /// Whether `string`'s UTF-8 bytes differ from the view's, compared in place without making a `String`.
    @inlinable
    public static func != (string: String, view: IPPStringView) -> Bool { !(view == string) }

    /// Views are equal when their bytes are, wherever they are.
    public static func == (lhs: IPPStringView, rhs: IPPStringView) -> Bool {
        lhs.withUTF8 { left in rhs.withUTF8 { right in left.elementsEqual(right) } }
    }

    /// Hashes the bytes, so views with the same bytes hash alike wherever they are.
    public func hash(into hasher: inout Hasher) {
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// Bytes of an `octetString` or unknown-syntax value in a message's buffer.
// Unchecked: the buffer is never changed while a view of it exists (see `IPPStorageBox`).
public struct IPPBytesView: @unchecked Sendable, Hashable, RandomAccessCollection {
    @usableFromInline let box: IPPStorageBox
    @usableFromInline let start: Int
    /// The number of bytes.
    public let count: Int

    /// The bytes `start..<start + count`, clamped to the buffer's bytes so that reading never goes past them.
    @inlinable
    init(box: IPPStorageBox, start: Int, count: Int) {
        let limit = box.head.pointee.byteCount
        let first = Swift.min(Swift.max(start, 0), limit)
        self.box = box
        self.start = first
        self.count = Swift.min(Swift.max(count, 0), limit - first)
    }

    /// The position of the first byte: always 0.
    public var startIndex: Int { 0 }
    /// The position after the last byte: ``count``.
    public var endIndex: Int { count }

    /// The byte at a position, counted from the view's first byte.
    public subscript(position: Int) -> UInt8 {
        // The bytes are read through an unchecked pointer: a position outside the view traps here, as an array's would.
        precondition(position >= 0 && position < count, "IPPBytesView index out of range")
        return box.bytePointer[start + position]
    }

    /// The bytes, valid only inside `body`.
    public func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: box.bytePointer + start, count: count))
    }

    /// Views are equal when their bytes are, wherever they are.
    public static func == (lhs: IPPBytesView, rhs: IPPBytesView) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in left.elementsEqual(right) } }
    }

    /// Hashes the bytes, so views with the same bytes hash alike wherever they are.
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// One attribute value as a typed view of the message's buffer: the cases of `IPPValue`, with strings, octets and
/// collections read in place. `owned` makes the `IPPValue`.
// Unchecked: the buffer is never changed while a view of it exists (see `IPPStorageBox`).
public enum IPPValueView: @unchecked Sendable, Hashable {
    /// An `integer` (tag 0x21): a signed 32-bit number, e.g. `copies` or `job-id`.
    case integer(Int32)
    /// A `boolean` (tag 0x22), e.g. `ipp-attribute-fidelity`; a decoded octet other than 0 reads as true.
    case boolean(Bool)
    /// An `enum` value such as `printer-state` 3 (idle).
    case enumValue(Int32)
    /// An `octetString` (tag 0x30): octets with no syntax of their own, a view of the message's buffer.
    case octetString(IPPBytesView)
    /// A `dateTime` (tag 0x31), e.g. `date-time-at-creation`.
    case dateTime(IPPDateTime)
    /// A `resolution` (tag 0x32), e.g. `printer-resolution` 600×600 dpi.
    case resolution(IPPResolution)
    /// A `rangeOfInteger` (tag 0x33), e.g. one range of `page-ranges`.
    case rangeOfInteger(IPPRange)
    /// A `textWithLanguage` (tag 0x35): text and the natural language it is in (instead of the message's), both as
    /// UTF-8 bytes in the message's buffer.
    case textWithLanguage(IPPStringView, language: IPPStringView)
    /// A `nameWithLanguage` (tag 0x36): a name and the natural language it is in (instead of the message's), both as
    /// UTF-8 bytes in the message's buffer.
    case nameWithLanguage(IPPStringView, language: IPPStringView)
    /// A `textWithoutLanguage` (tag 0x41): text in the message's natural language, e.g. `status-message`, as UTF-8
    /// bytes in the message's buffer.
    case text(IPPStringView)
    /// A `nameWithoutLanguage` (tag 0x42): a name in the message's natural language, e.g. `job-name`, as UTF-8 bytes in
    /// the message's buffer.
    case name(IPPStringView)
    /// A `keyword` (tag 0x44): an identifier such as `two-sided-long-edge`, as UTF-8 bytes in the message's buffer.
    case keyword(IPPStringView)
    /// A `uri` (tag 0x45) such as `ipp://printer.example/ipp/print`, as UTF-8 bytes in the message's buffer.
    case uri(IPPStringView)
    /// A `uriScheme` (tag 0x46): a scheme name such as `ipps`, as UTF-8 bytes in the message's buffer.
    case uriScheme(IPPStringView)
    /// A `charset` (tag 0x47): a charset name such as `utf-8` in `attributes-charset`, as UTF-8 bytes in the message's
    /// buffer.
    case charset(IPPStringView)
    /// A `naturalLanguage` (tag 0x48): a language tag such as `en` in `attributes-natural-language`, as UTF-8 bytes in
    /// the message's buffer.
    case naturalLanguage(IPPStringView)
    /// A `mimeMediaType` (tag 0x49): a media type such as `application/pdf` in `document-format`, as UTF-8 bytes in the
    /// message's buffer.
    case mimeMediaType(IPPStringView)
    /// A `collection` (`begCollection` 0x34 to `endCollection` 0x37), e.g. `media-col`: its members, as views of the
    /// message's buffer.
    case collection(IPPCollectionView)
    /// An out-of-band value: the tag is the whole meaning.
    case outOfBand(IPPValueTag)
    /// Any other syntax, as its bytes.
    case other(IPPValueTag, IPPBytesView)

    /// The view of a span of `box`'s bytes, which start at `base`.
    @inlinable
    init(_ span: borrowing IPPValueSpan, box: IPPStorageBox, base: UnsafePointer<UInt8>) {
        func string(_ string: borrowing IPPStringSpan) -> IPPStringView {
            IPPStringView(box: box, start: string.start - base, count: string.utf8Count)
        }
        func bytes(_ bytes: borrowing IPPBytesSpan) -> IPPBytesView {
            IPPBytesView(box: box, start: bytes.start - base, count: bytes.count)
        }
        switch span {
        case .integer(let value): self = .integer(value)
        case .boolean(let value): self = .boolean(value)
        case .enumValue(let value): self = .enumValue(value)
        case .octetString(let value): self = .octetString(bytes(value))
        case .dateTime(let value): self = .dateTime(value)
        case .resolution(let value): self = .resolution(value)
        case .rangeOfInteger(let value): self = .rangeOfInteger(value)
        case .textWithLanguage(let text, let language): self = .textWithLanguage(string(text), language: string(language))
        case .nameWithLanguage(let text, let language): self = .nameWithLanguage(string(text), language: string(language))
        case .text(let value): self = .text(string(value))
        case .name(let value): self = .name(string(value))
        case .keyword(let value): self = .keyword(string(value))
        case .uri(let value): self = .uri(string(value))
        case .uriScheme(let value): self = .uriScheme(string(value))
        case .charset(let value): self = .charset(string(value))
        case .naturalLanguage(let value): self = .naturalLanguage(string(value))
        case .mimeMediaType(let value): self = .mimeMediaType(string(value))
        case .collection(let value): self = .collection(IPPCollectionView(box: box, start: value.position, end: value.end))
        case .outOfBand(let tag): self = .outOfBand(tag)
        case .other(let tag, let value): self = .other(tag, bytes(value))
        }
    }

    /// The integer of an `integer` or `enum` value.
    public var integerValue: Int32? {
        switch self {
        case .integer(let value), .enumValue(let value): value
        default: nil
        }
    }

    /// The value of a `boolean`.
    public var booleanValue: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    /// The string of any text, name or character-string value (without its language), still in place.
    public var stringView: IPPStringView? {
        switch self {
        case .textWithLanguage(let value, _), .nameWithLanguage(let value, _), .text(let value),
            .name(let value), .keyword(let value), .uri(let value), .uriScheme(let value),
            .charset(let value), .naturalLanguage(let value), .mimeMediaType(let value):
            value
        default: nil
        }
    }

    /// The members of a `collection`, in place.
    public var collectionValue: IPPCollectionView? {
        if case .collection(let value) = self { return value }
        return nil
    }

    /// The value as an owned `IPPValue` (Strings and arrays made now).
    public var owned: IPPValue {
        switch self {
        case .integer(let value): .integer(value)
        case .boolean(let value): .boolean(value)
        case .enumValue(let value): .enumValue(value)
        case .octetString(let bytes): .octetString(Array(bytes))
        case .dateTime(let value): .dateTime(value)
        case .resolution(let value): .resolution(value)
        case .rangeOfInteger(let value): .rangeOfInteger(value)
        case .textWithLanguage(let text, let language): .textWithLanguage(text.plainString, language: language.plainString)
        case .nameWithLanguage(let text, let language): .nameWithLanguage(text.plainString, language: language.plainString)
        case .text(let value): .text(value.plainString)
        case .name(let value): .name(value.plainString)
        case .keyword(let value): .keyword(value.string)
        case .uri(let value): .uri(value.plainString)
        case .uriScheme(let value): .uriScheme(value.string)
        case .charset(let value): .charset(value.string)
        case .naturalLanguage(let value): .naturalLanguage(value.plainString)
        case .mimeMediaType(let value): .mimeMediaType(value.string)
        case .collection(let collection):
            .collection(IPPCollection(collection.map { IPPCollection.Member(name: $0.name.string, values: $0.values.map(\.owned)) }))
        case .outOfBand(let tag): .outOfBand(tag)
        case .other(let tag, let bytes): .other(tag, Array(bytes))
        }
    }
}

/// The values of an attribute or of a collection member, as typed views in wire order.
///
/// Positions are the buffer's item indices: moving to the next value skips a collection's members.
// Unchecked: the buffer is never changed while a view of it exists (see `IPPStorageBox`).
public struct IPPValueViews: @unchecked Sendable, Collection {
    @usableFromInline let box: IPPStorageBox
    /// The item of the first value.
    public let startIndex: Int
    /// The item after the last value (after its endCollection, for a collection).
    public let endIndex: Int

    @inlinable
    init(box: IPPStorageBox, start: Int, end: Int) {
        self.box = box
        self.startIndex = start
        self.endIndex = end
    }

    /// The item of the next value: one on, or past a collection's members.
    @inlinable
    public func index(after position: Int) -> Int { box.nextValue(after: position, end: endIndex) }

    /// The value starting at a position (an item index from this collection's indices).
    public subscript(position: Int) -> IPPValueView {
        precondition(position >= startIndex && position < endIndex, "IPPValueViews index out of range")
        return box.valueView(item: position, end: endIndex).view
    }

    /// Reads each value once (a collection's members are walked once to find its end).
    public struct Iterator: IteratorProtocol {
        @usableFromInline let box: IPPStorageBox
        @usableFromInline var position: Int
        @usableFromInline let end: Int

        @inlinable
        init(box: IPPStorageBox, position: Int, end: Int) {
            self.box = box
            self.position = position
            self.end = end
        }

        /// The next value, or nil after the last.
        @inlinable
        public mutating func next() -> IPPValueView? {
            guard position < end else { return nil }
            let (view, next) = box.valueView(item: position, end: end)
            position = Swift.max(next, position + 1)
            return view
        }
    }

    /// An iterator over the values from the first.
    @inlinable
    public func makeIterator() -> Iterator { Iterator(box: box, position: startIndex, end: endIndex) }
}

/// A `collection` value read in place: its members in wire order, each a name and its values.
///
/// Positions are the buffer's item indices of the members' memberAttrName items.
// Unchecked: the buffer is never changed while a view of it exists (see `IPPStorageBox`).
public struct IPPCollectionView: @unchecked Sendable, Hashable, Collection {
    /// One member: its name and its values (more than one for a 1setOf member).
    // Unchecked: the buffer is never changed while a view of it exists (see `IPPStorageBox`).
    public struct Member: @unchecked Sendable {
        // One reference to the buffer for both the name and the values: each view made from it is only retained
        // when it is kept.
        @usableFromInline let box: IPPStorageBox
        /// The memberAttrName item (a well-formed collection starts with one; anything else reads as a member with
        /// no name).
        @usableFromInline let position: Int
        /// The next member's memberAttrName item, or the collection's end.
        @usableFromInline let next: Int

        @inlinable
        init(box: IPPStorageBox, position: Int, next: Int) {
            self.box = box
            self.position = position
            self.next = next
        }

        /// The member's name.
        @inlinable
        public var name: IPPStringView {
            let item = box.items[position]
            guard item.tag == 0x4A else { return IPPStringView(box: box, start: 0, count: 0) }
            return IPPStringView(box: box, start: item.valueStart, count: Int(item.valueLength))
        }

        /// The member's values (more than one for a 1setOf member).
        @inlinable
        public var values: IPPValueViews {
            IPPValueViews(box: box, start: box.items[position].tag == 0x4A ? position + 1 : position, end: next)
        }
    }

    @usableFromInline let box: IPPStorageBox
    /// The item after the begCollection item.
    public let startIndex: Int
    /// The endCollection item (or the end of the enclosing values, for a collection that never closes).
    public let endIndex: Int

    @inlinable
    init(box: IPPStorageBox, start: Int, end: Int) {
        self.box = box
        self.startIndex = start
        self.endIndex = end
    }

    /// The memberAttrName item of the next member, past this member's values.
    @inlinable
    public func index(after position: Int) -> Int { box.nextMember(after: position, end: endIndex) }

    /// The member starting at a position (an item index from this collection's indices).
    public subscript(position: Int) -> Member {
        precondition(position >= startIndex && position < endIndex, "IPPCollectionView index out of range")
        return Member(box: box, position: position, next: index(after: position))
    }

    /// Reads each member once (its values are found with one walk to the next member).
    public struct Iterator: IteratorProtocol {
        @usableFromInline let box: IPPStorageBox
        @usableFromInline var position: Int
        @usableFromInline let end: Int

        @inlinable
        init(box: IPPStorageBox, position: Int, end: Int) {
            self.box = box
            self.position = position
            self.end = end
        }

        /// The next member, or nil after the last.
        @inlinable
        public mutating func next() -> Member? {
            guard position < end else { return nil }
            let next = box.nextMember(after: position, end: end)
            defer { position = next }
            return Member(box: box, position: position, next: next)
        }
    }

    /// An iterator over the members from the first.
    @inlinable
    public func makeIterator() -> Iterator { Iterator(box: box, position: startIndex, end: endIndex) }

    /// The first member with this name.
    public subscript(name: String) -> Member? {
        var position = startIndex
        while position < endIndex {
            let next = index(after: position)
            let item = box.items[position]
            if item.tag == 0x4A, box.valueEquals(item: position, name) { return Member(box: box, position: position, next: next) }
            position = next
        }
        return nil
    }

    /// Two views are equal when their members are, byte for byte.
    public static func == (lhs: IPPCollectionView, rhs: IPPCollectionView) -> Bool {
        guard lhs.endIndex - lhs.startIndex == rhs.endIndex - rhs.startIndex else { return false }
        for (left, right) in zip(lhs.box.items[lhs.startIndex..<lhs.endIndex], rhs.box.items[rhs.startIndex..<rhs.endIndex]) {
            guard left.tag == right.tag, left.nameLength == right.nameLength, left.valueLength == right.valueLength,
                lhs.box.bytes[left.valueStart..<(left.valueStart + Int(left.valueLength))]
                    .elementsEqual(rhs.box.bytes[right.valueStart..<(right.valueStart + Int(right.valueLength))])
            else { return false }
        }
        return true
    }

    /// Hashes the members' tags and bytes, the parts `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(endIndex - startIndex)
        for item in box.items[startIndex..<endIndex] {
            hasher.combine(item.tag)
            hasher.combine(
                bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: box.bytes[item.valueStart..<(item.valueStart + Int(item.valueLength))])))
        }
    }
}

// MARK: Reading views

extension IPPStorageBox {
    /// The value starting at item `index` as a view, and the index of the item after it (after the matching
    /// endCollection for a collection): the span of it (see `IPPItemReader.value`), made to hold the buffer.
    // Inlined into the callers' loops, so that a view whose buffer reference is not kept is not retained.
    @inlinable @inline(__always)
    func valueView(item index: Int, end: Int) -> (view: IPPValueView, next: Int) {
        let reader = IPPItemReader(self)
        let (span, next) = reader.value(item: index, end: end)
        return (IPPValueView(span, box: self, base: reader.bytes), next)
    }

    /// Text and language of a with-language value (two length-prefixed strings, language first); nil when the
    /// inner lengths do not fill the value.
    @inlinable
    func withLanguageViews(start: Int, length: Int) -> (text: IPPStringView, language: IPPStringView)? {
        guard length >= 4 else { return nil }
        let languageLength = Int(integer(at: start, width: 2))
        guard 4 + languageLength <= length else { return nil }
        let textLength = Int(integer(at: start + 2 + languageLength, width: 2))
        guard 4 + languageLength + textLength == length else { return nil }
        return (
            IPPStringView(box: self, start: start + 4 + languageLength, count: textLength),
            IPPStringView(box: self, start: start + 2, count: languageLength)
        )
    }

    /// The item of the collection member after the one at `index` (its next memberAttrName at the same depth),
    /// or `end`.
    @inlinable
    func nextMember(after index: Int, end: Int) -> Int { IPPItemReader(self).nextMember(after: index, end: end) }

    /// Whether an item's value equals `string`, compared in place.
    @usableFromInline
    func valueEquals(item index: Int, _ string: String) -> Bool {
        let item = items[index]
        return IPPStringView(box: self, start: item.valueStart, count: Int(item.valueLength)) == string
    }
}
