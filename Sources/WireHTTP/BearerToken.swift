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
