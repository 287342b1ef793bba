/// One attribute value with its syntax (RFC 8011 §5.1, encoded per RFC 8010 §3.9).
///
/// This is the typed, owned form used to build messages and to read values
/// out of a decoded message. A decoded message keeps its values in wire form,
/// so reading a value materialises it; use the typed accessors on
/// `IPPAttribute` (`integerValue`, `stringValue`…) when only one is needed, or
/// its `valueViews` (`IPPValueView`) to read values in place.
public enum IPPValue: Hashable, Sendable {
    case integer(Int32)
    case boolean(Bool)
    /// An `enum` value such as `printer-state` 3 (idle).
    case enumValue(Int32)
    case octetString([UInt8])
    case dateTime(IPPDateTime)
    case resolution(IPPResolution)
    case rangeOfInteger(IPPRange)
    case textWithLanguage(String, language: String)
    case nameWithLanguage(String, language: String)
    case text(String)
    case name(String)
    case keyword(String)
    case uri(String)
    case uriScheme(String)
    case charset(String)
    case naturalLanguage(String)
    case mimeMediaType(String)
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
        public var name: String
        public var values: [IPPValue]
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

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }
}

/// A `dateTime` value (RFC 2579 DateAndTime, 11 octets).
public struct IPPDateTime: Hashable, Sendable {
    public var year: UInt16
    public var month: UInt8
    public var day: UInt8
    public var hour: UInt8
    public var minutes: UInt8
    public var seconds: UInt8
    public var deciseconds: UInt8
    /// `+` (0x2B) or `-` (0x2D), the direction from UTC.
    public var utcDirection: UInt8
    public var utcHours: UInt8
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
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let dotsPerInch = Units(rawValue: 3)
        public static let dotsPerCentimeter = Units(rawValue: 4)
    }

    public var crossFeed: Int32
    public var feed: Int32
    public var units: Units

    public init(crossFeed: Int32, feed: Int32, units: Units = .dotsPerInch) {
        self.crossFeed = crossFeed
        self.feed = feed
        self.units = units
    }
}

/// A `rangeOfInteger` value. Not a `ClosedRange` because the wire may carry
/// lower > upper, and decoding must represent whatever it accepts without trapping.
public struct IPPRange: Hashable, Sendable {
    public var lower: Int32
    public var upper: Int32

    public init(_ lower: Int32, _ upper: Int32) {
        self.lower = lower
        self.upper = upper
    }

    public init(_ range: ClosedRange<Int32>) {
        self.init(range.lowerBound, range.upperBound)
    }
}
