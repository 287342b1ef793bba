/// The attribute groups of an `IPPMessage` in wire order, as views of its storage.
// Unchecked: the storage buffer (a ManagedBuffer, which cannot be Sendable) is only changed while one message
// holds it alone (see `IPPStorageBox`), so every buffer a view or a shared message sees is immutable.
public struct IPPAttributeGroups: @unchecked Sendable, RandomAccessCollection {
    @usableFromInline let box: IPPStorageBox

    @usableFromInline
    init(box: IPPStorageBox) { self.box = box }

    /// The position of the first group: always 0.
    @inlinable public var startIndex: Int { 0 }
    /// The position after the last group: the number of groups in the message.
    @inlinable public var endIndex: Int { box.head.pointee.groupCount }

    /// The group at a position in the message.
    @inlinable
    public subscript(position: Int) -> IPPAttributeGroup {
        // The records are read through unchecked pointers: a position outside the message traps here, as an array's would.
        precondition(position >= 0 && position < endIndex, "IPPAttributeGroups index out of range")
        return IPPAttributeGroup(box: box, index: position)
    }
}

/// A read-only view of one attribute group of an `IPPMessage`: its tag and
/// its attributes in wire order. Cheap to make and to keep (it shares the
/// message's storage).
// Unchecked: the storage buffer (a ManagedBuffer, which cannot be Sendable) is only changed while one message
// holds it alone (see `IPPStorageBox`), so every buffer a view or a shared message sees is immutable.
public struct IPPAttributeGroup: @unchecked Sendable, RandomAccessCollection {
    @usableFromInline let box: IPPStorageBox
    @usableFromInline let index: Int

    @usableFromInline
    init(box: IPPStorageBox, index: Int) {
        self.box = box
        self.index = index
    }

    @inlinable var storage: IPPStorageBox { box }

    /// The group's delimiter tag.
    public var tag: IPPGroupTag { IPPGroupTag(rawValue: storage.groups[index].tag) }

    /// The position of the first attribute: always 0.
    @inlinable public var startIndex: Int { 0 }
    /// The position after the last attribute: the number of attributes in the group.
    @inlinable public var endIndex: Int { Int(storage.groups[index].attributeCount) }

    /// The attribute at a position in the group.
    @inlinable
    public subscript(position: Int) -> IPPAttribute {
        // The records are read through unchecked pointers: a position outside the group traps here, as an array's would.
        precondition(position >= 0 && position < endIndex, "IPPAttributeGroup index out of range")
        return IPPAttribute(box: box, index: Int(storage.groups[index].firstAttribute) + position)
    }

    /// The first attribute with this name, compared in place without making Strings.
    public subscript(name: String) -> IPPAttribute? {
        storage.attribute(named: name, inGroup: index).map { IPPAttribute(box: box, index: $0) }
    }

    /// Whether the group has an attribute with this name.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// The names of the attributes, in order.
    public var names: [String] { map(\.name) }
}

/// A read-only view of one attribute of a decoded or built message.
///
/// Typed accessors (`integerValue`, `stringValue`, `stringValues`…) read the
/// wire form directly; `nameView` and `valueViews` read the name and every value
/// as typed views of the message's bytes, without allocating; `values`
/// materialises every value as an owned `IPPValue`.
// Unchecked: the storage buffer (a ManagedBuffer, which cannot be Sendable) is only changed while one message
// holds it alone (see `IPPStorageBox`), so every buffer a view or a shared message sees is immutable.
public struct IPPAttribute: @unchecked Sendable, CustomStringConvertible {
    @usableFromInline let box: IPPStorageBox
    @usableFromInline let index: Int

    @usableFromInline
    init(box: IPPStorageBox, index: Int) {
        self.box = box
        self.index = index
    }

    @inlinable var storage: IPPStorageBox { box }

    @inlinable var record: IPPAttributeRecord { storage.attributes[index] }
    @inlinable var firstItem: Int { Int(record.firstItem) }

    /// The attribute's name.
    public var name: String { storage.name(item: firstItem) }

    /// Whether the attribute has this name, compared in place.
    public func hasName(_ name: String) -> Bool { storage.nameEquals(item: firstItem, name) }

    /// The syntax of the first value (attributes normally have one syntax).
    public var tag: IPPValueTag { storage.valueTag(item: firstItem) }

    /// The group this attribute belongs to.
    public var group: IPPGroupTag { IPPGroupTag(rawValue: storage.groups[storage.group(ofAttribute: index)].tag) }

    /// The number of values (1 unless the attribute is a 1setOf).
    public var count: Int { Int(record.valueCount) }

    /// The name, read in place (compares and hashes without making a String).
    @inlinable
    public var nameView: IPPStringView {
        let item = storage.items[firstItem]
        return IPPStringView(box: box, start: item.nameStart, count: Int(item.nameLength))
    }

    /// Every value as a typed view of the message's bytes: reading them allocates nothing.
    @inlinable
    public var valueViews: IPPValueViews {
        IPPValueViews(box: box, start: firstItem, end: firstItem + Int(record.itemCount))
    }

    /// Every value, materialised.
    public var values: [IPPValue] {
        var result: [IPPValue] = []
        result.reserveCapacity(count)
        for view in valueViews { result.append(view.owned) }
        return result
    }

    /// The first value, materialised.
    public var value: IPPValue { storage.valueView(item: firstItem, end: firstItem + Int(record.itemCount)).view.owned }

    /// The first value if it is an `integer` or `enum`.
    public var integerValue: Int32? {
        let item = storage.items[firstItem]
        guard item.tag == 0x21 || item.tag == 0x23, item.valueLength == 4 else { return nil }
        return Int32(bitPattern: storage.integer(at: item.valueStart, width: 4))
    }

    /// Every value that is an `integer` or `enum`, in order.
    public var integerValues: [Int32] { valueViews.compactMap(\.integerValue) }

    /// The first value if it is a `boolean`.
    public var booleanValue: Bool? {
        let item = storage.items[firstItem]
        guard item.tag == 0x22, item.valueLength == 1 else { return nil }
        return storage.byte(at: item.valueStart) != 0
    }

    /// The first value if it is a text, name or other character-string value (without language).
    public var stringValue: String? { storage.string(item: firstItem) }

    /// Every string value, in order (for 1setOf keyword such as `requested-attributes`).
    public var stringValues: [String] {
        var result: [String] = []
        var item = firstItem
        let end = firstItem + Int(record.itemCount)
        while item < end {
            if let string = storage.string(item: item) { result.append(string) }
            item = storage.nextValue(after: item, end: end)
        }
        return result
    }

    /// Whether the first value is out-of-band (e.g. `no-value`, `unknown`).
    public var isOutOfBand: Bool { tag.isOutOfBand }

    /// `name (1setOf keyword) = a,b`, as ipptool prints attributes.
    public var description: String {
        let syntax = count > 1 ? "1setOf \(tag)" : "\(tag)"
        let rendered = values.map(describe).joined(separator: ",")
        return "\(name) (\(syntax)) = \(rendered)"
    }

    private func describe(_ value: IPPValue) -> String {
        switch value {
        case .integer(let number), .enumValue(let number): return "\(number)"
        case .boolean(let flag): return flag ? "true" : "false"
        case .octetString(let bytes): return "<\(bytes.map { ippHex($0).dropFirst(2) }.joined())>"
        case .dateTime(let date):
            return "\(date.year)-\(date.month)-\(date.day)T\(date.hour):\(date.minutes):\(date.seconds)"
        case .resolution(let resolution):
            return "\(resolution.crossFeed)x\(resolution.feed)\(resolution.units == .dotsPerInch ? "dpi" : "dpcm")"
        case .rangeOfInteger(let range): return "\(range.lower)-\(range.upper)"
        case .textWithLanguage(let text, let language), .nameWithLanguage(let text, let language):
            return "\(text) [\(language)]"
        case .collection(let collection):
            let members = collection.members.map { member in
                "\(member.name)=\(member.values.map(describe).joined(separator: ","))"
            }
            return "{\(members.joined(separator: " "))}"
        case .outOfBand(let tag): return "\(tag)"
        case .other(let tag, let bytes): return "\(tag)<\(bytes.count) bytes>"
        default: return value.stringValue ?? ""
        }
    }
}
