import Testing

@testable import IPP

/// Registered names and keywords read from the wire come back as interned literals; they must still read
/// exactly as sent, and a near miss must not be mistaken for one.
@Suite struct InterningTests {
    /// Each interned string and near misses of the same length or one byte longer or shorter.
    static var candidates: [String] {
        IPPInternedStrings.strings.flatMap { string -> [String] in
            var changed = Array(string.utf8)
            changed[changed.count / 2] ^= 0x01
            return [string, String(decoding: changed, as: UTF8.self), string + "x", String(string.dropLast())]
        }
    }

    @Test func everyInternedStringIsFoundAndNearMissesAreNot() {
        let strings = IPPInternedStrings.strings
        #expect(Set(strings).count == strings.count, "no string is listed twice")
        for candidate in Self.candidates {
            var bytes = Array(candidate.utf8)
            let found = bytes.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.flatMap { IPPInternedStrings.lookup($0, count: buffer.count) }
            }
            let listed = strings.contains(candidate)
            #expect(found == (listed ? candidate : nil), "\(candidate)")
        }
    }

    @Test func namesKeywordsAndMemberNamesReadBackAsSent() throws {
        var expected: [(name: String, values: [IPPValue])] = []
        for (index, string) in Self.candidates.enumerated() {
            let member = IPPCollection { $0.add(string, .keyword(string)) }
            expected.append((string, [.keyword(string), .mimeMediaType(string), .charset(string), .collection(member)]))
            if index % 7 == 0 { expected.append((string, [.uriScheme(string), .name(string)])) }
        }
        var message = IPPMessage.request(.printJob, requestID: 1)
        message.addGroup(.job) { group in
            for attribute in expected { group.add(attribute.name, values: attribute.values) }
        }
        let decoded = try IPPDecoder().decode(try message.encoded())
        let attributes = try #require(decoded.group(.job))
        #expect(attributes.count == expected.count)
        for (attribute, wanted) in zip(attributes, expected) {
            #expect(attribute.name == wanted.name)
            #expect(attribute.values == wanted.values)
            #expect(attribute.stringValues == wanted.values.compactMap(\.stringValue))
        }
    }

    @Test func viewsKeepTheStorageTheyWereMadeFrom() throws {
        var message = IPPMessage.request(.printJob, requestID: 1) { $0.add("job-name", .name("first")) }
        let before = try #require(message.operationAttributes)
        message.removeAttribute("job-name", from: .operation)
        message.addGroup(.job) { $0.add("job-name", .name("second")) }
        message.updateGroup(at: 0) { $0.add("document-format", .mimeMediaType("application/pdf")) }
        #expect(before.names == ["attributes-charset", "attributes-natural-language", "job-name"])
        #expect(before["job-name"]?.stringValue == "first")
        #expect(message.operationAttributes?.names == ["attributes-charset", "attributes-natural-language", "document-format"])
        #expect(message.group(.job)?["job-name"]?.stringValue == "second")
        var copy = message
        copy.addGroup(.printer) { $0.add("printer-name", .name("p")) }
        #expect(message.groupCount == 2)
        #expect(copy.groupCount == 3)
    }
}
