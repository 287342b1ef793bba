/// A delimiter tag that starts an attribute group (RFC 8010 §3.5.1).
///
/// A struct rather than an enum so that any byte read from the wire can be
/// represented; the registered tags are static members with their RFC names.
public struct IPPGroupTag: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let operation = IPPGroupTag(rawValue: 0x01)
    public static let job = IPPGroupTag(rawValue: 0x02)
    /// Ends the attribute section; never the tag of a group in a message.
    public static let endOfAttributes = IPPGroupTag(rawValue: 0x03)
    public static let printer = IPPGroupTag(rawValue: 0x04)
    public static let unsupported = IPPGroupTag(rawValue: 0x05)
    public static let subscription = IPPGroupTag(rawValue: 0x06)
    public static let eventNotification = IPPGroupTag(rawValue: 0x07)
    public static let resource = IPPGroupTag(rawValue: 0x08)
    public static let document = IPPGroupTag(rawValue: 0x09)
    public static let system = IPPGroupTag(rawValue: 0x0A)

    /// Whether this tag may start a group in a message (0x01, 0x02, 0x04–0x0A).
    public var isGroup: Bool { rawValue >= 0x01 && rawValue <= 0x0A && rawValue != 0x03 }

    /// The registered name, e.g. `operation-attributes-tag`; nil for unregistered tags.
    public var name: String? {
        switch rawValue {
        case 0x01: "operation-attributes-tag"
        case 0x02: "job-attributes-tag"
        case 0x03: "end-of-attributes-tag"
        case 0x04: "printer-attributes-tag"
        case 0x05: "unsupported-attributes-tag"
        case 0x06: "subscription-attributes-tag"
        case 0x07: "event-notification-attributes-tag"
        case 0x08: "resource-attributes-tag"
        case 0x09: "document-attributes-tag"
        case 0x0A: "system-attributes-tag"
        default: nil
        }
    }

    /// Looks a tag up by its registered name (`job-attributes-tag`) or short name (`job`).
    public init?(name: String) {
        for raw in UInt8(0x01)...0x0A {
            let tag = IPPGroupTag(rawValue: raw)
            guard let full = tag.name else { continue }
            if full == name || full.dropLast("-attributes-tag".count) == name[...] {
                self = tag
                return
            }
        }
        return nil
    }

    public var description: String { name ?? "group-tag-\(ippHex(rawValue))" }
}

/// The syntax tag of an attribute value (RFC 8010 §3.5.2), including
/// out-of-band tags and extension tags carried by 0x7F (up to 0x7FFFFFFF).
public struct IPPValueTag: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    // MARK: Out-of-band
    public static let unsupported = IPPValueTag(rawValue: 0x10)
    public static let `default` = IPPValueTag(rawValue: 0x11)
    public static let unknown = IPPValueTag(rawValue: 0x12)
    public static let noValue = IPPValueTag(rawValue: 0x13)
    public static let notSettable = IPPValueTag(rawValue: 0x15)
    public static let deleteAttribute = IPPValueTag(rawValue: 0x16)
    public static let adminDefine = IPPValueTag(rawValue: 0x17)

    // MARK: Integer types
    public static let integer = IPPValueTag(rawValue: 0x21)
    public static let boolean = IPPValueTag(rawValue: 0x22)
    public static let `enum` = IPPValueTag(rawValue: 0x23)

    // MARK: Octet-string types
    public static let octetString = IPPValueTag(rawValue: 0x30)
    public static let dateTime = IPPValueTag(rawValue: 0x31)
    public static let resolution = IPPValueTag(rawValue: 0x32)
    public static let rangeOfInteger = IPPValueTag(rawValue: 0x33)
    public static let begCollection = IPPValueTag(rawValue: 0x34)
    public static let textWithLanguage = IPPValueTag(rawValue: 0x35)
    public static let nameWithLanguage = IPPValueTag(rawValue: 0x36)
    public static let endCollection = IPPValueTag(rawValue: 0x37)

    // MARK: Character-string types
    public static let textWithoutLanguage = IPPValueTag(rawValue: 0x41)
    public static let nameWithoutLanguage = IPPValueTag(rawValue: 0x42)
    public static let keyword = IPPValueTag(rawValue: 0x44)
    public static let uri = IPPValueTag(rawValue: 0x45)
    public static let uriScheme = IPPValueTag(rawValue: 0x46)
    public static let charset = IPPValueTag(rawValue: 0x47)
    public static let naturalLanguage = IPPValueTag(rawValue: 0x48)
    public static let mimeMediaType = IPPValueTag(rawValue: 0x49)
    public static let memberAttrName = IPPValueTag(rawValue: 0x4A)

    /// The wire tag that announces a four-byte extension tag in the value.
    public static let `extension` = IPPValueTag(rawValue: 0x7F)

    /// Out-of-band tags (0x10–0x1F) carry no value, only a meaning.
    public var isOutOfBand: Bool { rawValue >= 0x10 && rawValue <= 0x1F }
    /// Character-string tags (0x40–0x5F): the value is the string's bytes.
    public var isCharacterString: Bool { rawValue >= 0x40 && rawValue <= 0x5F }
    /// Tags whose value must be encoded with the extension tag 0x7F.
    public var needsExtensionEncoding: Bool { rawValue > 0x7F }

    /// The registered name, e.g. `no-value`, `rangeOfInteger`; nil for unregistered tags.
    public var name: String? {
        switch rawValue {
        case 0x10: "unsupported"
        case 0x11: "default"
        case 0x12: "unknown"
        case 0x13: "no-value"
        case 0x15: "not-settable"
        case 0x16: "delete-attribute"
        case 0x17: "admin-define"
        case 0x21: "integer"
        case 0x22: "boolean"
        case 0x23: "enum"
        case 0x30: "octetString"
        case 0x31: "dateTime"
        case 0x32: "resolution"
        case 0x33: "rangeOfInteger"
        case 0x34: "collection"
        case 0x35: "textWithLanguage"
        case 0x36: "nameWithLanguage"
        case 0x37: "endCollection"
        case 0x41: "textWithoutLanguage"
        case 0x42: "nameWithoutLanguage"
        case 0x44: "keyword"
        case 0x45: "uri"
        case 0x46: "uriScheme"
        case 0x47: "charset"
        case 0x48: "naturalLanguage"
        case 0x49: "mimeMediaType"
        case 0x4A: "memberAttrName"
        case 0x7F: "extension"
        default: nil
        }
    }

    /// Looks a tag up by its registered name (`collection` and `begCollection` both work).
    public init?(name: String) {
        if name == "begCollection" {
            self = .begCollection
            return
        }
        for raw in UInt32(0x10)...0x7F where IPPValueTag(rawValue: raw).name == name {
            self.init(rawValue: raw)
            return
        }
        return nil
    }

    public var description: String { name ?? "tag-\(ippHex(rawValue))" }
}
