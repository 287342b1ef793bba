/// A delimiter tag that starts an attribute group (RFC 8010 §3.5.1).
///
/// A struct rather than an enum so that any byte read from the wire can be
/// represented; the registered tags are static members with their RFC names.
public struct IPPGroupTag: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The tag's byte on the wire, e.g. 0x01 for `operation-attributes-tag`.
    public var rawValue: UInt8
    /// The group tag with this byte, registered or not.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `operation-attributes-tag` (0x01): starts the operation attributes, the first group of every request and
    /// response.
    public static let operation = IPPGroupTag(rawValue: 0x01)
    /// `job-attributes-tag` (0x02): starts a group of Job attributes: a request's Job Template attributes, or one Job's
    /// attributes in a response (one group per Job in Get-Jobs).
    public static let job = IPPGroupTag(rawValue: 0x02)
    /// Ends the attribute section; never the tag of a group in a message.
    public static let endOfAttributes = IPPGroupTag(rawValue: 0x03)
    /// `printer-attributes-tag` (0x04): starts a group of Printer attributes, as a Get-Printer-Attributes response
    /// sends.
    public static let printer = IPPGroupTag(rawValue: 0x04)
    /// `unsupported-attributes-tag` (0x05): starts the group in which a response returns the request's attributes or
    /// values that the Printer does not support.
    public static let unsupported = IPPGroupTag(rawValue: 0x05)
    /// `subscription-attributes-tag` (0x06): starts a group of Subscription attributes (RFC 3995, event notifications).
    public static let subscription = IPPGroupTag(rawValue: 0x06)
    /// `event-notification-attributes-tag` (0x07): starts a group of Event Notification attributes (RFC 3995).
    public static let eventNotification = IPPGroupTag(rawValue: 0x07)
    /// `resource-attributes-tag` (0x08): starts a group of Resource attributes (PWG 5100.22, IPP System Service).
    public static let resource = IPPGroupTag(rawValue: 0x08)
    /// `document-attributes-tag` (0x09): starts a group of Document attributes (PWG 5100.5, IPP Document Object).
    public static let document = IPPGroupTag(rawValue: 0x09)
    /// `system-attributes-tag` (0x0A): starts a group of System attributes (PWG 5100.22, IPP System Service).
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

    /// The tag's registered name, e.g. `job-attributes-tag`; for an unregistered one the byte in hex, e.g.
    /// `group-tag-0x0F`.
    public var description: String { name ?? "group-tag-\(ippHex(rawValue))" }
}

/// The syntax tag of an attribute value (RFC 8010 §3.5.2), including
/// out-of-band tags and extension tags carried by 0x7F (up to 0x7FFFFFFF).
public struct IPPValueTag: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The tag's value: the byte on the wire, or the extension tag's 32-bit value after 0x7F.
    public var rawValue: UInt32
    /// The value tag with this value, registered or not.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    // MARK: Out-of-band
    /// `unsupported` (0x10): out-of-band; the Printer does not support the attribute, as it says in the unsupported
    /// attributes group of a response.
    public static let unsupported = IPPValueTag(rawValue: 0x10)
    /// `default` (0x11): out-of-band; reserved for setting an attribute back to its default value.
    public static let `default` = IPPValueTag(rawValue: 0x11)
    /// `unknown` (0x12): out-of-band; the attribute is supported but its value is not known at the moment.
    public static let unknown = IPPValueTag(rawValue: 0x12)
    /// `no-value` (0x13): out-of-band; the attribute is supported but has no value assigned, e.g. a limit an
    /// administrator has not configured.
    public static let noValue = IPPValueTag(rawValue: 0x13)
    /// `not-settable` (0x15): out-of-band; the attribute cannot be set (RFC 3380, the Set operations).
    public static let notSettable = IPPValueTag(rawValue: 0x15)
    /// `delete-attribute` (0x16): out-of-band; asks a Set operation to remove the attribute (RFC 3380).
    public static let deleteAttribute = IPPValueTag(rawValue: 0x16)
    /// `admin-define` (0x17): out-of-band; the value is for an administrator to define (RFC 3380).
    public static let adminDefine = IPPValueTag(rawValue: 0x17)

    // MARK: Integer types
    /// `integer` (0x21): a signed 32-bit integer in 4 octets, big-endian.
    public static let integer = IPPValueTag(rawValue: 0x21)
    /// `boolean` (0x22): one octet, 0x00 for false and 0x01 for true.
    public static let boolean = IPPValueTag(rawValue: 0x22)
    /// `enum` (0x23): a 32-bit code from an attribute's registered list, such as `printer-state` or `job-state`.
    public static let `enum` = IPPValueTag(rawValue: 0x23)

    // MARK: Octet-string types
    /// `octetString` (0x30): octets in an unspecified format.
    public static let octetString = IPPValueTag(rawValue: 0x30)
    /// `dateTime` (0x31): an RFC 2579 DateAndTime in 11 octets; see ``IPPDateTime``.
    public static let dateTime = IPPValueTag(rawValue: 0x31)
    /// `resolution` (0x32): cross-feed and feed resolutions (two 32-bit integers) and a units octet, 9 octets; see
    /// ``IPPResolution``.
    public static let resolution = IPPValueTag(rawValue: 0x32)
    /// `rangeOfInteger` (0x33): a lower and an upper bound, two 32-bit integers; see ``IPPRange``.
    public static let rangeOfInteger = IPPValueTag(rawValue: 0x33)
    /// `begCollection` (0x34): begins a `collection` value, whose members follow as `memberAttrName` items up to the
    /// matching ``IPPValueTag/endCollection`` (RFC 8010 §3.1.6).
    public static let begCollection = IPPValueTag(rawValue: 0x34)
    /// `textWithLanguage` (0x35): human-readable text with its own natural language, each length-prefixed, language
    /// first.
    public static let textWithLanguage = IPPValueTag(rawValue: 0x35)
    /// `nameWithLanguage` (0x36): a name with its own natural language, each length-prefixed, language first.
    public static let nameWithLanguage = IPPValueTag(rawValue: 0x36)
    /// `endCollection` (0x37): ends the collection opened by the matching ``IPPValueTag/begCollection``; its value is
    /// empty.
    public static let endCollection = IPPValueTag(rawValue: 0x37)

    // MARK: Character-string types
    /// `textWithoutLanguage` (0x41): human-readable text in the message's `attributes-natural-language`.
    public static let textWithoutLanguage = IPPValueTag(rawValue: 0x41)
    /// `nameWithoutLanguage` (0x42): a name (of a user, Job, document…) in the message's `attributes-natural-language`.
    public static let nameWithoutLanguage = IPPValueTag(rawValue: 0x42)
    /// `keyword` (0x44): a registered or vendor identifier, e.g. `two-sided-long-edge`.
    public static let keyword = IPPValueTag(rawValue: 0x44)
    /// `uri` (0x45): a URI, e.g. `ipp://printer.example/ipp/print`.
    public static let uri = IPPValueTag(rawValue: 0x45)
    /// `uriScheme` (0x46): a URI scheme name, e.g. `ipps`.
    public static let uriScheme = IPPValueTag(rawValue: 0x46)
    /// `charset` (0x47): an IANA charset name, e.g. `utf-8`.
    public static let charset = IPPValueTag(rawValue: 0x47)
    /// `naturalLanguage` (0x48): a language tag, e.g. `en` or `fr-ca`.
    public static let naturalLanguage = IPPValueTag(rawValue: 0x48)
    /// `mimeMediaType` (0x49): a MIME media type, e.g. `application/pdf`.
    public static let mimeMediaType = IPPValueTag(rawValue: 0x49)
    /// `memberAttrName` (0x4A): inside a collection, an item whose value is the name of the member whose values follow.
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

    /// The tag's registered name, e.g. `keyword`; for an unregistered one the value in hex, e.g. `tag-0x20`.
    public var description: String { name ?? "tag-\(ippHex(rawValue))" }
}
