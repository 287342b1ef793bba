/// The expected use of one certificate of a derived credential (`ACDerivedCredentialTag…`).
///
/// The Ivanti client uses the tag to decide which certificate to deliver to which AppConnect app, so each tag
/// may appear at most once in a credential.
public enum CredentialTag: String, Sendable, CaseIterable, Comparable {
    case authentication = "Authentication"
    case signing = "Signing"
    case encryption = "Encryption"
    case escrow = "Escrow"

    /// Accepts the header constant's value (`Authentication`) or the lower-case word scenarios use.
    public init?(word: String) {
        guard let tag = Self.allCases.first(where: { $0.rawValue == word || $0.rawValue.lowercased() == word }) else { return nil }
        self = tag
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The keys of the credential payload (`ACDerivedCredentialPayloadKey…`), used as-is in the sealed JSON.
public enum PayloadKey {
    public static let tag = "Tag"
    public static let certificate = "Cert"
    public static let privateKey = "PrivateKey"
    public static let credentialArray = "CredentialArray"
}
