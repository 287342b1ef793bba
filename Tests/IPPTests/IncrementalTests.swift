import IPP
import Testing

/// Feeding a decoder chunks as a network server receives them.
@Suite struct IncrementalTests {
    @Test(arguments: [1, 7, 512, 4096])
    func growingPrefixNeedsMoreDataUntilTheEndTag(chunk: Int) throws {
        let message = Fixtures.bytes(Fixtures.printerAttributesResponse)
        let document = Array("document data follows".utf8)
        let stream = message + document
        var received: [UInt8] = []
        var attempts = 0
        var waitUntil = 0
        while received.count < stream.count {
            received += stream[received.count..<min(received.count + chunk, stream.count)]
            // A server only retries once it has what the decoder asked for.
            guard received.count >= waitUntil else { continue }
            attempts += 1
            switch try IPPDecoder().decodePrefix(received) {
            case .needMoreData(let atLeast):
                #expect(atLeast > received.count)
                #expect(received.count < message.count)
                waitUntil = atLeast
            case .complete(let decoded, let documentOffset):
                #expect(documentOffset == message.count)
                #expect(try decoded.encoded() == message)
                #expect(Array(received[documentOffset...]) == Array(document.prefix(received.count - documentOffset)))
                return
            }
        }
        Issue.record("never completed after \(attempts) attempts")
    }

    @Test func rawBufferPrefixCopiesOnlyTheMessage() throws {
        let message = Fixtures.bytes(Fixtures.printerAttributesRequest)
        let stream = message + [0x25, 0x50, 0x44, 0x46]
        let progress = try stream.withUnsafeBytes { buffer in try IPPDecoder().decodePrefix(buffer) }
        guard case .complete(let decoded, let offset) = progress else {
            Issue.record("expected a complete message")
            return
        }
        #expect(offset == message.count)
        #expect(try decoded.encoded() == message)
        let partial = try message.dropLast(10).withUnsafeBytes { buffer in try IPPDecoder().decodePrefix(buffer) }
        guard case .needMoreData(let atLeast) = partial else {
            Issue.record("expected needMoreData")
            return
        }
        #expect(atLeast > message.count - 10)
    }
}
