/// One attribute value with its syntax (RFC 8011 §5.1, encoded per RFC 8010 §3.9).
///
/// This is the typed, owned form used to build messages and to read values
/// out of a decoded message. A decoded message keeps its values in wire form,
/// so reading a value materialises it; use the typed accessors on
/// `IPPAttribute` (`integerValue`, `stringValue`…) when only one is needed, or
/// its `valueViews` (`IPPValueView`) to read values in place.
public enum IPPValue: Hashable, Sendable {
    /// An `integer` (tag 0x21): a signed 32-bit number, e.g. `copies` or `job-id`.
    case integer(Int32)
    /// A `boolean` (tag 0x22), e.g. `ipp-attribute-fidelity`; a decoded octet other than 0 reads as true.
    case boolean(Bool)
    /// An `enum` value such as `printer-state` 3 (idle).
    case enumValue(Int32)
    /// An `octetString` (tag 0x30): octets with no syntax of their own.
    case octetString([UInt8])
    /// A `dateTime` (tag 0x31), e.g. `date-time-at-creation`.
    case dateTime(IPPDateTime)
    /// A `resolution` (tag 0x32), e.g. `printer-resolution` 600×600 dpi.
    case resolution(IPPResolution)
    /// A `rangeOfInteger` (tag 0x33), e.g. one range of `page-ranges`.
    case rangeOfInteger(IPPRange)
    /// A `textWithLanguage` (tag 0x35): text and the natural language it is in (instead of the message's).
    case textWithLanguage(String, language: String)
    /// A `nameWithLanguage` (tag 0x36): a name and the natural language it is in (instead of the message's).
    case nameWithLanguage(String, language: String)
    /// A `textWithoutLanguage` (tag 0x41): text in the message's natural language, e.g. `status-message`.
    case text(String)
    /// A `nameWithoutLanguage` (tag 0x42): a name in the message's natural language, e.g. `job-name`.
    case name(String)
    /// A `keyword` (tag 0x44): an identifier such as `two-sided-long-edge`.
    case keyword(String)
    /// A `uri` (tag 0x45) such as `ipp://printer.example/ipp/print`.
    case uri(String)
    /// A `uriScheme` (tag 0x46): a scheme name such as `ipps`.
    case uriScheme(String)
    /// A `charset` (tag 0x47): a charset name such as `utf-8` in `attributes-charset`.
    case charset(String)
    /// A `naturalLanguage` (tag 0x48): a language tag such as `en` in `attributes-natural-language`.
    case naturalLanguage(String)
    /// A `mimeMediaType` (tag 0x49): a media type such as `application/pdf` in `document-format`.
    case mimeMediaType(String)
    /// A `collection` (`begCollection` 0x34 to `endCollection` 0x37): named member attributes, each with its values,
    /// e.g. `media-col`.
    case collection(IPPCollection)
    /// An out-of-band value (`unsupported`, `unknown`, `no-value`, `not-settable`,
    /// `delete-attribute`, `admin-define`): the tag is the whole meaning.
    case outOfBand(IPPValueTag)
    /// Any other syntax, kept as raw bytes so that it survives a round trip.
    /// Tags above 0x7F are encoded with the extension tag 0x7F.
    case other(IPPValueTag, [UInt8])

    /// The syntax tag this value is encoded with.
    public var tag: IPPValueTag {
        switch self {
        case .integer: .integer
        case .boolean: .boolean
        case .enumValue: .enum
        case .octetString: .octetString
        case .dateTime: .dateTime
        case .resolution: .resolution
        case .rangeOfInteger: .rangeOfInteger
        case .textWithLanguage: .textWithLanguage
        case .nameWithLanguage: .nameWithLanguage
        case .text: .textWithoutLanguage
        case .name: .nameWithoutLanguage
        case .keyword: .keyword
        case .uri: .uri
        case .uriScheme: .uriScheme
        case .charset: .charset
        case .naturalLanguage: .naturalLanguage
        case .mimeMediaType: .mimeMediaType
        case .collection: .begCollection
        case .outOfBand(let tag): tag
        case .other(let tag, _): tag
        }
    }

    /// The integer of an `integer` or `enum` value.
    public var integerValue: Int32? {
        switch self {
        case .integer(let value), .enumValue(let value): value
        default: nil
        }
    }

    /// The string of any text, name or character-string value (without its language).
    public var stringValue: String? {
        switch self {
        case .textWithLanguage(let value, _), .nameWithLanguage(let value, _), .text(let value),
            .name(let value), .keyword(let value), .uri(let value), .uriScheme(let value),
            .charset(let value), .naturalLanguage(let value), .mimeMediaType(let value):
            value
        default: nil
        }
    }

    /// The value of a `boolean`.
    public var booleanValue: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    /// The members of a `collection`.
    public var collectionValue: IPPCollection? {
        if case .collection(let value) = self { return value }
        return nil
    }
}

/// A `collection` value (RFC 8010 §3.1.6): named members in wire order, each with one or more values.
public struct IPPCollection: Hashable, Sendable, RandomAccessCollection {
    /// One member attribute of a collection.
    public struct Member: Hashable, Sendable {
        /// The member attribute's name, e.g. `media-size` in a `media-col`.
        public var name: String
        /// The member's values: one, or several for a 1setOf member; a value may itself be a collection.
        public var values: [IPPValue]
        /// Creates a member with its name and its values, in the order they are to be encoded.
        public init(name: String, values: [IPPValue]) {
            self.name = name
            self.values = values
        }
    }

    /// The members in wire order.
    public var members: [Member]

    /// Creates a collection from members in the order they are to be encoded.
    public init(_ members: [Member] = []) { self.members = members }

    /// Creates a collection by adding members in a closure, e.g.
    /// `IPPCollection { $0.add("x-dimension", .integer(21000)) }`.
    public init(_ build: (inout IPPCollection) throws -> Void) rethrows {
        self.members = []
        try build(&self)
    }

    /// Appends a member with one or more values.
    public mutating func add(_ name: String, _ values: IPPValue...) {
        members.append(Member(name: name, values: values))
    }

    /// Appends a member with the given values.
    public mutating func add(_ name: String, values: [IPPValue]) {
        members.append(Member(name: name, values: values))
    }

    /// The values of the first member with this name.
    public subscript(name: String) -> [IPPValue]? {
        members.first(where: { $0.name == name })?.values
    }

    /// The position of the first member: always 0.
    public var startIndex: Int { members.startIndex }
    /// The position after the last member: the number of members.
    public var endIndex: Int { members.endIndex }
    /// The member at a position, in the order they were added (the wire order).
    public subscript(position: Int) -> Member { members[position] }
}

/// A `dateTime` value (RFC 2579 DateAndTime, 11 octets).
public struct IPPDateTime: Hashable, Sendable {
    /// The year, e.g. 2026 (two octets on the wire).
    public var year: UInt16
    /// The month, 1–12 (a decoded date is as sent: its fields are not range-checked).
    public var month: UInt8
    /// The day of the month, 1–31.
    public var day: UInt8
    /// The hour of the day, 0–23.
    public var hour: UInt8
    /// The minutes past the hour, 0–59.
    public var minutes: UInt8
    /// The seconds past the minute, 0–60 (60 for a leap second).
    public var seconds: UInt8
    /// Tenths of a second, 0–9.
    public var deciseconds: UInt8
    /// `+` (0x2B) or `-` (0x2D), the direction from UTC.
    public var utcDirection: UInt8
    /// The hours of the time zone's offset from UTC (0–13 in RFC 2579); ``IPPDateTime/utcDirection`` is its sign.
    public var utcHours: UInt8
    /// The minutes of the time zone's offset from UTC, 0–59.
    public var utcMinutes: UInt8

    /// Creates a date; the default zone is UTC (`+0000`).
    public init(
        year: UInt16, month: UInt8, day: UInt8, hour: UInt8, minutes: UInt8, seconds: UInt8,
        deciseconds: UInt8 = 0, utcDirection: UInt8 = UInt8(ascii: "+"),
        utcHours: UInt8 = 0, utcMinutes: UInt8 = 0
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minutes = minutes
        self.seconds = seconds
        self.deciseconds = deciseconds
        self.utcDirection = utcDirection
        self.utcHours = utcHours
        self.utcMinutes = utcMinutes
    }
}

/// A `resolution` value: cross-feed and feed resolution and their units.
public struct IPPResolution: Hashable, Sendable {
    /// Units of a resolution: 3 = dots per inch, 4 = dots per centimetre.
    public struct Units: RawRepresentable, Hashable, Sendable {
        /// The units value on the wire: 3 or 4.
        public var rawValue: UInt8
        /// The units with this value on the wire, registered or not.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Dots per inch: units value 3.
        public static let dotsPerInch = Units(rawValue: 3)
        /// Dots per centimetre: units value 4.
        public static let dotsPerCentimeter = Units(rawValue: 4)
    }

    /// The resolution across the direction the medium moves (the first of the two, e.g. 600 in 600×1200), in
    /// ``IPPResolution/units``.
    public var crossFeed: Int32
    /// The resolution along the direction the medium moves, in ``IPPResolution/units``.
    public var feed: Int32
    /// The units of both resolutions; a decoded value keeps whatever units octet was sent.
    public var units: Units

    /// Creates a resolution, in dots per inch unless `units` says otherwise.
    public init(crossFeed: Int32, feed: Int32, units: Units = .dotsPerInch) {
        self.crossFeed = crossFeed
        self.feed = feed
        self.units = units
    }
}

/// A `rangeOfInteger` value. Not a `ClosedRange` because the wire may carry
/// lower > upper, and decoding must represent whatever it accepts without trapping.
public struct IPPRange: Hashable, Sendable {
    /// The lower bound, inclusive, e.g. the first page of a `page-ranges` range.
    public var lower: Int32
    /// The upper bound, inclusive; a decoded range may have it below ``IPPRange/lower``.
    public var upper: Int32

    /// Creates the range from `lower` through `upper`, unchecked: as on the wire, `lower` may exceed `upper`.
    public init(_ lower: Int32, _ upper: Int32) {
        self.lower = lower
        self.upper = upper
    }

    /// Creates a range with the bounds of a closed range, e.g. `IPPRange(1...5)`.
    public init(_ range: ClosedRange<Int32>) {
        self.init(range.lowerBound, range.upperBound)
    }
}
