/// Just enough XML for office metadata and bodies: start and end tags with their attributes, and text, with the
/// five predefined entities and character references resolved. Not a validating parser — it never fails, it reads
/// what is there (as office readers do with slightly broken files), in one pass over the bytes.
struct XMLEvents: Sequence {
    enum Event: Equatable {
        case start(name: String, attributes: [String: String], selfClosing: Bool)
        case end(name: String)
        case text(String)
    }

    let bytes: [UInt8]

    func makeIterator() -> Iterator { Iterator(bytes: bytes) }

    struct Iterator: IteratorProtocol {
        let bytes: [UInt8]
        var position = 0

        mutating func next() -> Event? {
            while position < bytes.count {
                if bytes[position] != 0x3C {  // text up to the next '<'
                    let start = position
                    while position < bytes.count, bytes[position] != 0x3C { position += 1 }
                    let text = XMLEvents.unescape(bytes[start..<position])
                    if !text.isEmpty { return .text(text) }
                    continue
                }
                if bytes.matches(Array("<!--".utf8), at: position) {
                    position = (bytes.firstOffset(of: Array("-->".utf8), in: position..<bytes.count) ?? bytes.count - 3) + 3
                    continue
                }
                if bytes.matches(Array("<![CDATA[".utf8), at: position) {
                    let start = position + 9
                    let end = bytes.firstOffset(of: Array("]]>".utf8), in: start..<bytes.count) ?? bytes.count
                    position = Swift.min(bytes.count, end + 3)
                    return .text(String(decoding: bytes[start..<end], as: UTF8.self))
                }
                // A tag: up to the '>' outside quotes.
                let start = position + 1
                var end = start
                var quote: UInt8?
                while end < bytes.count {
                    let byte = bytes[end]
                    if let open = quote {
                        if byte == open { quote = nil }
                    } else if byte == 0x22 || byte == 0x27 {
                        quote = byte
                    } else if byte == 0x3E {
                        break
                    }
                    end += 1
                }
                position = Swift.min(bytes.count, end + 1)
                guard end > start else { continue }
                let first = bytes[start]
                if first == 0x3F || first == 0x21 { continue }  // <?xml …?>, <!DOCTYPE …>
                if first == 0x2F {
                    return .end(name: String(decoding: bytes[(start + 1)..<end].prefix(while: { !Self.isSpace($0) }), as: UTF8.self))
                }
                var tagEnd = end
                let selfClosing = bytes[end - 1] == 0x2F
                if selfClosing { tagEnd -= 1 }
                var cursor = start
                while cursor < tagEnd, !Self.isSpace(bytes[cursor]) { cursor += 1 }
                let name = String(decoding: bytes[start..<cursor], as: UTF8.self)
                return .start(name: name, attributes: Self.attributes(bytes[cursor..<tagEnd]), selfClosing: selfClosing)
            }
            return nil
        }

        static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

        static func attributes(_ slice: ArraySlice<UInt8>) -> [String: String] {
            var result: [String: String] = [:]
            var index = slice.startIndex
            while index < slice.endIndex {
                while index < slice.endIndex, isSpace(slice[index]) { index += 1 }
                let nameStart = index
                while index < slice.endIndex, slice[index] != 0x3D, !isSpace(slice[index]) { index += 1 }
                let name = String(decoding: slice[nameStart..<index], as: UTF8.self)
                while index < slice.endIndex, isSpace(slice[index]) || slice[index] == 0x3D { index += 1 }
                guard index < slice.endIndex else { break }
                let quote = slice[index]
                guard quote == 0x22 || quote == 0x27 else {
                    index += 1
                    continue
                }
                index += 1
                let valueStart = index
                while index < slice.endIndex, slice[index] != quote { index += 1 }
                if !name.isEmpty { result[name] = XMLEvents.unescape(slice[valueStart..<index]) }
                index += 1
            }
            return result
        }
    }

    /// Text with `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and `&#N;` / `&#xN;` resolved.
    static func unescape(_ slice: ArraySlice<UInt8>) -> String {
        guard slice.contains(0x26) else { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        var index = slice.startIndex
        while index < slice.endIndex {
            let byte = slice[index]
            guard byte == 0x26, let semicolon = slice[index..<Swift.min(slice.endIndex, index + 12)].firstIndex(of: 0x3B) else {
                out.append(byte)
                index += 1
                continue
            }
            let entity = String(decoding: slice[(index + 1)..<semicolon], as: UTF8.self)
            var replacement: String?
            switch entity {
            case "amp": replacement = "&"
            case "lt": replacement = "<"
            case "gt": replacement = ">"
            case "quot": replacement = "\""
            case "apos": replacement = "'"
            default:
                // Digits only: UInt32(_:radix:) would also take a sign ("&#x+41;").
                if entity.hasPrefix("#x") || entity.hasPrefix("#X"), entity.dropFirst(2).allSatisfy(\.isHexDigit) {
                    replacement = UInt32(entity.dropFirst(2), radix: 16).flatMap(UnicodeScalar.init).map { String($0) }
                } else if entity.hasPrefix("#"), entity.dropFirst().allSatisfy(\.isASCIIDigit) {
                    replacement = UInt32(entity.dropFirst()).flatMap(UnicodeScalar.init).map { String($0) }
                }
            }
            if let replacement {
                out += Array(replacement.utf8)
                index = semicolon + 1
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
