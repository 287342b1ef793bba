import PercentEncoding

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
            throw CredentialProblem(
                .malformedURL, "'\(Self.excerpt(String(command)))' after \(scheme):// is not a command word (letters, digits, '-', '_')")
        }
        var query: [(String, String)] = []
        let queryText = rest.dropFirst(command.count).dropFirst()
        if !queryText.isEmpty {
            for pair in queryText.split(separator: "&", omittingEmptySubsequences: false) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty,
                    let name = Percent.decode(parts[0]), let value = Percent.decode(parts[1])
                else {
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
            text += "?" + query.map { "\(Percent.encode($0.name))=\(Percent.encode($0.value))" }.joined(separator: "&")
        }
        return text
    }

    public static func == (lhs: BusURL, rhs: BusURL) -> Bool { lhs.description == rhs.description }

    /// RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), and bounded.
    public static func isScheme(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCIILetter, text.utf8.count <= CredentialLimits.maxTextBytes else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == "." }
    }

    /// The start of untrusted text for an error message.
    static func excerpt(_ text: String) -> String {
        text.count <= 60 ? text : String(text.prefix(60)) + "…"
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
