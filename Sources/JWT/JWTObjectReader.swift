/// Reads a JWT header or claims object in one pass: each member as it comes, its name matched against the few the
/// caller knows, without building the object (a member array, a `String` per name) first.
///
/// The rules and messages are ``StrictJSON``'s, byte for byte: the same parser reads every name and value, so what
/// the tree parser refuses this refuses with the same error, at the same byte. Duplicates are still found by string
/// equality, as the tree parser compares names: a name that is plain ASCII is compared byte for byte (for ASCII that
/// is what `String ==` does), any other name (escaped, non-ASCII) as a `String`.
struct JWTObjectReader {
    /// One member: which known name it has (an index into the names given), or nil for any other, and its value.
    struct Member {
        let known: Int?
        /// The value, unless it is ``plain``.
        let parsed: JSONValue
        /// A string value of printable ASCII without escapes, as its bytes, when the caller asked for it so (then
        /// ``parsed`` is unused): checking "RS256" or "JWT" needs no `String`.
        let plain: UnsafeBufferPointer<UInt8>?

        /// The value as the tree parser would give it.
        var value: JSONValue { plain.map { .string(String(decoding: $0, as: UTF8.self)) } ?? parsed }
    }

    private var parser: StrictJSON.Parser
    private let names: [StaticString]
    /// Known names met so far, one bit each.
    private var seen: UInt64 = 0
    /// Other names met so far (tokens rarely have any).
    private var others: [String] = []
    private var finished = false

    /// Opens the object.
    /// - parameters:
    ///   - names: the member names the caller reads (at most 64), ASCII.
    ///   - what: the part named in messages ("the header").
    init(_ bytes: UnsafeBufferPointer<UInt8>, what: String, names: [StaticString]) throws(JWTError) {
        parser = StrictJSON.Parser(bytes: bytes, what: what)
        self.names = names
        parser.skipSpace()
        guard parser.peek == UInt8(ascii: "{") else { throw parser.error("expected a JSON object starting with '{'") }
        parser.index += 1
        parser.skipSpace()
        if parser.peek == UInt8(ascii: "}") {
            parser.index += 1
            try finish()
        }
    }

    /// The next member, or nil once the object has ended with nothing after it.
    /// - parameters:
    ///   - plainFor: known names (one bit each, by index) whose plain string values are wanted as bytes.
    mutating func next(plainFor: UInt64 = 0) throws(JWTError) -> Member? {
        guard !finished else { return nil }
        parser.skipSpace()
        guard parser.peek == UInt8(ascii: "\"") else { throw parser.error("expected a member name in double quotes") }
        let known: Int?
        let start = parser.index + 1
        if let end = parser.plainASCIIStringEnd() {
            let name = UnsafeBufferPointer(rebasing: parser.bytes[start..<end])
            known = names.firstIndex { Self.equal($0, name) }
            parser.index = end + 1
            try admit(known: known, other: known == nil ? String(decoding: name, as: UTF8.self) : nil)
        } else {
            let name = try parser.string()
            known = names.indices.first { knownName($0) == name }
            try admit(known: known, other: known == nil ? name : nil)
        }
        var plain: UnsafeBufferPointer<UInt8>?
        if let known, plainFor & 1 << UInt64(known) != 0 {
            parser.skipSpace()
            if parser.peek == UInt8(ascii: "\""), let end = parser.plainASCIIStringEnd() {
                plain = UnsafeBufferPointer(rebasing: parser.bytes[parser.index + 1..<end])
                parser.index = end + 1
            }
        }
        let value = plain == nil ? try parser.value(depth: 1) : .null
        parser.skipSpace()
        if parser.peek == UInt8(ascii: ",") {
            parser.index += 1
        } else if parser.peek == UInt8(ascii: "}") {
            parser.index += 1
            try finish()
        } else {
            throw parser.error("expected ',' or '}' in an object")
        }
        return Member(known: known, parsed: value, plain: plain)
    }

    /// Refuses a name met before, then reads the ':' after it. Messages are made only when refusing: an
    /// interpolated message per member would cost more than reading the member.
    private mutating func admit(known: Int?, other: String?) throws(JWTError) {
        if let known {
            let bit: UInt64 = 1 << UInt64(known)
            if seen & bit != 0 { throw duplicate(knownName(known)) }
            seen |= bit
        } else if let other {
            if others.contains(other) { throw duplicate(other) }
            others.append(other)
        }
        parser.skipSpace()
        guard parser.peek == UInt8(ascii: ":") else {
            throw parser.error("expected ':' after the member name \"\(known.map(knownName) ?? other ?? "")\"")
        }
        parser.index += 1
    }

    private func knownName(_ index: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: names[index].utf8Start, count: names[index].utf8CodeUnitCount), as: UTF8.self)
    }

    private func duplicate(_ name: String) -> JWTError {
        JWTError(.duplicateMember, "\(parser.what) has the member \"\(name)\" twice; expected each name once")
    }

    private mutating func finish() throws(JWTError) {
        finished = true
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected data after the JSON object") }
    }

    private static func equal(_ known: StaticString, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard known.utf8CodeUnitCount == name.count else { return false }
        for index in 0..<name.count where known.utf8Start[index] != name[index] { return false }
        return true
    }
}

extension StrictJSON.Parser {
    /// With `index` at a string's opening quote: the index of its closing quote when everything between is printable
    /// ASCII without escapes (a name read as its bytes), or nil (the string is read by ``string()``, with its errors).
    func plainASCIIStringEnd() -> Int? {
        var end = index + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { return end }
            if byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\\") { return nil }
            end += 1
        }
        return nil
    }
}
