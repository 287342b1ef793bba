/// The compact representation behind `IPPMessage`.
///
/// Every attribute value (and every group delimiter) is an `IPPItem` that
/// points at its wire form — tag, name length, name, value length, value —
/// in `bytes`. A decoded message keeps the input bytes as they came, so
/// decoding allocates a handful of arrays instead of one object per value,
/// names and values are read in place, and encoding copies spans (adjacent
/// spans in one go). Builders append wire-form bytes the same way.
@usableFromInline
struct IPPStorage: Sendable {
    /// Wire-form bytes the items point into (for a decoded message: the input, header included).
    @usableFromInline var bytes: [UInt8]
    /// Group delimiters and values, in message order.
    @usableFromInline var items: [IPPItem]
    /// Attributes, in message order; each covers a run of items.
    @usableFromInline var attributes: [IPPAttributeRecord]
    /// Groups, in message order; each covers a run of attributes.
    @usableFromInline var groups: [IPPGroupRecord]
    /// The first value a builder could not encode; the encoder reports it.
    @usableFromInline var problem: IPPError?

    @usableFromInline
    init(
        bytes: [UInt8] = [], items: [IPPItem] = [], attributes: [IPPAttributeRecord] = [],
        groups: [IPPGroupRecord] = [], problem: IPPError? = nil
    ) {
        self.bytes = bytes
        self.items = items
        self.attributes = attributes
        self.groups = groups
        self.problem = problem
    }
}

/// The one reference a message and its views (groups, attributes) share, so that making or copying a view
/// retains one object instead of each of the storage's arrays (those retains and releases were ~40 % of reading
/// every attribute of a message).
///
/// The storage is a `let`: views read it in place, where a mutable stored property would be copied (every
/// array retained) for each method call on it. `IPPMessage` changes its storage by taking it out of a box it
/// alone holds (the arrays are then unshared, and change in place) and putting it into a new one.
@usableFromInline
final class IPPStorageBox: Sendable {
    @usableFromInline let storage: IPPStorage

    @usableFromInline
    init(_ storage: IPPStorage) { self.storage = storage }

    /// The box of every message made without attributes, so that making one allocates nothing.
    @usableFromInline static let empty = IPPStorageBox(IPPStorage())
}

/// One group delimiter or value in wire form (12 bytes).
@usableFromInline
struct IPPItem: Sendable, Hashable {
    /// Offset of the tag byte in `IPPStorage.bytes`.
    @usableFromInline var start: UInt32
    @usableFromInline var nameLength: UInt16
    @usableFromInline var valueLength: UInt16
    /// The wire tag byte (0x7F for extension values; < 0x10 for group delimiters).
    @usableFromInline var tag: UInt8

    @inlinable
    init(start: UInt32, nameLength: UInt16, valueLength: UInt16, tag: UInt8) {
        self.start = start
        self.nameLength = nameLength
        self.valueLength = valueLength
        self.tag = tag
    }

    @inlinable var isDelimiter: Bool { tag < 0x10 }
    /// Bytes this item occupies on the wire.
    @inlinable var wireLength: Int { isDelimiter ? 1 : 5 + Int(nameLength) + Int(valueLength) }
    @inlinable var nameStart: Int { Int(start) + 3 }
    @inlinable var valueStart: Int { Int(start) + 5 + Int(nameLength) }
}

/// One attribute: its items (values and, for collections, member items) and top-level value count.
@usableFromInline
struct IPPAttributeRecord: Sendable, Hashable {
    @usableFromInline var firstItem: UInt32
    @usableFromInline var itemCount: UInt32
    @usableFromInline var valueCount: UInt32

    @inlinable
    init(firstItem: UInt32, itemCount: UInt32, valueCount: UInt32) {
        self.firstItem = firstItem
        self.itemCount = itemCount
        self.valueCount = valueCount
    }
}

/// One attribute group: its delimiter item and its run of attributes.
@usableFromInline
struct IPPGroupRecord: Sendable, Hashable {
    @usableFromInline var tag: UInt8
    @usableFromInline var delimiterItem: UInt32
    @usableFromInline var firstAttribute: UInt32
    @usableFromInline var attributeCount: UInt32

    @inlinable
    init(tag: UInt8, delimiterItem: UInt32, firstAttribute: UInt32, attributeCount: UInt32) {
        self.tag = tag
        self.delimiterItem = delimiterItem
        self.firstAttribute = firstAttribute
        self.attributeCount = attributeCount
    }
}

// MARK: Reading

extension IPPStorage {
    /// Whether an item's name equals `name`, compared in place.
    @inlinable
    func nameEquals(item index: Int, _ name: String) -> Bool {
        let item = items[index]
        var name = name
        return name.withUTF8 { wanted in
            guard wanted.count == Int(item.nameLength) else { return false }
            return bytes.withUnsafeBufferPointer { all in
                let start = item.nameStart
                guard start + wanted.count <= all.count else { return false }
                for offset in 0..<wanted.count where all[start + offset] != wanted[offset] {
                    return false
                }
                return true
            }
        }
    }

    /// The item's name as a String.
    @usableFromInline
    func name(item index: Int) -> String {
        let item = items[index]
        return internedString(from: item.nameStart, count: Int(item.nameLength))
    }

    /// Bytes as a String, the interned literal when they are a registered name or keyword (see
    /// `IPPInternedStrings`): such a string allocates nothing and is not reference counted.
    @usableFromInline
    func internedString(from start: Int, count: Int) -> String {
        if count > 15 {
            let interned = bytes.withUnsafeBufferPointer { all -> String? in
                guard start >= 0, start + count <= all.count, let base = all.baseAddress else { return nil }
                return IPPInternedStrings.lookup(base + start, count: count)
            }
            if let interned { return interned }
        }
        return string(from: start, count: count)
    }

    /// Bytes as a String; invalid UTF-8 is repaired rather than trapping.
    @usableFromInline
    func string(from start: Int, count: Int) -> String {
        bytes.withUnsafeBufferPointer { all in
            let end = min(start + count, all.count)
            guard start >= 0, start <= end else { return "" }
            return String(decoding: UnsafeBufferPointer(rebasing: all[start..<end]), as: UTF8.self)
        }
    }

    /// Big-endian integer of `width` bytes at `offset` (0 past the end, never traps).
    @usableFromInline
    func integer(at offset: Int, width: Int) -> UInt32 {
        guard offset >= 0, offset + width <= bytes.count else { return 0 }
        var value: UInt32 = 0
        for index in offset..<(offset + width) {
            value = value << 8 | UInt32(bytes[index])
        }
        return value
    }

    /// The syntax of a value item; extension values report the tag from their first four bytes.
    @usableFromInline
    func valueTag(item index: Int) -> IPPValueTag {
        let item = items[index]
        if item.tag == 0x7F && item.valueLength >= 4 {
            return IPPValueTag(rawValue: integer(at: item.valueStart, width: 4))
        }
        return IPPValueTag(rawValue: UInt32(item.tag))
    }

    /// Index one past the last item of `group`.
    @usableFromInline
    func endItem(ofGroup group: Int) -> Int {
        group + 1 < groups.count ? Int(groups[group + 1].delimiterItem) : items.count
    }

    /// The first attribute of `group` with this name, compared in place without making Strings.
    @usableFromInline
    func attribute(named name: String, inGroup group: Int) -> Int? {
        let record = groups[group]
        let first = Int(record.firstAttribute)
        for attribute in first..<(first + Int(record.attributeCount))
        where nameEquals(item: Int(attributes[attribute].firstItem), name) {
            return attribute
        }
        return nil
    }

    /// The group an attribute belongs to (binary search over the group records).
    @usableFromInline
    func group(ofAttribute attribute: Int) -> Int {
        var low = 0
        var high = groups.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if Int(groups[middle].firstAttribute) <= attribute { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
