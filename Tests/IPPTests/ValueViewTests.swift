import IPP
import Testing

/// The typed views of a decoded message (`IPPAttribute.valueViews`, `nameView`) read the same as its owned values,
/// and the decoder refuses names and strings that are not UTF-8, so that every string view holds valid UTF-8.
@Suite struct ValueViewTests {
    /// Checks a view against the owned value case by case, without going through `IPPValueView.owned`.
    static func expectSame(_ view: IPPValueView, _ value: IPPValue, _ context: String) {
        switch (view, value) {
        case (.integer(let a), .integer(let b)), (.enumValue(let a), .enumValue(let b)):
            #expect(a == b, "\(context)")
        case (.boolean(let a), .boolean(let b)): #expect(a == b, "\(context)")
        case (.octetString(let a), .octetString(let b)): #expect(Array(a) == b, "\(context)")
        case (.other(let tagA, let a), .other(let tagB, let b)):
            #expect(tagA == tagB && Array(a) == b, "\(context)")
        case (.dateTime(let a), .dateTime(let b)): #expect(a == b, "\(context)")
        case (.resolution(let a), .resolution(let b)): #expect(a == b, "\(context)")
        case (.rangeOfInteger(let a), .rangeOfInteger(let b)): #expect(a == b, "\(context)")
        case (.textWithLanguage(let text, let language), .textWithLanguage(let ownedText, let ownedLanguage)),
            (.nameWithLanguage(let text, let language), .nameWithLanguage(let ownedText, let ownedLanguage)):
            expectSame(text, ownedText, context)
            expectSame(language, ownedLanguage, context)
        case (.text(let a), .text(let b)), (.name(let a), .name(let b)), (.keyword(let a), .keyword(let b)),
            (.uri(let a), .uri(let b)), (.uriScheme(let a), .uriScheme(let b)), (.charset(let a), .charset(let b)),
            (.naturalLanguage(let a), .naturalLanguage(let b)), (.mimeMediaType(let a), .mimeMediaType(let b)):
            expectSame(a, b, context)
        case (.collection(let view), .collection(let owned)):
            #expect(view.count == owned.count, "\(context)")
            for (member, ownedMember) in zip(view, owned.members) {
                expectSame(member.name, ownedMember.name, context)
                let values = Array(member.values)
                #expect(values.count == ownedMember.values.count, "\(context) \(ownedMember.name)")
                for (inner, ownedInner) in zip(values, ownedMember.values) {
                    expectSame(inner, ownedInner, "\(context) \(ownedMember.name)")
                }
                #expect(view[ownedMember.name] != nil, "\(context): member \(ownedMember.name) found by name")
            }
        case (.outOfBand(let a), .outOfBand(let b)): #expect(a == b, "\(context)")
        default: Issue.record("\(context): view \(view) differs from \(value)")
        }
    }

    static func expectSame(_ view: IPPStringView, _ string: String, _ context: String) {
        #expect(view == string, "\(context)")
        #expect(view.string == string, "\(context)")
        #expect(view.utf8Count == string.utf8.count, "\(context)")
        #expect(Array(view.utf8) == Array(string.utf8), "\(context)")
    }

    /// Every attribute of a message: name and values as views equal the owned ones, reading the values one by one
    /// (the iterator) gives the same views as moving through their positions, and the spans (the attribute's and the
    /// group's) read as the views.
    static func expectViewsMatch(_ message: IPPMessage, _ context: String) {
        for group in message.groups {
            var spans = group.attributeSpans
            for attribute in group {
                let name = attribute.name
                expectSame(attribute.nameView, name, "\(context) \(name)")
                let views = attribute.valueViews
                let iterated = Array(views)
                #expect(iterated == views.indices.map { views[$0] }, "\(context) \(name)")
                #expect(iterated.count == attribute.count, "\(context) \(name)")
                let owned = attribute.values
                #expect(iterated.count == owned.count, "\(context) \(name)")
                for (view, value) in zip(iterated, owned) { expectSame(view, value, "\(context) \(name)") }
                let nameMatches = same(attribute.nameSpan, attribute.nameView)
                #expect(nameMatches, "\(context) \(name): name span")
                let valuesMatch = spansMatch(attribute.valueSpans, iterated)
                #expect(valuesMatch, "\(context) \(name): value spans")
                var groupSpanMatches = false
                if let span = spans.next() { groupSpanMatches = same(span.name, attribute.nameView) && spansMatch(span.values, iterated) }
                #expect(groupSpanMatches, "\(context) \(name): the group's attribute span")
            }
            var spansEnded = true
            if spans.next() != nil { spansEnded = false }
            #expect(spansEnded, "\(context): the group's attribute spans end with its attributes")
        }
    }

    // MARK: Spans

    /// Whether a string span has the bytes of a view, read and made into a String both ways.
    static func same(_ span: borrowing IPPStringSpan, _ view: IPPStringView) -> Bool {
        let bytes = span.utf8
        var copied: [UInt8] = []
        for index in bytes.indices { copied.append(bytes[index]) }
        return span.utf8Count == view.utf8Count && copied == Array(view.utf8) && span == view.string
            && span.string == view.string
    }

    static func same(_ span: borrowing IPPBytesSpan, _ view: IPPBytesView) -> Bool {
        let bytes = span.bytes
        var copied: [UInt8] = []
        for index in bytes.indices { copied.append(bytes[index]) }
        return span.count == view.count && copied == Array(view)
    }

    /// Whether the spans read one by one are the views, case by case (collections member by member).
    static func spansMatch(_ spans: consuming IPPValueSpans, _ views: [IPPValueView]) -> Bool {
        var matched = 0
        while let span = spans.next() {
            guard matched < views.count, same(span, views[matched]) else { return false }
            matched += 1
        }
        return matched == views.count
    }

    static func same(_ span: IPPValueSpan, _ view: IPPValueView) -> Bool {
        switch (span, view) {
        case (.integer(let a), .integer(let b)), (.enumValue(let a), .enumValue(let b)): return a == b
        case (.boolean(let a), .boolean(let b)): return a == b
        case (.octetString(let a), .octetString(let b)): return same(a, b)
        case (.other(let tagA, let a), .other(let tagB, let b)): return tagA == tagB && same(a, b)
        case (.dateTime(let a), .dateTime(let b)): return a == b
        case (.resolution(let a), .resolution(let b)): return a == b
        case (.rangeOfInteger(let a), .rangeOfInteger(let b)): return a == b
        case (.textWithLanguage(let text, let language), .textWithLanguage(let viewText, let viewLanguage)),
            (.nameWithLanguage(let text, let language), .nameWithLanguage(let viewText, let viewLanguage)):
            return same(text, viewText) && same(language, viewLanguage)
        case (.text(let a), .text(let b)), (.name(let a), .name(let b)), (.keyword(let a), .keyword(let b)),
            (.uri(let a), .uri(let b)), (.uriScheme(let a), .uriScheme(let b)), (.charset(let a), .charset(let b)),
            (.naturalLanguage(let a), .naturalLanguage(let b)), (.mimeMediaType(let a), .mimeMediaType(let b)):
            return same(a, b)
        case (.collection(var members), .collection(let view)):
            var viewMembers = view.makeIterator()
            while let member = members.next() {
                guard let viewMember = viewMembers.next(), same(member.name, viewMember.name),
                    spansMatch(member.values, Array(viewMember.values))
                else { return false }
            }
            return viewMembers.next() == nil
        case (.outOfBand(let a), .outOfBand(let b)): return a == b
        default: return false
        }
    }

    @Test(arguments: Fixtures.names)
    func viewsOfEveryFixtureReadAsTheOwnedValues(name: String) throws {
        Self.expectViewsMatch(try IPPDecoder().decode(Fixtures.bytes(name)), name)
    }

    @Test func viewsOfEveryDecodableFuzzSeedReadAsTheOwnedValues() throws {
        let directory = Fixtures.directory + "/fuzz-seeds"
        var checked = 0
        for name in listDirectory(directory).sorted() {
            guard let message = try? IPPDecoder().decode(readFile(directory + "/" + name) ?? []) else { continue }
            Self.expectViewsMatch(message, name)
            checked += 1
        }
        #expect(checked >= 10)
    }

    @Test func viewsOfABuiltMessageReadAsItsValues() throws {
        let size = IPPCollection {
            $0.add("x-dimension", .integer(21000))
            $0.add("y-dimension", .integer(29700))
        }
        let media = IPPCollection {
            $0.add("media-size", .collection(size))
            $0.add("media-source", .keyword("main"), .keyword("by-pass-tray"))
        }
        var message = IPPMessage.request(.printJob, requestID: 7) { group in
            group.add("printer-uri", .uri("ipp://localhost/ipp/print"))
            group.add("job-name", .nameWithLanguage("Zoë’s report", language: "fr-CA"))
        }
        message.addGroup(.job) { group in
            group.add("media-col", .collection(media))
            group.add("copies", .integer(2))
            group.add("printer-resolution", .resolution(IPPResolution(crossFeed: 600, feed: 300)))
            group.add("x-blob", .octetString([0, 0xFF, 0x80]))
            group.add("job-hold-until", .outOfBand(.noValue))
        }
        Self.expectViewsMatch(message, "built")
        let decoded = try IPPDecoder().decode(try message.encoded())
        Self.expectViewsMatch(decoded, "built, decoded")

        // Members are found by name in place, nested collections included.
        let col = try #require(decoded.attribute("media-col", in: .job)?.valueViews.first?.collectionValue)
        #expect(col.map(\.name.string) == ["media-size", "media-source"])
        let sizeView = try #require(col["media-size"]?.values.first?.collectionValue)
        #expect(sizeView["y-dimension"]?.values.first?.integerValue == 29700)
        #expect(col["media-source"]?.values.compactMap(\.stringView?.string) == ["main", "by-pass-tray"])
        #expect(col["no-such-member"] == nil)
    }

    @Test func stringViewsCompareAndHashByTheirBytes() throws {
        let one = try IPPDecoder().decode(Fixtures.bytes(Fixtures.printerAttributesRequest))
        let two = try IPPDecoder().decode(try one.encoded())
        let names = one.groups.flatMap { $0.map(\.nameView) }
        let again = two.groups.flatMap { $0.map(\.nameView) }
        #expect(names == again)
        #expect(Set(names).count == Set(names.map(\.string)).count)
        for (a, b) in zip(names, again) { #expect(a.hashValue == b.hashValue) }
        let charset = try #require(one.operationAttributes?[0])
        #expect(charset.nameView == "attributes-charset")
        #expect(charset.nameView != "attributes-charsex")
        #expect(charset.nameView != "attributes-charse")
        #expect(names[0] != names[1])
    }

    // MARK: UTF-8 at decode

    static let header: [UInt8] = [2, 0, 0, 0x0B, 0, 0, 0, 1, 0x01]

    /// One attribute of this tag, name and value, then the end tag.
    static func message(tag: UInt8, name: [UInt8], value: [UInt8]) -> [UInt8] {
        header + [tag, 0, UInt8(name.count)] + name + [0, UInt8(value.count)] + value + [0x03]
    }

    @Test func namesAndStringsThatAreNotUTF8AreRefusedWhereTheyGoWrong() {
        let a = Array("a".utf8)
        let cases: [([UInt8], IPPError)] = [
            (
                Self.message(tag: 0x44, name: [0x61, 0xFF], value: a),
                IPPError(.malformed, at: 13, "attribute name is not UTF-8 at byte 0xFF: expected UTF-8 text (RFC 3629)")
            ),
            (
                Self.message(tag: 0x41, name: a, value: [0x6F, 0x6B, 0xC3, 0x28]),
                IPPError(.malformed, at: 17, "textWithoutLanguage value is not UTF-8 at byte 0xC3: expected UTF-8 text (RFC 3629)")
            ),
            (
                // An overlong encoding of "/".
                Self.message(tag: 0x44, name: a, value: [0xC0, 0xAF]),
                IPPError(.malformed, at: 15, "keyword value is not UTF-8 at byte 0xC0: expected UTF-8 text (RFC 3629)")
            ),
            (
                // A UTF-16 surrogate, U+D800.
                Self.message(tag: 0x42, name: a, value: [0x78, 0xED, 0xA0, 0x80]),
                IPPError(.malformed, at: 16, "nameWithoutLanguage value is not UTF-8 at byte 0xED: expected UTF-8 text (RFC 3629)")
            ),
            (
                // A sequence cut short by the end of the value: the next bytes are the value after it.
                Self.message(tag: 0x45, name: a, value: [0xE2, 0x82]),
                IPPError(.malformed, at: 15, "uri value is not UTF-8 at byte 0xE2: expected UTF-8 text (RFC 3629)")
            ),
            (
                // Past the first eight bytes, in the middle of a longer value.
                Self.message(tag: 0x41, name: a, value: Array("abcdefghij".utf8) + [0xFF] + Array("klmnopqrs".utf8)),
                IPPError(.malformed, at: 25, "textWithoutLanguage value is not UTF-8 at byte 0xFF: expected UTF-8 text (RFC 3629)")
            ),
            (
                // A lead byte followed by ASCII, in a value of four to seven bytes.
                Self.message(tag: 0x44, name: a, value: Array("abc".utf8) + [0xC3] + Array("de".utf8)),
                IPPError(.malformed, at: 18, "keyword value is not UTF-8 at byte 0xC3: expected UTF-8 text (RFC 3629)")
            ),
            (
                // Above U+10FFFF.
                Self.message(tag: 0x49, name: a, value: [0xF4, 0x90, 0x80, 0x80]),
                IPPError(.malformed, at: 15, "mimeMediaType value is not UTF-8 at byte 0xF4: expected UTF-8 text (RFC 3629)")
            ),
            (
                Self.message(tag: 0x35, name: a, value: [0, 2, 0x65, 0x6E, 0, 2, 0x68, 0x80]),
                IPPError(.malformed, at: 22, "textWithLanguage text is not UTF-8 at byte 0x80: expected UTF-8 text (RFC 3629)")
            ),
            (
                Self.message(tag: 0x36, name: a, value: [0, 2, 0x65, 0xFE, 0, 1, 0x68]),
                IPPError(.malformed, at: 18, "nameWithLanguage language is not UTF-8 at byte 0xFE: expected UTF-8 text (RFC 3629)")
            ),
            (
                // A member name inside a collection.
                Self.header + [0x34, 0, 1, 0x63, 0, 0, 0x4A, 0, 0, 0, 2, 0x78, 0xFF, 0x21, 0, 0, 0, 4, 0, 0, 0, 1, 0x37, 0, 0, 0, 0, 0x03],
                IPPError(.malformed, at: 21, "memberAttrName value is not UTF-8 at byte 0xFF: expected UTF-8 text (RFC 3629)")
            ),
        ]
        for (bytes, expected) in cases {
            #expect(throws: expected) { try IPPDecoder().decode(bytes) }
        }
    }

    @Test func wellFormedUTF8OfEveryLengthIsAccepted() throws {
        // One to four bytes a character, the edges of each range, and runs longer than the eight-byte ASCII stride.
        let strings = ["é", "€", "😀", "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}", "ascii then ü", "ü then ascii text"]
        for string in strings {
            let bytes = Self.message(tag: 0x41, name: Array("job-name".utf8), value: Array(string.utf8))
            let message = try IPPDecoder().decode(bytes)
            let view = try #require(message.attribute("job-name")?.valueViews.first?.stringView)
            #expect(view == string)
            #expect(view.string == string)
        }
    }

    @Test func octetStringsNeedNotBeUTF8() throws {
        let message = try IPPDecoder().decode(Self.message(tag: 0x30, name: Array("x".utf8), value: [0xFF, 0xC0]))
        guard case .octetString(let bytes)? = message.attribute("x")?.valueViews.first else {
            Issue.record("expected an octetString view")
            return
        }
        #expect(Array(bytes) == [0xFF, 0xC0])
        #expect(message.attribute("x")?.values == [.octetString([0xFF, 0xC0])])
    }
}
