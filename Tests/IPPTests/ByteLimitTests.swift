import Testing

@testable import IPP

/// A message's bytes are addressed with 32-bit offsets: a group, an attribute or a copied attribute that would take it
/// past 4 GiB is refused, and the encoder says why; nothing traps. A 4 GiB message is too large to make here, so the
/// limit is lowered to the message's own size.
@Suite struct ByteLimitTests {
    static func message() -> IPPMessage {
        IPPMessage.request(.printJob, requestID: 1) { op in op.addRequestingUserName("alice") }
    }

    static func byteCount(_ message: IPPMessage) -> Int { message.box.head.pointee.byteCount }

    @Test func aGroupPastTheLimitIsRefusedAndNoted() throws {
        var message = Self.message()
        let (bytes, groups) = (Self.byteCount(message), message.groupCount)
        #expect(message.appendGroup(.job, byteLimit: bytes) == groups - 1, "the last group stands in for the refused one")
        #expect(message.groupCount == groups && Self.byteCount(message) == bytes, "nothing was added")
        #expect(message.encodingProblem?.message == "a job-attributes-tag group would take the message past 4 GiB")
        #expect(throws: IPPError.self) { try message.encoded() }
        // Below the limit, the same call adds the group.
        var fits = Self.message()
        #expect(fits.appendGroup(.job, byteLimit: bytes + 1) == groups)
        #expect(fits.encodingProblem == nil && fits.groupCount == groups + 1)
    }

    @Test func anAttributeOrACopyPastTheLimitIsRefusedAndNoted() throws {
        let source = Self.message()
        let attribute = try #require(source.operationAttributes?["requesting-user-name"])
        var copy = Self.message()
        let bytes = Self.byteCount(copy)
        copy.appendCopy(of: attribute, toGroup: 0, byteLimit: bytes)
        #expect(Self.byteCount(copy) == bytes)
        #expect(copy.encodingProblem?.message == "attribute \"requesting-user-name\" would take the message past 4 GiB")
        var added = Self.message()
        let value = IPPValue.name("bob")
        let accepted = withUnsafePointer(to: value) {
            added.appendAttribute("x-name", values: UnsafeBufferPointer(start: $0, count: 1), toGroup: 0, byteLimit: bytes)
        }
        #expect(!accepted && added.encodingProblem?.message == "attribute \"x-name\" would take the message past 4 GiB")
        // Up to the limit exactly, the copy is added.
        var free = Self.message()
        free.appendCopy(of: attribute, toGroup: 0)
        let size = Self.byteCount(free) - bytes
        var exact = Self.message()
        exact.appendCopy(of: attribute, toGroup: 0, byteLimit: bytes + size)
        #expect(exact.encodingProblem == nil && Self.byteCount(exact) == bytes + size)
        #expect(exact.operationAttributes?.filter { $0.name == "requesting-user-name" }.count == 2)
    }
}
