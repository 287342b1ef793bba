import IPP
import Testing

/// Building messages with every value syntax, and what a server and client need from builders.
@Suite struct BuilderTests {
    static let everySyntax: [(String, [IPPValue])] = [
        ("x-integer", [.integer(-5), .integer(Int32.max)]),
        ("x-boolean", [.boolean(true), .boolean(false)]),
        ("x-enum", [.enumValue(3)]),
        ("x-octets", [.octetString([0, 1, 0xFF])]),
        (
            "x-date",
            [
                .dateTime(
                    IPPDateTime(
                        year: 2025, month: 12, day: 31, hour: 23, minutes: 59, seconds: 58,
                        deciseconds: 9, utcDirection: UInt8(ascii: "-"), utcHours: 5, utcMinutes: 30))
            ]
        ),
        ("x-resolution", [.resolution(IPPResolution(crossFeed: 300, feed: 600, units: .dotsPerCentimeter))]),
        ("x-range", [.rangeOfInteger(IPPRange(1...10)), .rangeOfInteger(IPPRange(7, 3))]),
        ("x-text-lang", [.textWithLanguage("Grüße", language: "de")]),
        ("x-name-lang", [.nameWithLanguage("Nom", language: "fr-ca")]),
        ("x-text", [.text("plain"), .text("")]),
        ("x-name", [.name("name")]),
        ("x-keyword", [.keyword("one"), .keyword("two")]),
        ("x-uri", [.uri("ipp://localhost/ipp/print")]),
        ("x-scheme", [.uriScheme("ipps")]),
        ("x-charset", [.charset("utf-8")]),
        ("x-language", [.naturalLanguage("en-us")]),
        ("x-mime", [.mimeMediaType("application/pdf")]),
        (
            "x-out-of-band",
            [
                .outOfBand(.unsupported), .outOfBand(.unknown), .outOfBand(.noValue),
                .outOfBand(.notSettable), .outOfBand(.deleteAttribute), .outOfBand(.adminDefine),
            ]
        ),
        ("x-extension", [.other(IPPValueTag(rawValue: 0x1234_5678), [9, 8, 7]), .other(IPPValueTag(rawValue: 0x7F), [])]),
        ("x-unregistered", [.other(IPPValueTag(rawValue: 0x38), [1, 2])]),
        (
            "media-col",
            [
                .collection(
                    IPPCollection { col in
                        col.add(
                            "media-size",
                            .collection(
                                IPPCollection { size in
                                    size.add("x-dimension", .integer(21000))
                                    size.add("y-dimension", .integer(29700))
                                }))
                        col.add("media-source", .keyword("main"), .keyword("alternate"))
                        col.add("deeper", .collection(IPPCollection { $0.add("a", .collection(IPPCollection { $0.add("b", .boolean(true)) })) }))
                    }), .collection(IPPCollection { $0.add("media-type", .keyword("stationery")) }),
            ]
        ),
    ]

    @Test func everySyntaxSurvivesEncodeDecode() throws {
        let request = IPPMessage.request(.validateJob, requestID: 42) { op in
            op.addPrinterURI("ipp://localhost:8631/ipp/print")
        }
        var message = request
        message.addGroup(.job) { job in
            for (name, values) in Self.everySyntax { job.add(name, values: values) }
        }
        let bytes = try message.encoded()
        let decoded = try IPPDecoder().decode(bytes)
        #expect(decoded == message)
        #expect(try decoded.encoded() == bytes)
        let job = try #require(decoded.group(.job))
        for (name, values) in Self.everySyntax {
            #expect(job[name]?.values == values, "\(name)")
            #expect(job[name]?.count == values.count, "\(name)")
        }
        #expect(job["x-extension"]?.tag == IPPValueTag(rawValue: 0x1234_5678))
    }

    @Test func oneSetOfUsesAdditionalValueEncoding() throws {
        let message = IPPMessage.request(.getJobs, requestID: 7) { op in
            op.addRequestedAttributes(["job-id", "job-state"])
        }
        let bytes = try message.encoded()
        // ... 0x44 "requested-attributes" "job-id", then 0x44 with name length 0 and "job-state".
        let tail: [UInt8] = [0x44, 0, 0, 0, 9] + Array("job-state".utf8) + [0x03]
        #expect(Array(bytes.suffix(tail.count)) == tail)
    }

    @Test func requestStartsWithCharsetAndLanguage() throws {
        let message = IPPMessage.request(.getPrinterAttributes, requestID: 1, version: .v1_1) { op in
            op.addPrinterURI("ipp://localhost/ipp/print")
        }
        #expect(try message.encoded().prefix(8) == [1, 1, 0, 0x0B, 0, 0, 0, 1])
        let operation = try #require(message.operationAttributes)
        #expect(operation.names == ["attributes-charset", "attributes-natural-language", "printer-uri"])
        #expect(operation[0].tag == .charset)
        #expect(operation[1].tag == .naturalLanguage)
        #expect(message.validateRequest() == nil)
    }

    @Test func responseEchoesVersionAndRequestID() throws {
        let request = IPPMessage.request(.printJob, requestID: 0x0102_0304, version: .v1_1)
        var response = IPPMessage.response(
            to: request, status: .successfulOKIgnoredOrSubstitutedAttributes,
            statusMessage: "Some attributes were substituted.")
        response.addGroup(.job) { job in
            job.addJobID(12)
            job.add("job-state", .enumValue(3))
        }
        let bytes = try response.encoded()
        #expect(Array(bytes.prefix(8)) == [1, 1, 0, 1, 1, 2, 3, 4])
        let decoded = try IPPDecoder().decode(bytes)
        #expect(decoded.requestID == request.requestID)
        #expect(decoded.version == .v1_1)
        #expect(decoded.status == .successfulOKIgnoredOrSubstitutedAttributes)
        #expect(decoded.statusMessage == "Some attributes were substituted.")
        #expect(decoded.jobID == 12)
        #expect(
            decoded.operationAttributes?.names
                == ["attributes-charset", "attributes-natural-language", "status-message"])
    }

    @Test func addingToAnEarlierGroupKeepsTheWireOrder() throws {
        var message = IPPMessage.request(.printJob, requestID: 3)
        message.addGroup(.job) { $0.addCopies(2) }
        message.addGroup(.job) { $0.addSides("one-sided") }
        message.updateGroup(at: 0) { op in
            op.addRequestingUserName("alice")
            op.addDocumentFormat("application/pdf")
        }
        let decoded = try IPPDecoder().decode(try message.encoded())
        #expect(decoded == message)
        #expect(
            decoded.operationAttributes?.names
                == ["attributes-charset", "attributes-natural-language", "requesting-user-name", "document-format"])
        #expect(decoded.groups(.job).map(\.names) == [["copies"], ["sides"]])
        #expect(decoded.copies == 2)

        let removed = message.removeAttribute("requesting-user-name", from: .operation)
        let removedAgain = message.removeAttribute("requesting-user-name", from: .operation)
        #expect(removed && !removedAgain)
        let afterRemoval = try IPPDecoder().decode(try message.encoded())
        #expect(
            afterRemoval.operationAttributes?.names
                == ["attributes-charset", "attributes-natural-language", "document-format"])
        #expect(afterRemoval.groups(.job).map(\.names) == [["copies"], ["sides"]])
    }

    /// Adding to every group in turn, far past the first buffer's room, so that the buffer grows (is copied) while
    /// items move to make room in earlier groups; the result must equal the same message built in wire order.
    @Test func growingEveryGroupInTurnKeepsTheWireOrder() throws {
        let rounds = 60
        func names(_ group: Int) -> [String] { (0..<rounds).map { "x-\(group)-\($0)-long-enough-to-allocate" } }
        func values(_ group: Int, _ round: Int) -> [IPPValue] {
            round % 3 == 0
                ? [.collection(IPPCollection { $0.add("x-member", .integer(Int32(round)), .keyword("k\(group)")) })]
                : [.integer(Int32(group * 1000 + round)), .text(String(repeating: "t", count: round))]
        }
        var interleaved = IPPMessage.request(.printJob, requestID: 9)
        interleaved.addGroup(.job)
        interleaved.addGroup(.printer)
        let shared = interleaved  // holds the first buffer, which must not change
        for round in 0..<rounds {
            for group in 0..<3 {
                interleaved.updateGroup(at: group) { $0.add(names(group)[round], values: values(group, round)) }
            }
        }
        var ordered = IPPMessage.request(.printJob, requestID: 9) { op in
            for round in 0..<rounds { op.add(names(0)[round], values: values(0, round)) }
        }
        for (group, tag) in [(1, IPPGroupTag.job), (2, .printer)] {
            ordered.addGroup(tag) { builder in
                for round in 0..<rounds { builder.add(names(group)[round], values: values(group, round)) }
            }
        }
        #expect(interleaved == ordered)
        #expect(try interleaved.encoded() == ordered.encoded())
        #expect(interleaved.encodedSize == (try interleaved.encoded()).count)
        #expect(shared.groups.map(\.count) == [2, 0, 0])
        let decoded = try IPPDecoder().decode(try interleaved.encoded())
        #expect(decoded.groups.map(\.count) == [rounds + 2, rounds, rounds])
        #expect(decoded.group(.printer)?[names(2)[4]]?.values == values(2, 4))
        for round in stride(from: 0, to: rounds, by: 7) { interleaved.removeAttribute(names(1)[round], from: .job) }
        ordered = interleaved
        #expect(try IPPDecoder().decode(try ordered.encoded()) == interleaved)
        #expect(interleaved.group(.job)?.count == rounds - (rounds + 6) / 7)
    }

    /// 600 integers take 9 bytes each, more items per byte than the decoder's first buffer has room for, and a
    /// message over 16 KiB does not fit it either: the decoder must decode again into a buffer of the right size.
    @Test(arguments: [0, 20_000]) func aDenseOrLargeMessageDecodesLikeATypicalOne(octets: Int) throws {
        let numbers = (0..<600).map { IPPValue.integer(Int32($0)) }
        let message = IPPMessage.request(.printJob, requestID: 4) { op in
            op.add("x-numbers", values: numbers)
            for index in 0..<40 { op.add("x-\(index)", .boolean(index % 2 == 0)) }
            if octets > 0 { op.add("x-octets", .octetString(Array(repeating: 7, count: octets))) }
        }
        let bytes = try message.encoded()
        let decoded = try IPPDecoder().decode(bytes)
        #expect(decoded == message)
        #expect(try decoded.encoded() == bytes)
        #expect(decoded.operationAttributes?["x-numbers"]?.values == numbers)
        #expect(decoded.operationAttributes?.count == (octets > 0 ? 44 : 43))
        guard case .complete(let prefixed, let offset) = try IPPDecoder().decodePrefix(bytes + [0x25, 0x50]) else {
            Issue.record("a complete message with document data after it asked for more")
            return
        }
        #expect(offset == bytes.count)
        #expect(prefixed == message)
    }

    @Test func echoingAnAttributeCopiesItsBytes() throws {
        let request = try IPPDecoder().decode(Fixtures.bytes("syntax-01-validate-job-request.ipp"))
        let mediaCol = try #require(request.attribute("media-col", in: .job))
        var response = IPPMessage.response(to: request, status: .attributesOrValuesNotSupported)
        response.addGroup(.unsupported) { $0.add(mediaCol) }
        let decoded = try IPPDecoder().decode(try response.encoded())
        #expect(decoded.attribute("media-col", in: .unsupported)?.values == mediaCol.values)
    }

    @Test func valuesThatDoNotFitAreReportedByTheEncoder() {
        var message = IPPMessage.request(.printJob, requestID: 1) { op in
            op.addJobName(String(repeating: "x", count: 70_000))
            op.addRequestingUserName("still added")
        }
        #expect(message.encodingProblem?.kind == .unencodable)
        #expect(message.jobName == nil)
        #expect(message.requestingUserName == "still added")
        #expect(throws: IPPError.self) { try message.encoded() }

        message = IPPMessage.request(.printJob, requestID: 1) { op in
            op.add("x-bad-extension", .other(IPPValueTag(rawValue: 0x8000_0000), []))
        }
        #expect(message.encodingProblem?.message == "extension tag 0x80000000 in \"x-bad-extension\" is above 0x7FFFFFFF")

        message = IPPMessage.request(.printJob, requestID: 1) { op in op.add("x-empty", values: []) }
        #expect(message.encodingProblem?.message == "attribute \"x-empty\" needs at least one value")

        message = IPPMessage.request(.printJob, requestID: 1) { op in op.add("x-not-oob", .outOfBand(.integer)) }
        #expect(message.encodingProblem != nil)
    }

    @Test func descriptionReadsLikeIpptool() throws {
        let message = IPPMessage.request(.getJobs, requestID: 9) { op in
            op.addRequestedAttributes(["job-id", "job-state"])
        }
        let text = message.description
        #expect(text.contains("operation-attributes-tag"))
        #expect(text.contains("requested-attributes (1setOf keyword) = job-id,job-state"))
        #expect(text.contains("Get-Jobs"))
    }

    /// Emptying a message keeping its buffer, then building into it, gives what building a new message gives; a copy
    /// taken before keeps its groups, and an encoding problem noted before is forgotten.
    @Test(arguments: [true, false])
    func buildingIntoAnEmptiedMessageMatchesANewOne(keepingCapacity: Bool) throws {
        func build(into message: inout IPPMessage) {
            message.addGroup(.operation) { group in
                for (name, values) in Self.everySyntax { group.add(name, values: values) }
            }
        }
        var fresh = IPPMessage(code: 0x000B, requestID: 7)
        build(into: &fresh)
        var reused = IPPMessage(code: 0x000B, requestID: 7)
        reused.addGroup(.job) { group in group.add("x-too-long", .text(String(repeating: "x", count: 70_000))) }
        let before = reused
        reused.removeAllGroups(keepingCapacity: keepingCapacity)
        #expect(reused.groupCount == 0 && reused.encodingProblem == nil)
        #expect(before.groupCount == 1 && before.encodingProblem != nil)
        build(into: &reused)
        #expect(reused == fresh)
        #expect(try reused.encoded() == fresh.encoded())
        // Now the message holds its buffer alone: with keepingCapacity it is emptied in place.
        reused.removeAllGroups(keepingCapacity: keepingCapacity)
        build(into: &reused)
        #expect(try reused.encoded() == fresh.encoded())
        reused.addGroup(.job) { group in group.add("x-too-long", .text(String(repeating: "x", count: 70_000))) }
        #expect(reused.encodingProblem != nil)
        reused.removeAllGroups(keepingCapacity: keepingCapacity)
        #expect(reused.groupCount == 0 && reused.encodingProblem == nil)
        #expect(try reused.encoded() == [2, 0, 0, 0x0B, 0, 0, 0, 7, 3])
    }

    /// The message's own adders (`addGroup(_:)`, then `add` to the last group) write the same bytes as the group
    /// builder's for the same values: one value, several, variadic, an attribute copied from another message.
    @Test func messageAddersMatchTheGroupBuilder() throws {
        let echoed = try #require(
            IPPDecoder().decode(Fixtures.bytes("syntax-01-validate-job-request.ipp")).attribute("media-col", in: .job))
        var built = IPPMessage(code: 0x0004, requestID: 3)
        built.addGroup(.operation) { group in
            group.add("attributes-charset", .charset("utf-8"))
            group.add("x-keywords", .keyword("a"), .keyword("b"))
        }
        built.addGroup(.job) { group in
            for (name, values) in Self.everySyntax { group.add(name, values: values) }
            group.add(echoed)
        }
        built.addGroup(.job) { group in group.add("job-id", .integer(7)) }

        var added = IPPMessage(code: 0x0004, requestID: 3)
        added.addGroup(.operation)
        added.add("attributes-charset", .charset("utf-8"))
        added.add("x-keywords", .keyword("a"), .keyword("b"))
        added.addGroup(.job)
        for (index, (name, values)) in Self.everySyntax.enumerated() {
            // One value, an array, a span of the array: every form of the adder, in turn.
            switch index % 3 {
            case 0 where values.count == 1: added.add(name, values[0])
            case 1: added.add(name, values: values)
            default: added.add(name, values: values.span)
            }
        }
        added.add(echoed)
        added.addGroup(.job)
        added.add("job-id", .integer(7))

        #expect(added.encodingProblem == nil)
        #expect(added == built)
        #expect(try added.encoded() == built.encoded())
        #expect(added.groups(.job).count == 2)
    }

    /// The group builder's one-value and span adders write what its array adder writes.
    @Test func oneValueAndSpanAddersMatchTheArrayAdder() throws {
        let all = Self.everySyntax.flatMap(\.1)
        var start = 0
        for (name, values) in Self.everySyntax {
            let one = IPPMessage.request(.getJobs, requestID: 1) { $0.add(name, values[0]) }
            let first = IPPMessage.request(.getJobs, requestID: 1) { $0.add(name, values: [values[0]]) }
            #expect(try one.encoded() == first.encoded(), "\(name)")
            let span = IPPMessage.request(.getJobs, requestID: 1) { $0.add(name, values: values.span) }
            let array = IPPMessage.request(.getJobs, requestID: 1) { $0.add(name, values: values) }
            #expect(try span.encoded() == array.encoded(), "\(name)")
            // A run of a larger array, as the bench passes each attribute's values.
            let run = IPPMessage.request(.getJobs, requestID: 1) { op in
                op.add(name, values: all.span.extracting(start..<(start + values.count)))
            }
            #expect(try run.encoded() == array.encoded(), "\(name)")
            start += values.count
        }
    }

    /// Values the message's adders cannot encode are left out and reported as the group builder reports them; an
    /// attribute added before any group is an error too, not dropped silently.
    @Test func messageAddersReportProblemsLikeTheGroupBuilder() {
        let bad: [(String, [IPPValue])] = [
            ("x-too-long", [.text(String(repeating: "x", count: 70_000))]),
            ("x-bad-extension", [.other(IPPValueTag(rawValue: 0x8000_0000), [])]),
            ("x-empty", []),
            ("x-not-oob", [.outOfBand(.integer)]),
            ("", [.integer(1)]),
        ]
        for (name, values) in bad {
            var built = IPPMessage(code: 0x0002, requestID: 1)
            built.addGroup(.operation) { $0.add(name, values: values) }
            var added = IPPMessage(code: 0x0002, requestID: 1)
            added.addGroup(.operation)
            added.add(name, values: values)
            #expect(added.encodingProblem != nil, "\(name)")
            #expect(added.encodingProblem == built.encodingProblem, "\(name)")
            #expect(added.operationAttributes?.count == 0, "\(name)")
            var spanned = IPPMessage(code: 0x0002, requestID: 1)
            spanned.addGroup(.operation)
            spanned.add(name, values: values.span)
            #expect(spanned.encodingProblem == built.encodingProblem, "\(name)")
            if values.count == 1 {
                var one = IPPMessage(code: 0x0002, requestID: 1)
                one.addGroup(.operation)
                one.add(name, values[0])
                #expect(one.encodingProblem == built.encodingProblem, "\(name)")
            }
        }

        var orphan = IPPMessage(code: 0x0002, requestID: 1)
        orphan.add("job-id", .integer(1))
        #expect(orphan.groupCount == 0)
        #expect(orphan.encodingProblem?.message == "attribute \"job-id\" was added before any group (addGroup first)")
        #expect(throws: IPPError.self) { try orphan.encoded() }
        // The first problem is the one reported, as with the builders.
        orphan.addGroup(.operation)
        orphan.add("x-empty", values: [])
        #expect(orphan.encodingProblem?.message == "attribute \"job-id\" was added before any group (addGroup first)")
    }

    /// Building message after message into one with the message's adders, emptied keeping its buffer, gives what a
    /// new message gives; a copy taken before is not changed by the adders (they change the buffer only when the
    /// message holds it alone).
    @Test(arguments: [true, false])
    func messageAddersReuseAnEmptiedMessage(keepingCapacity: Bool) throws {
        func build(into message: inout IPPMessage) {
            message.addGroup(.operation)
            for (name, values) in Self.everySyntax { message.add(name, values: values) }
        }
        var fresh = IPPMessage(code: 0x000B, requestID: 7)
        build(into: &fresh)
        var reused = IPPMessage(code: 0x000B, requestID: 7)
        for _ in 0..<3 {
            reused.removeAllGroups(keepingCapacity: keepingCapacity)
            build(into: &reused)
            #expect(reused == fresh)
            #expect(try reused.encoded() == fresh.encoded())
        }
        let copy = reused
        let copyBytes = try copy.encoded()
        reused.add("x-later", .integer(1))
        reused.addGroup(.job)
        #expect(try copy.encoded() == copyBytes)
        #expect(reused.groupCount == copy.groupCount + 1)
        reused.removeAllGroups(keepingCapacity: keepingCapacity)
        #expect(try copy.encoded() == copyBytes)
        #expect(try reused.encoded() == [2, 0, 0, 0x0B, 0, 0, 0, 7, 3])
    }
}
