import IPP
import TestSupport
import Testing

/// A malformed-message corpus derived from the valid fixtures: every entry
/// must be rejected with a precise error, none may trap.
@Suite struct MalformedTests {
    /// The smallest captured request, so that every truncation is tried.
    static let small = Fixtures.bytes(Fixtures.printerAttributesRequest)

    @Test func everyTruncationIsReportedAsTruncated() throws {
        let bytes = Self.small
        #expect(bytes.count > 100)
        for length in 0..<bytes.count {
            let prefix = Array(bytes[0..<length])
            #expect(throws: IPPError.self) { try IPPDecoder().decode(prefix) }
            do {
                _ = try IPPDecoder().decode(prefix)
            } catch {
                #expect(error.kind == .truncated, "prefix of \(length): \(error)")
                #expect(error.offset <= length, "prefix of \(length): \(error)")
            }
            switch try IPPDecoder().decodePrefix(prefix) {
            case .needMoreData(let atLeast):
                #expect(atLeast > length && atLeast <= bytes.count, "prefix of \(length) asks for \(atLeast)")
            case .complete:
                Issue.record("prefix of \(length) bytes decoded as complete")
            }
        }
    }

    @Test func truncationMessageSaysWhatRanOut() {
        // attributes-charset with value length 300 but only 33 bytes after the length field.
        var bytes: [UInt8] = [2, 0, 0, 0x0B, 0, 0, 0, 1, 0x01, 0x47, 0, 18]
        bytes += Array("attributes-charset".utf8)
        bytes += [0x01, 0x2C]  // 300
        bytes += [UInt8](repeating: 0x61, count: 33)
        #expect(throws: IPPError(.truncated, at: 30, "value length 300 runs past end of input (33 bytes left)")) {
            try IPPDecoder().decode(bytes)
        }
        let error = IPPError(.truncated, at: 30, "value length 300 runs past end of input (33 bytes left)")
        #expect(error.description == "IPP decode error at byte 30: value length 300 runs past end of input (33 bytes left)")
    }

    @Test func missingEndTag() {
        let bytes = Array(Self.small.dropLast())
        #expect(
            throws: IPPError(
                .truncated, at: bytes.count,
                "expected a group tag or end-of-attributes tag (0x03), found end of input")
        ) {
            try IPPDecoder().decode(bytes)
        }
    }

    /// Raising a length field by one at every value makes the message overlong somewhere:
    /// the decoder must never accept it as the same message, nor trap.
    @Test func overlongLengthsAtEveryValue() throws {
        let bytes = Self.small
        for offset in lengthFieldOffsets(bytes) {
            var mutated = bytes
            mutated[offset + 1] &+= 1
            if let message = try? IPPDecoder().decode(mutated) {
                #expect(try message.encoded() != bytes, "length at \(offset)")
            }
            var huge = bytes
            huge[offset] = 0xFF
            #expect(throws: IPPError.self, "length at \(offset) set to \(huge[offset]) \(huge[offset + 1])") {
                try IPPDecoder().decode(huge)
            }
        }
    }

    @Test func valueLengthOverTheLimit() {
        var bytes: [UInt8] = [2, 0, 0, 0x0B, 0, 0, 0, 1, 0x01, 0x41, 0, 1, 0x61, 0x80, 0x00]
        bytes += [UInt8](repeating: 0x61, count: 0x8000) + [0x03]
        #expect(throws: IPPError(.limitExceeded, at: 13, "value length 32768 exceeds the limit of 32767")) {
            try IPPDecoder().decode(bytes)
        }
        var relaxed = IPPDecoder.Limits()
        relaxed.maxValueLength = 0xFFFF
        #expect(throws: Never.self) { try IPPDecoder(limits: relaxed).decode(bytes) }
    }

    @Test func badTags() {
        let header: [UInt8] = [2, 0, 0, 0x0B, 0, 0, 0, 1]
        let cases: [([UInt8], IPPError)] = [
            (header + [0x00, 0x03], IPPError(.malformed, at: 8, "reserved delimiter tag 0x00: expected a group tag (0x01-0x0A) or a value tag")),
            (header + [0x0B, 0x03], IPPError(.malformed, at: 8, "reserved delimiter tag 0x0B: expected a group tag (0x01-0x0A) or a value tag")),
            (header + [0x01, 0x80, 0, 1, 0x61, 0, 0, 0x03], IPPError(.malformed, at: 9, "reserved value tag 0x80: expected a value tag 0x10-0x7F")),
            (
                header + [0x44, 0, 1, 0x61, 0, 0, 0x03],
                IPPError(.malformed, at: 8, "value tag 0x44 before any group: expected operation-attributes-tag (0x01)")
            ),
            (
                header + [0x01, 0x44, 0, 0, 0, 1, 0x61, 0x03],
                IPPError(
                    .malformed, at: 9,
                    "value with name length 0 at the start of a group: expected an attribute name (an additional value needs a preceding attribute)")
            ),
            (header + [0x01, 0x21, 0, 1, 0x61, 0, 3, 0, 0, 1, 0x03], IPPError(.malformed, at: 13, "integer value length 3: expected 4")),
            (header + [0x01, 0x22, 0, 1, 0x61, 0, 0, 0x03], IPPError(.malformed, at: 13, "boolean value length 0: expected 1")),
            (header + [0x01, 0x31, 0, 1, 0x61, 0, 1, 0, 0x03], IPPError(.malformed, at: 13, "dateTime value length 1: expected 11")),
            (header + [0x01, 0x4A, 0, 1, 0x61, 0, 1, 0x62, 0x03], IPPError(.malformed, at: 9, "memberAttrName (0x4A) outside a collection")),
            (header + [0x01, 0x37, 0, 1, 0x61, 0, 0, 0x03], IPPError(.malformed, at: 9, "endCollection (0x37) outside a collection")),
            (
                header + [0x01, 0x7F, 0, 1, 0x61, 0, 2, 0, 0, 0x03],
                IPPError(.malformed, at: 13, "extension (0x7F) value length 2: expected at least 4 (the extended tag)")
            ),
            (
                header + [0x01, 0x7F, 0, 1, 0x61, 0, 4, 0x80, 0, 0, 0, 0x03],
                IPPError(.malformed, at: 15, "extension tag 0x80000000 is above 0x7FFFFFFF")
            ),
            (
                header + [0x01, 0x35, 0, 1, 0x61, 0, 5, 0, 9, 0x65, 0, 0, 0x03],
                IPPError(.malformed, at: 15, "textWithLanguage language length 9 runs past the value (3 bytes left)")
            ),
            (
                header + [0x01, 0x36, 0, 1, 0x61, 0, 6, 0, 0, 0, 3, 0x61, 0x62, 0x03],
                IPPError(.malformed, at: 17, "nameWithLanguage text length 3 does not fill the value: expected 2")
            ),
        ]
        for (bytes, expected) in cases {
            #expect(throws: expected) { try IPPDecoder().decode(bytes) }
        }
    }

    @Test func illNestedCollections() {
        let header: [UInt8] = [2, 0, 0, 0x0B, 0, 0, 0, 1, 0x01]
        let open: [UInt8] = [0x34, 0, 1, 0x63, 0, 0]
        let member: [UInt8] = [0x4A, 0, 0, 0, 1, 0x6D]
        let value: [UInt8] = [0x21, 0, 0, 0, 4, 0, 0, 0, 1]
        let close: [UInt8] = [0x37, 0, 0, 0, 0]
        let cases: [([UInt8], String)] = [
            (header + open + member + value + [0x03], "end-of-attributes-tag (0x03) inside 1 open collection(s): expected endCollection (0x37)"),
            (
                header + open + member + value + [0x02] + close + [0x03],
                "job-attributes-tag (0x02) inside 1 open collection(s): expected endCollection (0x37)"
            ),
            (header + open + value + close + [0x03], "value tag 0x21 at the start of a collection: expected memberAttrName (0x4A)"),
            (header + open + member + close + [0x03], "endCollection (0x37) right after memberAttrName: expected a value for the member"),
            (
                header + open + member + member + value + close + [0x03],
                "memberAttrName (0x4A) right after another: expected a value for the previous member"
            ),
            (
                header + open + member + [0x21, 0, 1, 0x6E, 0, 4, 0, 0, 0, 1] + close + [0x03],
                "name length 1 inside a collection: expected 0 (members are named by memberAttrName) or endCollection (0x37)"
            ),
            (header + open + member + value + [0x37, 0, 0, 0, 1, 0x78] + [0x03], "endCollection value length 1: expected 0"),
        ]
        for (bytes, message) in cases {
            do {
                _ = try IPPDecoder().decode(bytes)
                Issue.record("accepted: \(message)")
            } catch {
                #expect(error.kind == .malformed)
                #expect(error.message == message)
            }
        }
        // The well-nested version of the same pieces is accepted.
        #expect(throws: Never.self) { try IPPDecoder().decode(header + open + member + value + close + [0x03]) }
    }

    @Test func depthBomb() {
        var bytes: [UInt8] = [2, 0, 0, 0x0B, 0, 0, 0, 1, 0x01, 0x34, 0, 1, 0x63, 0, 0]
        for _ in 0..<10_000 {
            bytes += [0x4A, 0, 0, 0, 1, 0x6D, 0x34, 0, 0, 0, 0]
        }
        #expect(throws: IPPError(.limitExceeded, at: 9 + 6 + 16 * 11 - 5, "collections nested deeper than 16")) {
            try IPPDecoder().decode(bytes)
        }
    }

    @Test func attributeCountAndSizeLimits() throws {
        let bytes = Fixtures.bytes(Fixtures.printerAttributesResponse)
        var limits = IPPDecoder.Limits()
        limits.maxAttributes = 10
        #expect(throws: IPPError.self) { try IPPDecoder(limits: limits).decode(bytes) }
        do { _ = try IPPDecoder(limits: limits).decode(bytes) } catch {
            #expect(error.kind == .limitExceeded)
            #expect(error.message == "more than 10 attributes")
        }
        limits = IPPDecoder.Limits()
        limits.maxMessageSize = 1000
        // Over the size limit is an error even for a prefix: a server stops reading instead of waiting.
        #expect(throws: IPPError.self) { try IPPDecoder(limits: limits).decodePrefix(Array(bytes[0..<1500])) }
        do { _ = try IPPDecoder(limits: limits).decodePrefix(Array(bytes[0..<1500])) } catch {
            #expect(error.kind == .limitExceeded)
        }
    }

    /// Seeded garbage and byte flips of every fixture: any outcome but a trap is fine,
    /// and whatever is accepted must encode back to the consumed bytes.
    @Test func garbageAndBitFlipsNeverTrap() throws {
        var random = SplitMix64(seed: 0x1BB5_EED)
        var accepted = 0
        var rejected = 0
        for name in Fixtures.names {
            let bytes = Fixtures.bytes(name)
            for _ in 0..<200 {
                var mutated = bytes
                for _ in 0..<(1 + Int(random.next() % 4)) {
                    let index = Int(random.next() % UInt64(mutated.count))
                    mutated[index] = UInt8(truncatingIfNeeded: random.next())
                }
                do {
                    let (message, end) = try IPPDecoder().decodeWithDocumentOffset(mutated)
                    #expect(try message.encoded() == Array(mutated[0..<end]))
                    _ = message.description
                    accepted += 1
                } catch {
                    #expect(!error.message.isEmpty)
                    rejected += 1
                }
            }
        }
        for length in [0, 1, 7, 8, 9, 64, 4096] {
            let garbage = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = try? IPPDecoder().decode(garbage)
        }
        #expect(accepted > 0 && rejected > 0)
    }

    /// The fuzz seed corpus (tools/make-ipp-fuzz-seeds.py) holds valid and malformed messages:
    /// valid ones round-trip, the others fail with an error that says something.
    @Test func fuzzSeedsDecodeOrFailPrecisely() throws {
        let directory = Fixtures.directory + "/fuzz-seeds"
        let names = listDirectory(directory).sorted()
        #expect(names.count >= 20)
        var decoded = 0
        for name in names {
            let bytes = readFile(directory + "/" + name) ?? []
            do {
                let (message, end) = try IPPDecoder().decodeWithDocumentOffset(bytes)
                #expect(try message.encoded() == Array(bytes[0..<end]), "\(name)")
                decoded += 1
            } catch {
                #expect(!name.hasPrefix("synthetic-every-syntax"), "\(name): \(error)")
                #expect(!error.message.isEmpty)
            }
        }
        #expect(decoded > 0 && decoded < names.count)
    }

    /// Offsets of every name-length and value-length field of a well-formed message.
    private func lengthFieldOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var position = 8
        while position < bytes.count, bytes[position] != 0x03 {
            if bytes[position] < 0x10 {
                position += 1
                continue
            }
            offsets.append(position + 1)
            let nameLength = Int(bytes[position + 1]) << 8 | Int(bytes[position + 2])
            let valueOffset = position + 3 + nameLength
            offsets.append(valueOffset)
            position = valueOffset + 2 + (Int(bytes[valueOffset]) << 8 | Int(bytes[valueOffset + 1]))
        }
        return offsets
    }

    /// The header of bytes that cannot be decoded is read as sent, so a printer can echo the request-id.
    @Test func theHeaderOfUndecodableBytesIsReadAsSent() throws {
        let header = try #require(IPPDecoder.header(of: [0x02, 0x00, 0x00, 0x02, 0x80, 0x00, 0x00, 0x2A, 0xFF]))
        #expect(header.version == .v2_0)
        #expect(header.operation == .printJob)
        #expect(header.requestID == Int32(bitPattern: 0x8000_002A))
        #expect(header.groupCount == 0)
        #expect(IPPDecoder.header(of: Array("GET / H".utf8)) == nil)
    }
}
