/// A URL of the AppConnect conversation on the bus: `scheme://command?name=value&…`.
///
/// Only this shape is accepted (no user, port, path or fragment), values are percent-encoded, and the
/// length is bounded before anything is parsed: the bus carries URLs from any app on the phone.
public struct BusURL: Sendable, Equatable, CustomStringConvertible {
    public let scheme: String
    /// The URL's host, which the conversation uses as the command (`new`, `credential`, `state`…).
    public let command: String
    public let query: [(name: String, value: String)]

    public init(scheme: String, command: String, query: [(name: String, value: String)] = []) {
        self.scheme = scheme.lowercased()
        self.command = command
        self.query = query
    }

    /// Parses `text`.
    ///
    /// - throws: ``CredentialProblem`` `oversized` over ``CredentialLimits/maxURLBytes``, `malformed-url`
    ///   for anything but `scheme://command[?query]` with a valid scheme and percent-encoding.
    public init(parsing text: String) throws(CredentialProblem) {
        guard text.utf8.count <= CredentialLimits.maxURLBytes else {
            throw CredentialProblem(.oversized, "URL of \(text.utf8.count) bytes; at most \(CredentialLimits.maxURLBytes) are accepted")
        }
        guard let separator = text.range(of: "://") else {
            throw CredentialProblem(.malformedURL, "'\(Self.excerpt(text))' has no 'scheme://'")
        }
        let scheme = String(text[..<separator.lowerBound])
        guard Self.isScheme(scheme) else {
            throw CredentialProblem(.malformedURL, "'\(Self.excerpt(scheme))' is not a URL scheme (a letter, then letters, digits, '+', '-', '.')")
        }
        let rest = text[separator.upperBound...]
        let command = rest.prefix { $0 != "?" }
        guard command.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw CredentialProblem(.malformedURL, "'\(Self.excerpt(String(command)))' after \(scheme):// is not a command word (letters, digits, '-', '_')")
        }
        var query: [(String, String)] = []
        let queryText = rest.dropFirst(command.count).dropFirst()
        if !queryText.isEmpty {
            for pair in queryText.split(separator: "&", omittingEmptySubsequences: false) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty,
                      let name = Self.percentDecoded(parts[0]), let value = Self.percentDecoded(parts[1]) else {
                    throw CredentialProblem(.malformedURL, "query item '\(Self.excerpt(String(pair)))' is not name=value with valid %-escapes")
                }
                query.append((name, value))
            }
        }
        self.init(scheme: scheme, command: String(command), query: query)
    }

    /// The value of the first query item called `name`.
    public func value(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The value of `name`, or a `malformed-url` problem naming it.
    public func required(_ name: String) throws(CredentialProblem) -> String {
        guard let value = value(name) else {
            throw CredentialProblem(.malformedURL, "\(scheme)://\(command) lacks the query item '\(name)'")
        }
        return value
    }

    public var description: String {
        var text = "\(scheme)://\(command)"
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.percentEncoded($0.name))=\(Self.percentEncoded($0.value))" }.joined(separator: "&")
        }
        return text
    }

    public static func == (lhs: BusURL, rhs: BusURL) -> Bool { lhs.description == rhs.description }

    /// RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), and bounded.
    public static func isScheme(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCIILetter, text.utf8.count <= CredentialLimits.maxTextBytes else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == "." }
    }

    private static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if scalar.isASCIILetter || ("0"..."9").contains(scalar) || "-._~".unicodeScalars.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var rest = Array(text.utf8)[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%") {
                // Two hex digits exactly: UInt8(_:radix:) alone would also take a sign ("%+a" as 0x0A), a reading no
                // other URL parser shares.
                guard rest.count >= 2, let high = hexValue(rest[rest.startIndex]), let low = hexValue(rest[rest.startIndex + 1]) else { return nil }
                bytes.append(high << 4 | low)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The start of untrusted text for an error message.
    static func excerpt(_ text: String) -> String {
        text.count <= 60 ? text : String(text.prefix(60)) + "…"
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
