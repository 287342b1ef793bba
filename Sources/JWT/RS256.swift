/// RSASSA-PKCS1-v1_5 with SHA-256 signing, as the JWT core needs it. A small protocol so the crypto
/// back end is replaceable (the benchmark compares two behind it).
public protocol RS256Signing: Sendable {
    /// The signature over `signingInput` (the ASCII bytes `header.payload`).
    func signature(for signingInput: UnsafeBufferPointer<UInt8>) throws(JWTError) -> [UInt8]
    /// The library that computes the signature (`openssl-evp`, `swift-crypto`), as benchmarks name it.
    var backEnd: String { get }
}

/// RS256 verification with one public key.
public protocol RS256Verifying: Sendable {
    /// Whether `signature` is a valid RS256 signature of `signingInput` by this key.
    func isValidSignature(_ signature: [UInt8], for signingInput: UnsafeBufferPointer<UInt8>) -> Bool
    /// The library that checks the signature (`openssl-evp`, `swift-crypto`), as benchmarks name it.
    var backEnd: String { get }
}
