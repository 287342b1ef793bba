import IPP
import Testing

/// `IPPDecoder.decode(_:into:)`, which reuses the message's buffer: it must give what `decode(_:)` gives, never change
/// what another holder of the old message sees, and leave no trace of a message it failed on.
@Suite struct DecodeIntoTests {
    /// Every fixture in turn (growing and shrinking), then again in reverse, into one message.
    @Test func decodingOneAfterAnotherMatchesDecodingEachAlone() throws {
        var message = IPPMessage(code: 0, requestID: 0)
        for name in Fixtures.names + Fixtures.names.reversed() {
            let bytes = Fixtures.bytes(name)
            let end = try IPPDecoder().decode(bytes, into: &message)
            let alone = try IPPDecoder().decodeWithDocumentOffset(bytes)
            #expect(end == alone.documentOffset, "\(name)")
            #expect(message == alone.message, "\(name)")
            #expect(message.version == alone.message.version && message.requestID == alone.message.requestID)
            #expect(try message.encoded() == bytes, "\(name)")
        }
    }

    /// A copy of the message and a group view keep the old buffer, so decoding into the message cannot reuse it.
    @Test func holdersOfTheOldMessageKeepIt() throws {
        let request = Fixtures.bytes(Fixtures.printerAttributesRequest)
        var message = try IPPDecoder().decode(request)
        let copy = message
        let group = try #require(message.operationAttributes)
        try IPPDecoder().decode(Array(request.prefix(8)) + [0x01, 0x03], into: &message)
        #expect(message.groupCount == 1 && message.operationAttributes?.count == 0)
        #expect(try copy.encoded() == request)
        #expect(group["printer-uri"]?.values == [.uri("ipp://localhost:8632/ipp/print")])
    }

    /// A bad message throws the error `decode(_:)` throws and leaves the message without groups; the next decode works.
    @Test func anErrorLeavesNoGroupsAndTheBufferStillServes() throws {
        let request = Fixtures.bytes(Fixtures.printerAttributesRequest)
        var message = try IPPDecoder().decode(request)
        // A keyword value that is not UTF-8 in the last attribute: the records before it were already rewritten.
        var bad = request
        bad[bad.count - 4] = 0xFF
        let expected = #expect(throws: IPPError.self) { try IPPDecoder().decode(bad) }
        let thrown = #expect(throws: IPPError.self) { try IPPDecoder().decode(bad, into: &message) }
        #expect(thrown == expected)
        #expect(message.groupCount == 0)
        #expect(try message.encoded() == Array(request.prefix(8)) + [0x03])
        try IPPDecoder().decode(request, into: &message)
        #expect(try message.encoded() == request)
    }

    /// A message that needs more room than the buffer has is decoded into a new one; so is one after a limit error.
    @Test func aLargerMessageGetsANewBuffer() throws {
        var message = try IPPDecoder().decode(Fixtures.bytes(Fixtures.printerAttributesRequest))
        let large = Fixtures.bytes(Fixtures.printerAttributesResponse)
        let strict = IPPDecoder(limits: .init(maxAttributes: 3))
        #expect(throws: IPPError.self) { try strict.decode(large, into: &message) }
        #expect(message.groupCount == 0)
        try IPPDecoder().decode(large, into: &message)
        #expect(try message.encoded() == large)
    }
}
