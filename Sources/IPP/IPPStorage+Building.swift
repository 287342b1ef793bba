/// Appending wire-form items for builders.
///
/// Values that cannot be encoded (a string over 65535 bytes, an extension tag
/// over 0x7FFFFFFF…) are not added; the first such problem is remembered and
/// thrown by the encoder, so building stays non-throwing and never traps.
extension IPPStorage {
    /// Appends a group delimiter and its group record at the end of the message.
    @usableFromInline
    mutating func appendGroup(_ tag: IPPGroupTag) -> Int {
        groups.append(IPPGroupRecord(tag: tag.rawValue, delimiterItem: UInt32(items.count),
                                     firstAttribute: UInt32(attributes.count), attributeCount: 0))
        items.append(IPPItem(start: UInt32(bytes.count), nameLength: 0, valueLength: 0, tag: tag.rawValue))
        bytes.append(tag.rawValue)
        return groups.count - 1
    }

    /// Adds an attribute at the end of `group`; returns false (and records the problem) if it cannot be encoded.
    @usableFromInline
    @discardableResult
    mutating func appendAttribute(_ name: String, values: [IPPValue], toGroup group: Int) -> Bool {
        let rollbackBytes = bytes.count
        let firstNewItem = items.count
        var ok = !values.isEmpty && !name.isEmpty
        if !ok {
            note(name.isEmpty ? "an attribute needs a name" : "attribute \"\(name)\" needs at least one value")
        }
        var first = true
        for value in values where ok {
            ok = appendValue(value, name: first ? name : "", attribute: name)
            first = false
        }
        guard ok else {
            bytes.removeSubrange(rollbackBytes...)
            items.removeSubrange(firstNewItem...)
            return false
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
        attributes.insert(IPPAttributeRecord(firstItem: UInt32(insertAt), itemCount: UInt32(newCount),
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

    /// Appends one value (a collection as all its items); false if it cannot be encoded.
    private mutating func appendValue(_ value: IPPValue, name: String, attribute: String) -> Bool {
        switch value {
        case .integer(let number):
            return appendItem(tag: 0x21, name: name, attribute: attribute) { $0.appendBigEndian(UInt32(bitPattern: number)) }
        case .enumValue(let number):
            return appendItem(tag: 0x23, name: name, attribute: attribute) { $0.appendBigEndian(UInt32(bitPattern: number)) }
        case .boolean(let flag):
            return appendItem(tag: 0x22, name: name, attribute: attribute) { $0.append(flag ? 1 : 0) }
        case .octetString(let octets):
            return appendItem(tag: 0x30, name: name, attribute: attribute) { $0.append(contentsOf: octets) }
        case .dateTime(let date):
            return appendItem(tag: 0x31, name: name, attribute: attribute) { bytes in
                bytes.append(UInt8(truncatingIfNeeded: date.year >> 8))
                bytes.append(UInt8(truncatingIfNeeded: date.year))
                bytes.append(contentsOf: [date.month, date.day, date.hour, date.minutes, date.seconds,
                                          date.deciseconds, date.utcDirection, date.utcHours, date.utcMinutes])
            }
        case .resolution(let resolution):
            return appendItem(tag: 0x32, name: name, attribute: attribute) { bytes in
                bytes.appendBigEndian(UInt32(bitPattern: resolution.crossFeed))
                bytes.appendBigEndian(UInt32(bitPattern: resolution.feed))
                bytes.append(resolution.units.rawValue)
            }
        case .rangeOfInteger(let range):
            return appendItem(tag: 0x33, name: name, attribute: attribute) { bytes in
                bytes.appendBigEndian(UInt32(bitPattern: range.lower))
                bytes.appendBigEndian(UInt32(bitPattern: range.upper))
            }
        case .textWithLanguage(let text, let language), .nameWithLanguage(let text, let language):
            let tag: UInt8 = value.tag == .textWithLanguage ? 0x35 : 0x36
            return appendItem(tag: tag, name: name, attribute: attribute) { bytes in
                bytes.appendBigEndian(UInt16(truncatingIfNeeded: language.utf8.count))
                bytes.append(contentsOf: language.utf8)
                bytes.appendBigEndian(UInt16(truncatingIfNeeded: text.utf8.count))
                bytes.append(contentsOf: text.utf8)
            }
        case .text(let string), .name(let string), .keyword(let string), .uri(let string), .uriScheme(let string),
             .charset(let string), .naturalLanguage(let string), .mimeMediaType(let string):
            return appendItem(tag: UInt8(value.tag.rawValue), name: name, attribute: attribute) {
                $0.append(contentsOf: string.utf8)
            }
        case .collection(let collection):
            return appendCollection(collection, name: name, attribute: attribute)
        case .outOfBand(let tag):
            guard tag.isOutOfBand else {
                note("\(tag) in \"\(attribute)\" is not an out-of-band tag (0x10-0x1F)")
                return false
            }
            return appendItem(tag: UInt8(tag.rawValue), name: name, attribute: attribute) { _ in }
        case .other(let tag, let octets):
            return appendOther(tag, octets, name: name, attribute: attribute)
        }
    }

    private mutating func appendCollection(_ collection: IPPCollection, name: String, attribute: String) -> Bool {
        guard appendItem(tag: 0x34, name: name, attribute: attribute, { _ in }) else { return false }
        for member in collection.members {
            guard !member.name.isEmpty, !member.values.isEmpty else {
                note("collection member \"\(member.name)\" in \"\(attribute)\" needs a name and at least one value")
                return false
            }
            guard appendItem(tag: 0x4A, name: "", attribute: attribute, { $0.append(contentsOf: member.name.utf8) })
            else { return false }
            for value in member.values {
                guard appendValue(value, name: "", attribute: attribute) else { return false }
            }
        }
        return appendItem(tag: 0x37, name: "", attribute: attribute) { _ in }
    }

    private mutating func appendOther(_ tag: IPPValueTag, _ octets: [UInt8], name: String, attribute: String) -> Bool {
        if tag.rawValue >= 0x7F {
            guard tag.rawValue <= 0x7FFF_FFFF else {
                note("extension tag \(ippHex(tag.rawValue, digits: 8)) in \"\(attribute)\" is above 0x7FFFFFFF")
                return false
            }
            return appendItem(tag: 0x7F, name: name, attribute: attribute) { bytes in
                bytes.appendBigEndian(tag.rawValue)
                bytes.append(contentsOf: octets)
            }
        }
        // Delimiters and collection structure tags would break the message's structure.
        guard tag.rawValue >= 0x10, tag != .begCollection, tag != .endCollection, tag != .memberAttrName else {
            note("tag \(tag) in \"\(attribute)\" cannot carry a raw value (use .collection for collections)")
            return false
        }
        return appendItem(tag: UInt8(tag.rawValue), name: name, attribute: attribute) { $0.append(contentsOf: octets) }
    }

    /// Writes tag, name length, name, value length, value; patches the value length once the value is written.
    private mutating func appendItem(tag: UInt8, name: String, attribute: String,
                                     _ writeValue: (inout [UInt8]) -> Void) -> Bool {
        let start = bytes.count
        let nameLength = name.utf8.count
        guard nameLength <= 0xFFFF else {
            note("name of \"\(attribute.prefix(40))…\" is \(nameLength) bytes; at most 65535 fit")
            return false
        }
        bytes.append(tag)
        bytes.appendBigEndian(UInt16(nameLength))
        bytes.append(contentsOf: name.utf8)
        let lengthOffset = bytes.count
        bytes.append(contentsOf: [0, 0])
        writeValue(&bytes)
        let valueLength = bytes.count - lengthOffset - 2
        guard valueLength <= 0xFFFF else {
            note("value of \"\(attribute)\" is \(valueLength) bytes; at most 65535 fit")
            return false
        }
        bytes[lengthOffset] = UInt8(valueLength >> 8)
        bytes[lengthOffset + 1] = UInt8(valueLength & 0xFF)
        items.append(IPPItem(start: UInt32(start), nameLength: UInt16(nameLength), valueLength: UInt16(valueLength),
                             tag: tag))
        return true
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
