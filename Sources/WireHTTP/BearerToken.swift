/// The token of an `Authorization: Bearer <token>` header (RFC 6750), or why the header is unusable.
public enum BearerToken {
    /// Why a request's bearer token is unusable; `description` says what was expected.
    public struct Problem: Error, CustomStringConvertible, Sendable, Equatable {
        public let description: String
    }

    public static func parse(_ header: String?) -> Result<String, Problem> {
        guard let header, !header.isEmpty else {
            return .failure(Problem(description: "the Authorization header is missing; expected 'Authorization: Bearer <token>'"))
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return .failure(Problem(description: "the Authorization scheme is '\(parts[0])'; expected 'Authorization: Bearer <token>'"))
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { return .failure(Problem(description: "the bearer token is empty; expected 'Authorization: Bearer <token>'")) }
        return .success(token)
    }
}

/// Compares a presented secret (a bearer token, a proxy's shared secret) with the expected one in time that
/// depends only on their lengths, so a client timing the answers cannot learn the secret byte by byte.
public func secretsMatch(_ presented: String, _ expected: String) -> Bool {
    let a = Array(presented.utf8)
    let b = Array(expected.utf8)
    var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
    for index in 0..<max(a.count, b.count) {
        difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
    }
    return difference == 0
}
