/// The compact representation behind `IPPMessage`: one buffer per message.
///
/// Every attribute value (and every group delimiter) is an `IPPItem` that
/// points at its wire form — tag, name length, name, value length, value —
/// in the buffer's bytes. The buffer is one allocation: a header with the
/// counts and capacities, then four regions — items, attribute records,
/// group records, wire-form bytes (for a decoded message: the input, header
/// included). Decoding therefore allocates once, names and values are read in
/// place, and encoding copies spans (adjacent spans in one go). Builders write
/// wire-form bytes straight into the bytes region, each attribute sized once.
///
/// A buffer is changed only while one message (or its builder) holds it alone;
/// the builders (`IPPStorage+Building.swift`) copy it first otherwise, so views of a message never see it change.
@usableFromInline
final class IPPStorageBox: ManagedBuffer<IPPStorageHeader, UInt32> {
    /// The buffer of every message made without attributes, so that making one allocates nothing. Never changed:
    /// it has no room, so a builder always copies it first.
    @usableFromInline nonisolated(unsafe) static let empty = IPPStorageBox.make(
        IPPStorageHeader(itemCapacity: 0, attributeCapacity: 0, groupCapacity: 0, byteCapacity: 0))

    /// A buffer with the header's capacities, its regions bound to their record types and empty.
    @usableFromInline
    static func make(_ header: IPPStorageHeader) -> IPPStorageBox {
        let words = (header.bytesOffset + header.byteCapacity + 3) / 4
        let buffer = unsafeDowncast(create(minimumCapacity: max(words, 1)) { _ in header }, to: IPPStorageBox.self)
        buffer.withUnsafeMutablePointerToElements { elements in
            let raw = UnsafeMutableRawPointer(elements)
            raw.bindMemory(to: IPPItem.self, capacity: header.itemCapacity)
            (raw + header.attributesOffset).bindMemory(to: IPPAttributeRecord.self, capacity: header.attributeCapacity)
            (raw + header.groupsOffset).bindMemory(to: IPPGroupRecord.self, capacity: header.groupCapacity)
            (raw + header.bytesOffset).bindMemory(to: UInt8.self, capacity: header.byteCapacity)
        }
        return buffer
    }

    /// A copy with at least these capacities (never less than the counts).
    @usableFromInline
    func copy(itemCapacity: Int, attributeCapacity: Int, groupCapacity: Int, byteCapacity: Int) -> IPPStorageBox {
        let old = head.pointee
        var new = IPPStorageHeader(
            itemCapacity: max(itemCapacity, old.itemCount), attributeCapacity: max(attributeCapacity, old.attributeCount),
            groupCapacity: max(groupCapacity, old.groupCount), byteCapacity: max(byteCapacity, old.byteCount))
        new.itemCount = old.itemCount
        new.attributeCount = old.attributeCount
        new.groupCount = old.groupCount
        new.byteCount = old.byteCount
        new.problem = old.problem
        let copy = IPPStorageBox.make(new)
        copy.itemPointer.update(from: itemPointer, count: old.itemCount)
        copy.attributePointer.update(from: attributePointer, count: old.attributeCount)
        copy.groupPointer.update(from: groupPointer, count: old.groupCount)
        copy.bytePointer.update(from: bytePointer, count: old.byteCount)
        return copy
    }

    /// The header, read and changed through a pointer: ManagedBuffer's `header` property is checked for exclusive
    /// access at run time on every use, which made reading a message's values ~70 % slower.
    @inlinable var head: UnsafeMutablePointer<IPPStorageHeader> { withUnsafeMutablePointerToHeader { $0 } }

    @inlinable var raw: UnsafeMutableRawPointer { withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) } }

    // The regions, bound to their types in `make`. Valid while the buffer is alive, which every reader ensures by
    // holding it (a view or message keeps a strong reference).
    @inlinable var itemPointer: UnsafeMutablePointer<IPPItem> { raw.assumingMemoryBound(to: IPPItem.self) }
    @inlinable var attributePointer: UnsafeMutablePointer<IPPAttributeRecord> {
        (raw + head.pointee.attributesOffset).assumingMemoryBound(to: IPPAttributeRecord.self)
    }
    @inlinable var groupPointer: UnsafeMutablePointer<IPPGroupRecord> {
        (raw + head.pointee.groupsOffset).assumingMemoryBound(to: IPPGroupRecord.self)
    }
    @inlinable var bytePointer: UnsafeMutablePointer<UInt8> {
        (raw + head.pointee.bytesOffset).assumingMemoryBound(to: UInt8.self)
    }

    /// Group delimiters and values, in message order.
    @inlinable var items: UnsafeBufferPointer<IPPItem> {
        UnsafeBufferPointer(start: itemPointer, count: head.pointee.itemCount)
    }
    /// Attributes, in message order; each covers a run of items.
    @inlinable var attributes: UnsafeBufferPointer<IPPAttributeRecord> {
        UnsafeBufferPointer(start: attributePointer, count: head.pointee.attributeCount)
    }
    /// Groups, in message order; each covers a run of attributes.
    @inlinable var groups: UnsafeBufferPointer<IPPGroupRecord> {
        UnsafeBufferPointer(start: groupPointer, count: head.pointee.groupCount)
    }
    /// Wire-form bytes the items point into.
    @inlinable var bytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: bytePointer, count: head.pointee.byteCount)
    }
    /// The first value a builder could not encode; the encoder reports it.
    @inlinable var problem: IPPError? { head.pointee.problem }
}

/// Counts and capacities of the regions of an `IPPStorageBox`, and the problem a builder noted.
@usableFromInline
struct IPPStorageHeader {
    @usableFromInline var itemCount = 0
    @usableFromInline var attributeCount = 0
    @usableFromInline var groupCount = 0
    @usableFromInline var byteCount = 0
    @usableFromInline let itemCapacity: Int
    @usableFromInline let attributeCapacity: Int
    @usableFromInline let groupCapacity: Int
    @usableFromInline let byteCapacity: Int
    @usableFromInline var problem: IPPError?

    @usableFromInline
    init(itemCapacity: Int, attributeCapacity: Int, groupCapacity: Int, byteCapacity: Int) {
        self.itemCapacity = itemCapacity
        self.attributeCapacity = attributeCapacity
        self.groupCapacity = groupCapacity
        self.byteCapacity = byteCapacity
    }

    // Byte offsets of the regions; every record type is 4-byte aligned and its stride a multiple of 4.
    @inlinable var attributesOffset: Int { itemCapacity * MemoryLayout<IPPItem>.stride }
    @inlinable var groupsOffset: Int { attributesOffset + attributeCapacity * MemoryLayout<IPPAttributeRecord>.stride }
    @inlinable var bytesOffset: Int { groupsOffset + groupCapacity * MemoryLayout<IPPGroupRecord>.stride }
}

/// One group delimiter or value in wire form (12 bytes).
@usableFromInline
struct IPPItem: Sendable, Hashable {
    /// Offset of the tag byte in the storage's bytes.
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
    @usableFromInline var delimiterItem: UInt32
    @usableFromInline var firstAttribute: UInt32
    @usableFromInline var attributeCount: UInt32
    @usableFromInline var tag: UInt8

    @inlinable
    init(tag: UInt8, delimiterItem: UInt32, firstAttribute: UInt32, attributeCount: UInt32) {
        self.tag = tag
        self.delimiterItem = delimiterItem
        self.firstAttribute = firstAttribute
        self.attributeCount = attributeCount
    }
}

// MARK: Reading

extension IPPStorageBox {
    /// Whether an item's name equals `name`, compared in place.
    @inlinable
    func nameEquals(item index: Int, _ name: String) -> Bool {
        let item = items[index]
        let all = bytes
        var name = name
        return name.withUTF8 { wanted in
            guard wanted.count == Int(item.nameLength) else { return false }
            let start = item.nameStart
            guard start + wanted.count <= all.count else { return false }
            for offset in 0..<wanted.count where all[start + offset] != wanted[offset] {
                return false
            }
            return true
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
        if count > 15, start >= 0, start + count <= head.pointee.byteCount,
            let interned = IPPInternedStrings.lookup(bytePointer + start, count: count)
        {
            return interned
        }
        return string(from: start, count: count)
    }

    /// Bytes as a String; invalid UTF-8 is repaired rather than trapping.
    @usableFromInline
    func string(from start: Int, count: Int) -> String {
        let all = bytes
        let end = min(start + count, all.count)
        guard start >= 0, start <= end else { return "" }
        return String(decoding: UnsafeBufferPointer(rebasing: all[start..<end]), as: UTF8.self)
    }

    /// The bytes `start..<start + count` as an array (clamped to the storage, never traps).
    @usableFromInline
    func octets(from start: Int, count: Int) -> [UInt8] {
        let all = bytes
        let end = min(start + count, all.count)
        guard start >= 0, start <= end else { return [] }
        return Array(UnsafeBufferPointer(rebasing: all[start..<end]))
    }

    /// Big-endian integer of `width` bytes at `offset` (0 past the end, never traps).
    @inlinable
    func integer(at offset: Int, width: Int) -> UInt32 {
        let all = bytes
        guard offset >= 0, offset + width <= all.count else { return 0 }
        var value: UInt32 = 0
        for index in offset..<(offset + width) {
            value = value << 8 | UInt32(all[index])
        }
        return value
    }

    /// The byte at `offset` (0 past the end, never traps).
    @inlinable
    func byte(at offset: Int) -> UInt8 {
        offset >= 0 && offset < head.pointee.byteCount ? bytePointer[offset] : 0
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
        group + 1 < head.pointee.groupCount ? Int(groups[group + 1].delimiterItem) : head.pointee.itemCount
    }

    /// The first attribute of `group` with this name, compared in place without making Strings.
    @usableFromInline
    func attribute(named name: String, inGroup group: Int) -> Int? {
        let record = groups[group]
        let first = Int(record.firstAttribute)
        let attributes = self.attributes
        for attribute in first..<(first + Int(record.attributeCount))
        where nameEquals(item: Int(attributes[attribute].firstItem), name) {
            return attribute
        }
        return nil
    }

    /// The group an attribute belongs to (binary search over the group records).
    @usableFromInline
    func group(ofAttribute attribute: Int) -> Int {
        let groups = self.groups
        var low = 0
        var high = groups.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if Int(groups[middle].firstAttribute) <= attribute { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
