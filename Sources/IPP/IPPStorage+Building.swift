/// Appending wire-form items for builders.
///
/// Values that cannot be encoded (a string over 65535 bytes, an extension tag
/// over 0x7FFFFFFF…) are not added; the first such problem is remembered and
/// thrown by the encoder, so building stays non-throwing and never traps.
extension IPPStorage {
    /// Appends a group delimiter and its group record at the end of the message.
    @usableFromInline
    mutating func appendGroup(_ tag: IPPGroupTag) -> Int {
        if groups.isEmpty {
            // A new message: room for a typical request at once instead of growing from nothing.
            bytes.reserveCapacity(512)
            items.reserveCapacity(32)
            attributes.reserveCapacity(16)
            groups.reserveCapacity(4)
        }
        groups.append(
            IPPGroupRecord(
                tag: tag.rawValue, delimiterItem: UInt32(items.count),
                firstAttribute: UInt32(attributes.count), attributeCount: 0))
        items.append(IPPItem(start: UInt32(bytes.count), nameLength: 0, valueLength: 0, tag: tag.rawValue))
        bytes.append(tag.rawValue)
        return groups.count - 1
    }

    /// Adds an attribute at the end of `group`; returns false (and records the problem) if it cannot be encoded.
    ///
    /// Two passes: the first checks every value and sums the wire size, the second writes through one raw
    /// pointer into bytes grown once — appending byte by byte made building cost more than libcups' ippWriteIO.
    @usableFromInline
    @discardableResult
    mutating func appendAttribute(_ name: String, values: [IPPValue], toGroup group: Int) -> Bool {
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
        for value in values {
            guard let valueSize = wireSize(of: value, attribute: name) else { return false }
            size += valueSize
        }
        // Items address bytes with 32-bit offsets, which the writer below stores unchecked.
        guard bytes.count + size <= Int(UInt32.max) else {
            note("attribute \"\(name.prefix(40))\" would take the message past 4 GiB")
            return false
        }
        let firstNewItem = items.count
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: size))
        bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var writer = WireWriter(base: base, offset: start)
            var first = true
            for value in values {
                writer.write(value, name: first ? name : "", items: &items)
                first = false
            }
        }
        placeAttribute(firstNewItem: firstNewItem, valueCount: values.count, inGroup: group)
        return true
    }

    /// Adds a copy of another message's attribute (wire form, byte for byte) at the end of `group`.
    @usableFromInline
    mutating func appendCopy(of attribute: IPPAttribute, toGroup group: Int) {
        let source = attribute.storage
        let record = attribute.record
        let firstNewItem = items.count
        for index in Int(record.firstItem)..<Int(record.firstItem + record.itemCount) {
            var item = source.items[index]
            let start = Int(item.start)
            item.start = UInt32(bytes.count)
            bytes.append(contentsOf: source.bytes[start..<(start + item.wireLength)])
            items.append(item)
        }
        placeAttribute(firstNewItem: firstNewItem, valueCount: Int(record.valueCount), inGroup: group)
    }

    /// Moves items just appended at the end into `group` and records the attribute.
    private mutating func placeAttribute(firstNewItem: Int, valueCount: Int, inGroup group: Int) {
        let newCount = items.count - firstNewItem
        let insertAt = endItem(ofGroup: group) - (group + 1 < groups.count ? 0 : newCount)
        if insertAt != firstNewItem {
            // The group is not the last one: move the new items in front of the next group.
            let moved = items[firstNewItem...]
            items.removeSubrange(firstNewItem...)
            items.insert(contentsOf: moved, at: insertAt)
        }
        let attributeIndex = Int(groups[group].firstAttribute + groups[group].attributeCount)
        attributes.insert(
            IPPAttributeRecord(
                firstItem: UInt32(insertAt), itemCount: UInt32(newCount),
                valueCount: UInt32(valueCount)), at: attributeIndex)
        groups[group].attributeCount += 1
        if attributeIndex + 1 < attributes.count {
            for later in (attributeIndex + 1)..<attributes.count {
                attributes[later].firstItem += UInt32(newCount)
            }
        }
        if group + 1 < groups.count {
            for later in (group + 1)..<groups.count {
                groups[later].delimiterItem += UInt32(newCount)
                groups[later].firstAttribute += 1
            }
        }
    }

    /// Removes attribute `index` and its items (the bytes stay in the arena, unreferenced).
    @usableFromInline
    mutating func removeAttribute(at index: Int) {
        let record = attributes[index]
        let group = self.group(ofAttribute: index)
        let first = Int(record.firstItem)
        let count = Int(record.itemCount)
        items.removeSubrange(first..<(first + count))
        attributes.remove(at: index)
        groups[group].attributeCount -= 1
        if index < attributes.count {
            for later in index..<attributes.count { attributes[later].firstItem -= UInt32(count) }
        }
        if group + 1 < groups.count {
            for later in (group + 1)..<groups.count {
                groups[later].delimiterItem -= UInt32(count)
                groups[later].firstAttribute -= 1
            }
        }
    }

    // MARK: Values

    private mutating func note(_ message: String) {
        if problem == nil { problem = IPPError(.unencodable, at: bytes.count, message) }
    }

    /// The bytes a value takes on the wire without its name (a collection with all its member items),
    /// or nil after noting why it cannot be encoded.
    private mutating func wireSize(of value: IPPValue, attribute: String) -> Int? {
        func sized(_ valueLength: Int) -> Int? {
            guard valueLength <= 0xFFFF else {
                note("value of \"\(attribute)\" is \(valueLength) bytes; at most 65535 fit")
                return nil
            }
            return 5 + valueLength
        }
        switch value {
        case .integer, .enumValue: return 9
        case .boolean: return 6
        case .octetString(let octets): return sized(octets.count)
        case .dateTime: return 16
        case .resolution: return 14
        case .rangeOfInteger: return 13
        case .textWithLanguage(let text, let language), .nameWithLanguage(let text, let language):
            return sized(4 + language.utf8.count + text.utf8.count)
        case .text(let string), .name(let string), .keyword(let string), .uri(let string), .uriScheme(let string),
            .charset(let string), .naturalLanguage(let string), .mimeMediaType(let string):
            return sized(string.utf8.count)
        case .collection(let collection):
            var size = 10  // begCollection and endCollection, each with empty name and value
            for member in collection.members {
                guard !member.name.isEmpty, !member.values.isEmpty else {
                    note("collection member \"\(member.name)\" in \"\(attribute)\" needs a name and at least one value")
                    return nil
                }
                guard let nameSize = sized(member.name.utf8.count) else { return nil }
                size += nameSize
                for value in member.values {
                    guard let valueSize = wireSize(of: value, attribute: attribute) else { return nil }
                    size += valueSize
                }
            }
            return size
        case .outOfBand(let tag):
            guard tag.isOutOfBand else {
                note("\(tag) in \"\(attribute)\" is not an out-of-band tag (0x10-0x1F)")
                return nil
            }
            return 5
        case .other(let tag, let octets):
            if tag.rawValue >= 0x7F {
                guard tag.rawValue <= 0x7FFF_FFFF else {
                    note("extension tag \(ippHex(tag.rawValue, digits: 8)) in \"\(attribute)\" is above 0x7FFFFFFF")
                    return nil
                }
                return sized(4 + octets.count)
            }
            // Delimiters and collection structure tags would break the message's structure.
            guard tag.rawValue >= 0x10, tag != .begCollection, tag != .endCollection, tag != .memberAttrName else {
                note("tag \(tag) in \"\(attribute)\" cannot carry a raw value (use .collection for collections)")
                return nil
            }
            return sized(octets.count)
        }
    }
}

/// Writes values already checked and sized by `wireSize(of:attribute:)` into bytes grown to fit them,
/// recording an item for each.
private struct WireWriter {
    let base: UnsafeMutablePointer<UInt8>
    var offset: Int

    mutating func write(_ value: IPPValue, name: String, items: inout [IPPItem]) {
        switch value {
        case .integer(let number): item(0x21, name, 4, &items) { $0.put32(UInt32(bitPattern: number)) }
        case .enumValue(let number): item(0x23, name, 4, &items) { $0.put32(UInt32(bitPattern: number)) }
        case .boolean(let flag): item(0x22, name, 1, &items) { $0.put(flag ? 1 : 0) }
        case .octetString(let octets): item(0x30, name, octets.count, &items) { $0.put(octets) }
        case .dateTime(let date):
            item(0x31, name, 11, &items) { writer in
                writer.put16(date.year)
                writer.put(date.month)
                writer.put(date.day)
                writer.put(date.hour)
                writer.put(date.minutes)
                writer.put(date.seconds)
                writer.put(date.deciseconds)
                writer.put(date.utcDirection)
                writer.put(date.utcHours)
                writer.put(date.utcMinutes)
            }
        case .resolution(let resolution):
            item(0x32, name, 9, &items) { writer in
                writer.put32(UInt32(bitPattern: resolution.crossFeed))
                writer.put32(UInt32(bitPattern: resolution.feed))
                writer.put(resolution.units.rawValue)
            }
        case .rangeOfInteger(let range):
            item(0x33, name, 8, &items) { writer in
                writer.put32(UInt32(bitPattern: range.lower))
                writer.put32(UInt32(bitPattern: range.upper))
            }
        case .textWithLanguage(let text, let language), .nameWithLanguage(let text, let language):
            let tag: UInt8 = value.tag == .textWithLanguage ? 0x35 : 0x36
            item(tag, name, 4 + language.utf8.count + text.utf8.count, &items) { writer in
                writer.put16(UInt16(truncatingIfNeeded: language.utf8.count))
                writer.put(language)
                writer.put16(UInt16(truncatingIfNeeded: text.utf8.count))
                writer.put(text)
            }
        case .text(let string), .name(let string), .keyword(let string), .uri(let string), .uriScheme(let string),
            .charset(let string), .naturalLanguage(let string), .mimeMediaType(let string):
            item(UInt8(value.tag.rawValue), name, string.utf8.count, &items) { $0.put(string) }
        case .collection(let collection):
            item(0x34, name, 0, &items) { _ in }
            for member in collection.members {
                item(0x4A, "", member.name.utf8.count, &items) { $0.put(member.name) }
                for value in member.values { write(value, name: "", items: &items) }
            }
            item(0x37, "", 0, &items) { _ in }
        case .outOfBand(let tag):
            item(UInt8(truncatingIfNeeded: tag.rawValue), name, 0, &items) { _ in }
        case .other(let tag, let octets):
            if tag.rawValue >= 0x7F {
                item(0x7F, name, 4 + octets.count, &items) { writer in
                    writer.put32(tag.rawValue)
                    writer.put(octets)
                }
            } else {
                item(UInt8(truncatingIfNeeded: tag.rawValue), name, octets.count, &items) { $0.put(octets) }
            }
        }
    }

    /// Tag, name length, name, value length, then the value; lengths were checked when sizing.
    private mutating func item(
        _ tag: UInt8, _ name: String, _ valueLength: Int, _ items: inout [IPPItem],
        _ writeValue: (inout WireWriter) -> Void
    ) {
        let nameLength = name.utf8.count
        items.append(
            IPPItem(
                start: UInt32(truncatingIfNeeded: offset), nameLength: UInt16(truncatingIfNeeded: nameLength),
                valueLength: UInt16(truncatingIfNeeded: valueLength), tag: tag))
        put(tag)
        put16(UInt16(truncatingIfNeeded: nameLength))
        put(name)
        put16(UInt16(truncatingIfNeeded: valueLength))
        writeValue(&self)
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
        octets.withUnsafeBufferPointer { source in
            guard let from = source.baseAddress, !source.isEmpty else { return }
            (base + offset).update(from: from, count: source.count)
        }
        offset += octets.count
    }

    mutating func put(_ string: String) {
        var string = string
        // Native Swift strings are contiguous UTF-8; withUTF8 makes a bridged one contiguous first.
        string.withUTF8 { source in
            guard let from = source.baseAddress, !source.isEmpty else { return }
            (base + offset).update(from: from, count: source.count)
        }
        offset += string.utf8.count
    }
}

extension [UInt8] {
    @inlinable
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(value & 0xFF))
    }

    @inlinable
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(value >> 24))
        append(UInt8((value >> 16) & 0xFF))
        append(UInt8((value >> 8) & 0xFF))
        append(UInt8(value & 0xFF))
    }
}
