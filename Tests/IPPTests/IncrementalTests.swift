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

    /// The frame scanner a server runs on every chunk finds the same end as the decoder, on every captured
    /// message, whatever the chunk size, and walks each byte once (so a trickled request costs O(n)).
    @Test(arguments: [1, 3, 64, 100_000])
    func frameScannerFindsTheDecodersEndWalkingEachByteOnce(chunk: Int) throws {
        for name in Fixtures.names {
            let message = Fixtures.bytes(name)
            guard case .complete(_, let end) = try IPPDecoder().decodePrefix(message) else {
                Issue.record("\(name) does not decode")
                continue
            }
            var scanner = IPPFrameScanner()
            var received: [UInt8] = []
            var found: Int?
            var walked = scanner.scanned
            while found == nil, received.count < message.count {
                received += message[received.count..<min(received.count + chunk, message.count)]
                if case .complete(let offset) = scanner.scan(received) { found = offset }
                #expect(scanner.scanned >= walked, "the scanner never goes back")
                walked = scanner.scanned
            }
            #expect(found == end, "\(name)")
        }
    }

    @Test func frameScannerWaitsOnAValueThatIsStillArriving() {
        var scanner = IPPFrameScanner()
        let header: [UInt8] = [2, 0, 0, 11, 0, 0, 0, 1, 0x01]
        let attribute: [UInt8] = [0x47, 0, 2, 0x61, 0x62, 0, 5, 0x75, 0x74, 0x66]  // value cut after 3 of 5 bytes
        #expect(scanner.scan(header + attribute) == .needMoreData)
        #expect(scanner.scanned == 9)
        #expect(scanner.scan(header + attribute + [0x2D, 0x38, 0x03]) == .complete(documentOffset: 22))
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
