/// Building a message's buffer in place: held alone, changed in place and grown by doubling. Used by the message's
/// own adders and, on a message holding the buffer while a closure adds to a group, by `IPPGroupBuilder`: one copy
/// of the code (a protocol shared by the message and a separate storage type had the optimiser specialise it
/// twice, and inline less into the copy the message's adders used: a tenth more instructions on the large response).
///
/// Values that cannot be encoded (a string over 65535 bytes, an extension tag
/// over 0x7FFFFFFF…) are not added; the first such problem is remembered and
/// thrown by the encoder, so building stays non-throwing and never traps.
extension IPPMessage {

    /// Makes the buffer this storage's alone, with room for this much more. The check is inlined into every change;
    /// growing (rare once a buffer is reused or has doubled a few times) is not.
    @inline(__always)
    private mutating func reserve(items: Int = 0, attributes: Int = 0, groups: Int = 0, bytes: Int = 0) {
        // Fields read through the pointer: copying the whole header copied (retained) the problem it may hold.
        let header = box.head
        let fits =
            header.pointee.itemCount + items <= header.pointee.itemCapacity
            && header.pointee.attributeCount + attributes <= header.pointee.attributeCapacity
            && header.pointee.groupCount + groups <= header.pointee.groupCapacity
            && header.pointee.byteCount + bytes <= header.pointee.byteCapacity
        if fits && isKnownUniquelyReferenced(&box) { return }
        grow(items: items, attributes: attributes, groups: groups, bytes: bytes)
    }

    /// A copy of the buffer, this storage's alone, with room for this much more.
    @inline(never)
    private mutating func grow(items: Int, attributes: Int, groups: Int, bytes: Int) {
        let header = box.head.pointee
        // Grown by doubling, from room for a typical request, so that building a message copies it O(log n) times.
        // A region below the minimum grows too, even when this change needs none of it: a new message's first
        // group (items, groups and bytes) would otherwise leave it no room for the attribute record that comes next,
        // and the first attribute would copy the buffer again.
        func grown(_ count: Int, _ extra: Int, _ capacity: Int, _ minimum: Int) -> Int {
            count + extra <= capacity && capacity >= minimum ? capacity : max(count + extra, 2 * capacity, minimum)
        }
        box = box.copy(
            itemCapacity: grown(header.itemCount, items, header.itemCapacity, 32),
            attributeCapacity: grown(header.attributeCount, attributes, header.attributeCapacity, 16),
            groupCapacity: grown(header.groupCount, groups, header.groupCapacity, 4),
            byteCapacity: grown(header.byteCount, bytes, header.byteCapacity, 512))
    }

    /// Items address bytes with 32-bit offsets, which the writers store unchecked: a change that would take a message
    /// past them is refused and noted (the encoder throws it), never trapped on.
    @usableFromInline static let byteLimit = Int(UInt32.max)

    /// Appends a group delimiter and its group record at the end of the message. Past `byteLimit` (tests pass a
    /// smaller one) the group is refused and noted, and the last group is returned: there is one, as only groups'
    /// attributes fill a message that far.
    @usableFromInline
    mutating func appendGroup(_ tag: IPPGroupTag, byteLimit: Int = byteLimit) -> Int {
        guard box.head.pointee.byteCount < byteLimit else {
            note("a \(tag) group would take the message past 4 GiB")
            return max(box.head.pointee.groupCount - 1, 0)
        }
        reserve(items: 1, groups: 1, bytes: 1)
        // Unowned here and wherever the buffer is written after `reserve`: the storage holds it throughout (nothing
        // replaces it until the change is done), and a strong local was retained and released on every call — about a
        // third of building the bench's small request (perf).
        unowned(unsafe) let box = self.box
        let header = box.head
        let groupCount = header.pointee.groupCount
        let itemCount = header.pointee.itemCount
        let byteCount = header.pointee.byteCount
        box.groupPointer[groupCount] = IPPGroupRecord(
            tag: tag.rawValue, delimiterItem: UInt32(itemCount),
            firstAttribute: UInt32(header.pointee.attributeCount), attributeCount: 0)
        box.itemPointer[itemCount] = IPPItem(start: UInt32(byteCount), nameLength: 0, valueLength: 0, tag: tag.rawValue)
        box.bytePointer[byteCount] = tag.rawValue
        header.pointee.groupCount = groupCount + 1
        header.pointee.itemCount = itemCount + 1
        header.pointee.byteCount = byteCount + 1
        return groupCount
    }

    /// Adds an attribute with the values of an array at the end of `group` (see the borrowed-values variant).
    @usableFromInline
    @discardableResult
    mutating func appendAttribute(_ name: String, values: [IPPValue], toGroup group: Int) -> Bool {
        values.withUnsafeBufferPointer { appendAttribute(name, values: $0, toGroup: group) }
    }

    /// Adds an attribute with one value at the end of `group` (see the borrowed-values variant).
    @usableFromInline
    @discardableResult
    mutating func appendAttribute(_ name: String, value: IPPValue, toGroup group: Int) -> Bool {
        withUnsafePointer(to: value) { appendAttribute(name, values: UnsafeBufferPointer(start: $0, count: 1), toGroup: group) }
    }

    /// Adds an attribute at the end of `group`, its values read where the caller holds them (an array's buffer, a
    /// span); returns false (and records the problem) if it cannot be encoded.
    ///
    /// Two passes: the first checks every value and sums the wire size and items, the second writes through raw
    /// pointers into the buffer grown once — appending byte by byte made building cost more than libcups' ippWriteIO.
    @usableFromInline
    @discardableResult
    mutating func appendAttribute(
        _ name: String, values: UnsafeBufferPointer<IPPValue>, toGroup group: Int, byteLimit: Int = byteLimit
    ) -> Bool {
        guard !name.isEmpty, !values.isEmpty else {
            note(name.isEmpty ? "an attribute needs a name" : "attribute \"\(name)\" needs at least one value")
            return false
        }
        let nameLength = name.utf8.count
        guard nameLength <= 0xFFFF else {
            note("name of \"\(name.prefix(40))…\" is \(nameLength) bytes; at most 65535 fit")
            return false
        }
        var size = nameLength
        var itemCount = 0
        var problem: String?
        // Values are read in place, borrowed from the caller's buffer: copying each out (a `for value in values`)
        // retained and released its payload, a fifth of building a large message. Sizing is static (it changes
        // nothing but its locals) for the same reason: a mutating method could change the memory a value is
        // borrowed from, so each value passed to one was copied first.
        var sized = true
        for index in values.indices {
            guard let valueSize = Self.wireSize(of: values[index], attribute: name, items: &itemCount, problem: &problem)
            else {
                sized = false
                break
            }
            size += valueSize
        }
        guard sized else {
            note(problem ?? "attribute \"\(name.prefix(40))\" cannot be encoded")
            return false
        }
        guard box.head.pointee.byteCount + size <= byteLimit else {
            note("attribute \"\(name.prefix(40))\" would take the message past 4 GiB")
            return false
        }
        reserve(items: itemCount, attributes: 1, bytes: size)
        let insertAt = openItems(itemCount, inGroup: group)
        unowned(unsafe) let box = self.box
        var writer = WireWriter(base: box.bytePointer, offset: box.head.pointee.byteCount, items: box.itemPointer + insertAt)
        writer.write(values, name: name)
        box.head.pointee.byteCount += size
        placeAttribute(firstItem: insertAt, itemCount: itemCount, valueCount: values.count, inGroup: group)
        return true
    }

    /// The last group, where a message's own adders add; nil, with the problem noted, when there is none yet.
    @usableFromInline
    mutating func lastGroup(adding name: @autoclosure () -> String) -> Int? {
        let count = box.head.pointee.groupCount
        guard count > 0 else {
            note("attribute \"\(name().prefix(40))\" was added before any group (addGroup first)")
            return nil
        }
        return count - 1
    }

    /// Adds a copy of another message's attribute (wire form, byte for byte) at the end of `group`; refused and noted
    /// past `byteLimit`.
    @usableFromInline
    mutating func appendCopy(of attribute: IPPAttribute, toGroup group: Int, byteLimit: Int = byteLimit) {
        let source = attribute.box
        let record = attribute.record
        let first = Int(record.firstItem)
        let count = Int(record.itemCount)
        var size = 0
        for index in first..<(first + count) { size += source.items[index].wireLength }
        guard box.head.pointee.byteCount + size <= byteLimit else {
            note("attribute \"\(attribute.name.prefix(40))\" would take the message past 4 GiB")
            return
        }
        reserve(items: count, attributes: 1, bytes: size)
        let insertAt = openItems(count, inGroup: group)
        unowned(unsafe) let box = self.box
        var offset = box.head.pointee.byteCount
        for index in 0..<count {
            var item = source.items[first + index]
            let length = item.wireLength
            (box.bytePointer + offset).update(from: source.bytePointer + Int(item.start), count: length)
            item.start = UInt32(offset)
            box.itemPointer[insertAt + index] = item
            offset += length
        }
        box.head.pointee.byteCount = offset
        placeAttribute(firstItem: insertAt, itemCount: count, valueCount: Int(record.valueCount), inGroup: group)
    }

    /// Makes room for `count` items at the end of `group` (moving later groups' items up); returns where they go.
    private mutating func openItems(_ count: Int, inGroup group: Int) -> Int {
        unowned(unsafe) let box = self.box
        let total = box.head.pointee.itemCount
        // `endItem(ofGroup:)`, inlined: calling a method of the buffer retained it for the call.
        let insertAt = group + 1 < box.head.pointee.groupCount ? Int(box.groupPointer[group + 1].delimiterItem) : total
        if insertAt < total {
            (box.itemPointer + insertAt + count).update(from: box.itemPointer + insertAt, count: total - insertAt)
        }
        box.head.pointee.itemCount = total + count
        return insertAt
    }

    /// Records an attribute whose items were just written at `firstItem`, at the end of `group`.
    private mutating func placeAttribute(firstItem: Int, itemCount: Int, valueCount: Int, inGroup group: Int) {
        unowned(unsafe) let box = self.box
        let attributes = box.attributePointer
        let groups = box.groupPointer
        let attributeCount = box.head.pointee.attributeCount
        let groupCount = box.head.pointee.groupCount
        let attributeIndex = Int(groups[group].firstAttribute + groups[group].attributeCount)
        if attributeIndex < attributeCount {
            (attributes + attributeIndex + 1).update(from: attributes + attributeIndex, count: attributeCount - attributeIndex)
        }
        attributes[attributeIndex] = IPPAttributeRecord(
            firstItem: UInt32(firstItem), itemCount: UInt32(itemCount), valueCount: UInt32(valueCount))
        box.head.pointee.attributeCount = attributeCount + 1
        groups[group].attributeCount += 1
        if attributeIndex + 1 < attributeCount + 1 {
            for later in (attributeIndex + 1)..<(attributeCount + 1) {
                attributes[later].firstItem += UInt32(itemCount)
            }
        }
        if group + 1 < groupCount {
            for later in (group + 1)..<groupCount {
                groups[later].delimiterItem += UInt32(itemCount)
                groups[later].firstAttribute += 1
            }
        }
    }

    /// Removes attribute `index` and its items (the bytes stay in the buffer, unreferenced).
    @usableFromInline
    mutating func removeAttribute(at index: Int) {
        reserve()
        unowned(unsafe) let box = self.box
        let record = box.attributes[index]
        let group = box.group(ofAttribute: index)
        let first = Int(record.firstItem)
        let count = Int(record.itemCount)
        let items = box.itemPointer
        let itemTotal = box.head.pointee.itemCount
        items.advanced(by: first).update(from: items + first + count, count: itemTotal - first - count)
        box.head.pointee.itemCount = itemTotal - count
        let attributes = box.attributePointer
        let attributeTotal = box.head.pointee.attributeCount
        (attributes + index).update(from: attributes + index + 1, count: attributeTotal - index - 1)
        box.head.pointee.attributeCount = attributeTotal - 1
        let groups = box.groupPointer
        groups[group].attributeCount -= 1
        if index < attributeTotal - 1 {
            for later in index..<(attributeTotal - 1) { attributes[later].firstItem -= UInt32(count) }
        }
        if group + 1 < box.head.pointee.groupCount {
            for later in (group + 1)..<box.head.pointee.groupCount {
                groups[later].delimiterItem -= UInt32(count)
                groups[later].firstAttribute -= 1
            }
        }
    }

    // MARK: Values

    private mutating func note(_ message: String) {
        guard box.problem == nil else { return }
        reserve()
        box.head.pointee.problem = IPPError(.unencodable, at: box.head.pointee.byteCount, message)
    }

    /// The bytes a value takes on the wire without its name (a collection with all its member items),
    /// or nil with `problem` saying why it cannot be encoded.
    // Inlined into the loops over borrowed values (collections go out of line), so that the optimiser sees that
    // nothing here writes to the memory a value is borrowed from, and does not copy the value first.
    @inline(__always)
    private static func wireSize(of value: IPPValue, attribute: String, items: inout Int, problem: inout String?) -> Int? {
        items += 1
        func sized(_ valueLength: Int, _ problem: inout String?) -> Int? {
            Self.sized(valueLength, attribute: attribute, problem: &problem)
        }
        switch value {
        case .integer, .enumValue: return 9
        case .boolean: return 6
        case .octetString(let octets): return sized(octets.count, &problem)
        case .dateTime: return 16
        case .resolution: return 14
        case .rangeOfInteger: return 13
        case .textWithLanguage(let text, let language), .nameWithLanguage(let text, let language):
            return sized(4 + language.utf8.count + text.utf8.count, &problem)
        case .text(let string), .name(let string), .keyword(let string), .uri(let string), .uriScheme(let string),
            .charset(let string), .naturalLanguage(let string), .mimeMediaType(let string):
            return sized(string.utf8.count, &problem)
        case .collection(let collection):
            return collectionWireSize(collection, attribute: attribute, items: &items, problem: &problem)
        case .outOfBand(let tag):
            guard tag.isOutOfBand else {
                problem = "\(tag) in \"\(attribute)\" is not an out-of-band tag (0x10-0x1F)"
                return nil
            }
            return 5
        case .other(let tag, let octets):
            if tag.rawValue >= 0x7F {
                guard tag.rawValue <= 0x7FFF_FFFF else {
                    problem = "extension tag \(ippHex(tag.rawValue, digits: 8)) in \"\(attribute)\" is above 0x7FFFFFFF"
                    return nil
                }
                return sized(4 + octets.count, &problem)
            }
            // Delimiters and collection structure tags would break the message's structure.
            guard tag.rawValue >= 0x10, tag != .begCollection, tag != .endCollection, tag != .memberAttrName else {
                problem = "tag \(tag) in \"\(attribute)\" cannot carry a raw value (use .collection for collections)"
                return nil
            }
            return sized(octets.count, &problem)
        }
    }

    /// A value's wire size (5 bytes of tag and lengths, then the value), or nil when its length does not fit.
    private static func sized(_ valueLength: Int, attribute: String, problem: inout String?) -> Int? {
        guard valueLength <= 0xFFFF else {
            problem = "value of \"\(attribute)\" is \(valueLength) bytes; at most 65535 fit"
            return nil
        }
        return 5 + valueLength
    }

    /// The wire size of a collection value's begCollection, members and endCollection (see `wireSize`).
    @inline(never)
    private static func collectionWireSize(
        _ collection: IPPCollection, attribute: String, items: inout Int, problem: inout String?
    ) -> Int? {
        var size = 10  // begCollection and endCollection, each with empty name and value
        items += 1  // endCollection
        // Members and their values are read in place by index, like the attribute's values.
        let members = collection.members
        for member in members.indices {
            guard !members[member].name.isEmpty, !members[member].values.isEmpty else {
                problem =
                    "collection member \"\(members[member].name)\" in \"\(attribute)\" needs a name and at least one value"
                return nil
            }
            guard let nameSize = sized(members[member].name.utf8.count, attribute: attribute, problem: &problem) else {
                return nil
            }
            size += nameSize
            items += 1
            for value in members[member].values.indices {
                guard
                    let valueSize = wireSize(
                        of: members[member].values[value], attribute: attribute, items: &items, problem: &problem)
                else { return nil }
                size += valueSize
            }
        }
        return size
    }
}

/// Writes values already checked and sized by `wireSize(of:attribute:)` into bytes grown to fit them,
/// recording an item for each.
private struct WireWriter {
    let base: UnsafeMutablePointer<UInt8>
    var offset: Int
    /// Where the next item goes.
    var items: UnsafeMutablePointer<IPPItem>

    // Inlined into the loop over borrowed values, like `wireSize` (collections go out of line). Each case writes
    // the item's head, then its value in place: a closure per value captured (retained) string payloads.
    @inline(__always)
    mutating func write(_ value: IPPValue, name: String) {
        switch value {
        case .integer(let number):
            head(0x21, name, 4)
            put32(UInt32(bitPattern: number))
        case .enumValue(let number):
            head(0x23, name, 4)
            put32(UInt32(bitPattern: number))
        case .boolean(let flag):
            head(0x22, name, 1)
            put(flag ? 1 : 0)
        case .octetString(let octets):
            head(0x30, name, octets.count)
            put(octets)
        case .dateTime(let date):
            head(0x31, name, 11)
            put16(date.year)
            put(date.month)
            put(date.day)
            put(date.hour)
            put(date.minutes)
            put(date.seconds)
            put(date.deciseconds)
            put(date.utcDirection)
            put(date.utcHours)
            put(date.utcMinutes)
        case .resolution(let resolution):
            head(0x32, name, 9)
            put32(UInt32(bitPattern: resolution.crossFeed))
            put32(UInt32(bitPattern: resolution.feed))
            put(resolution.units.rawValue)
        case .rangeOfInteger(let range):
            head(0x33, name, 8)
            put32(UInt32(bitPattern: range.lower))
            put32(UInt32(bitPattern: range.upper))
        case .textWithLanguage(let text, let language): withLanguage(0x35, name, text, language)
        case .nameWithLanguage(let text, let language): withLanguage(0x36, name, text, language)
        case .text(let string): stringItem(0x41, name, string)
        case .name(let string): stringItem(0x42, name, string)
        case .keyword(let string): stringItem(0x44, name, string)
        case .uri(let string): stringItem(0x45, name, string)
        case .uriScheme(let string): stringItem(0x46, name, string)
        case .charset(let string): stringItem(0x47, name, string)
        case .naturalLanguage(let string): stringItem(0x48, name, string)
        case .mimeMediaType(let string): stringItem(0x49, name, string)
        case .collection(let collection):
            write(collection, name: name)
        case .outOfBand(let tag):
            head(UInt8(truncatingIfNeeded: tag.rawValue), name, 0)
        case .other(let tag, let octets):
            if tag.rawValue >= 0x7F {
                head(0x7F, name, 4 + octets.count)
                put32(tag.rawValue)
                put(octets)
            } else {
                head(UInt8(truncatingIfNeeded: tag.rawValue), name, octets.count)
                put(octets)
            }
        }
    }

    /// An attribute's values, the first with its name. A function of its own: written inline in `appendAttribute`,
    /// the loop did not get `write(_:name:)` inlined, and building took a tenth more instructions.
    @inline(never)
    mutating func write(_ values: UnsafeBufferPointer<IPPValue>, name: String) {
        for index in values.indices { write(values[index], name: index == 0 ? name : "") }
    }

    /// begCollection, each member's memberAttrName and values, endCollection.
    @inline(never)
    mutating func write(_ collection: IPPCollection, name: String) {
        head(0x34, name, 0)
        let members = collection.members
        for member in members.indices {
            stringItem(0x4A, "", members[member].name)
            for value in members[member].values.indices { write(members[member].values[value], name: "") }
        }
        head(0x37, "", 0)
    }

    @inline(__always)
    private mutating func stringItem(_ tag: UInt8, _ name: String, _ string: String) {
        head(tag, name, string.utf8.count)
        put(string)
    }

    private mutating func withLanguage(_ tag: UInt8, _ name: String, _ text: String, _ language: String) {
        head(tag, name, 4 + language.utf8.count + text.utf8.count)
        put16(UInt16(truncatingIfNeeded: language.utf8.count))
        put(language)
        put16(UInt16(truncatingIfNeeded: text.utf8.count))
        put(text)
    }

    /// Tag, name length, name and value length, and the item recording them; the value follows. Lengths were
    /// checked when sizing.
    @inline(__always)
    private mutating func head(_ tag: UInt8, _ name: String, _ valueLength: Int) {
        let nameLength = name.utf8.count
        items.initialize(
            to: IPPItem(
                start: UInt32(truncatingIfNeeded: offset), nameLength: UInt16(truncatingIfNeeded: nameLength),
                valueLength: UInt16(truncatingIfNeeded: valueLength), tag: tag))
        items += 1
        put(tag)
        put16(UInt16(truncatingIfNeeded: nameLength))
        if nameLength > 0 { put(name) }
        put16(UInt16(truncatingIfNeeded: valueLength))
    }

    mutating func put(_ byte: UInt8) {
        base[offset] = byte
        offset += 1
    }

    mutating func put16(_ value: UInt16) {
        base[offset] = UInt8(value >> 8)
        base[offset + 1] = UInt8(truncatingIfNeeded: value)
        offset += 2
    }

    mutating func put32(_ value: UInt32) {
        put16(UInt16(value >> 16))
        put16(UInt16(truncatingIfNeeded: value))
    }

    mutating func put(_ octets: [UInt8]) {
        octets.withUnsafeBufferPointer { copy($0) }
        offset += octets.count
    }

    @inline(__always)
    mutating func put(_ string: String) {
        // Native Swift strings are contiguous UTF-8, read in place without copying the String (a retain).
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { copy($0) }
        if copied != nil {
            offset += string.utf8.count
            return
        }
        var string = string
        // withUTF8 makes a bridged string contiguous first.
        string.withUTF8 { copy($0) }
        offset += string.utf8.count
    }

    /// Copies bytes to `offset` (which the caller then advances). A raw memory copy, not a typed pointer's
    /// `update(from:count:)`: with the latter the optimiser retained and released the String or array being written
    /// around each copy, as if the copy could overwrite the value it was borrowed from.
    @inline(__always)
    private func copy(_ source: UnsafeBufferPointer<UInt8>) {
        guard let from = source.baseAddress, !source.isEmpty else { return }
        UnsafeMutableRawPointer(base + offset).copyMemory(from: from, byteCount: source.count)
    }
}
