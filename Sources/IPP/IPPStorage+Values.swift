/// Turning wire-form items into `IPPValue`s.
///
/// The decoder has already checked lengths and nesting, but these functions
/// stay defensive (no force unwraps, bounded loops) so that a storage built
/// any other way still cannot make them trap.
extension IPPStorageBox {
    /// The value starting at `index` and the index of the item after it
    /// (after the matching endCollection for a collection).
    @usableFromInline
    func value(item index: Int, end: Int) -> (value: IPPValue, next: Int) {
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
            return (.octetString(octets(from: start, count: length)), index + 1)
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
            guard let (text, language) = withLanguage(start: start, length: length) else { break }
            return (
                tag == 0x35
                    ? .textWithLanguage(text, language: language)
                    : .nameWithLanguage(text, language: language), index + 1
            )
        case 0x34:
            return collection(startingAt: index, end: end)
        case 0x10...0x1F:
            return (.outOfBand(IPPValueTag(rawValue: UInt32(tag))), index + 1)
        case 0x41, 0x42, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49:
            // Keywords, schemes, charsets and media types are mostly registered strings; text, names and URIs not.
            let string =
                switch tag {
                case 0x44, 0x46, 0x47, 0x49: internedString(from: start, count: length)
                default: self.string(from: start, count: length)
                }
            let value: IPPValue =
                switch tag {
                case 0x41: .text(string)
                case 0x42: .name(string)
                case 0x44: .keyword(string)
                case 0x45: .uri(string)
                case 0x46: .uriScheme(string)
                case 0x47: .charset(string)
                case 0x48: .naturalLanguage(string)
                default: .mimeMediaType(string)
                }
            return (value, index + 1)
        case 0x7F where length >= 4:
            let extended = IPPValueTag(rawValue: integer(at: start, width: 4))
            return (.other(extended, octets(from: start + 4, count: length - 4)), index + 1)
        default:
            break
        }
        return (.other(IPPValueTag(rawValue: UInt32(tag)), octets(from: start, count: length)), index + 1)
    }

    /// Text and language of a with-language value: two length-prefixed strings, language first.
    @usableFromInline
    func withLanguage(start: Int, length: Int) -> (text: String, language: String)? {
        guard length >= 4 else { return nil }
        let languageLength = Int(integer(at: start, width: 2))
        guard 4 + languageLength <= length else { return nil }
        let textLength = Int(integer(at: start + 2 + languageLength, width: 2))
        guard 4 + languageLength + textLength == length else { return nil }
        return (
            string(from: start + 4 + languageLength, count: textLength),
            string(from: start + 2, count: languageLength)
        )
    }

    /// Reads a collection whose begCollection item is at `index`.
    @usableFromInline
    func collection(startingAt index: Int, end: Int) -> (value: IPPValue, next: Int) {
        var members: [IPPCollection.Member] = []
        members.reserveCapacity(memberCount(collection: index, end: end))
        var cursor = index + 1
        while cursor < end {
            let item = items[cursor]
            if item.tag == 0x37 {
                return (.collection(IPPCollection(members)), cursor + 1)
            }
            if item.tag == 0x4A {
                members.append(
                    IPPCollection.Member(
                        name: internedString(from: item.valueStart, count: Int(item.valueLength)),
                        values: []))
                cursor += 1
                continue
            }
            let (member, next) = value(item: cursor, end: end)
            if members.isEmpty { members.append(IPPCollection.Member(name: "", values: [])) }
            members[members.count - 1].values.append(member)
            cursor = max(next, cursor + 1)
        }
        return (.collection(IPPCollection(members)), end)
    }

    /// The number of members of the collection whose begCollection item is at `index` (one array, not several grown).
    private func memberCount(collection index: Int, end: Int) -> Int { walkCollection(at: index, end: end).members }

    /// The string of a character-string or with-language value item; nil for other syntaxes.
    @usableFromInline
    func string(item index: Int) -> String? {
        let item = items[index]
        switch item.tag {
        case 0x44, 0x46, 0x47, 0x49:
            return internedString(from: item.valueStart, count: Int(item.valueLength))
        case 0x40...0x5F:
            return string(from: item.valueStart, count: Int(item.valueLength))
        case 0x35, 0x36:
            return withLanguage(start: item.valueStart, length: Int(item.valueLength))?.text
        default:
            return nil
        }
    }

    /// The index of the next top-level value after the one at `index` (skips a collection's members).
    @usableFromInline
    func nextValue(after index: Int, end: Int) -> Int {
        guard items[index].tag == 0x34 else { return index + 1 }
        return walkCollection(at: index, end: end).next
    }

    /// Walks the collection whose begCollection item is at `index` to its endCollection: the item after it (`end` if
    /// it never closes) and its top-level member count.
    @usableFromInline
    func walkCollection(at index: Int, end: Int) -> (next: Int, members: Int) {
        var depth = 0
        var members = 0
        var cursor = index
        while cursor < end {
            switch items[cursor].tag {
            case 0x34: depth += 1
            case 0x37:
                depth -= 1
                if depth == 0 { return (cursor + 1, members) }
            case 0x4A where depth == 1: members += 1
            default: break
            }
            cursor += 1
        }
        return (end, members)
    }
}
