import Base64URLEncoding

/// An unsigned token: what the IMS SDK hands to the host's `TokenSigner` (`header.payload`, no signature).
public struct JWTPrototype: Equatable, Sendable {
    public var header: JWTHeader
    public var claims: JWTClaims

    public init(header: JWTHeader = JWTHeader(), claims: JWTClaims) {
        self.header = header
        self.claims = claims
    }

    /// `base64url(header).base64url(payload)` — the JWS signing input.
    public var compact: String { Base64URL.encode(header.json) + "." + Base64URL.encode(claims.json) }

    /// Reads a prototype (`header.payload`; a trailing `.` with an empty signature is accepted too).
    /// - throws: ``JWTError`` saying what was wrong.
    public init(compact token: String) throws(JWTError) {
        var token = token
        let parts = try token.withUTF8 { bytes in Result { () throws(JWTError) in try CompactParts(bytes, requireSignature: false) } }.get()
        header = try JWTHeader(json: parts.header)
        claims = try JWTClaims(json: parts.payload)
        guard parts.signature.isEmpty else {
            throw JWTError(.malformed, "the prototype already carries a signature; expected header.payload only")
        }
    }

    /// Signs the prototype, giving the compact JWS `header.payload.signature`.
    public func signed(with key: any RS256Signing) throws(JWTError) -> String {
        var input = compact
        let signature = try input.withUTF8 { bytes in Result { () throws(JWTError) in try key.signature(for: bytes) } }.get()
        return input + "." + Base64URL.encode(signature)
    }
}

/// A parsed compact JWS: its header and claims, and what is needed to check its signature.
///
/// Parsing checks structure, sizes and claim types only; whether to trust it is ``JWTVerifier``'s job.
public struct SignedJWT: Sendable {
    public let header: JWTHeader
    public let claims: JWTClaims
    public let signature: [UInt8]
    /// The token as received.
    public let compact: String
    /// Length of `header.payload` in `compact`'s UTF-8, the bytes the signature covers.
    let signingInputCount: Int

    /// - throws: ``JWTError``: `malformed`, `tooLarge`, `invalidJSON`, `duplicateMember`,
    ///   `unsupportedAlgorithm`, `missingClaim` or `invalidClaim`.
    public init(compact token: String) throws(JWTError) {
        var token = token
        let parts = try token.withUTF8 { bytes in Result { () throws(JWTError) in try CompactParts(bytes, requireSignature: true) } }.get()
        header = try JWTHeader(json: parts.header)
        claims = try JWTClaims(json: parts.payload)
        signature = parts.signature
        signingInputCount = parts.signingInputCount
        compact = token
    }

    /// Whether the signature verifies with `key` over the exact bytes received.
    public func hasValidSignature(_ key: any RS256Verifying) -> Bool {
        var token = compact
        let count = signingInputCount
        return token.withUTF8 { bytes in key.isValidSignature(signature, for: UnsafeBufferPointer(rebasing: bytes[0..<count])) }
    }
}

/// The three base64url parts of a compact JWS, decoded.
struct CompactParts {
    var header: [UInt8]
    var payload: [UInt8]
    var signature: [UInt8]
    var signingInputCount: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, requireSignature: Bool) throws(JWTError) {
        guard bytes.count <= JWTLimits.maxTokenBytes else {
            throw JWTError(.tooLarge, "the token has \(bytes.count) bytes; expected at most \(JWTLimits.maxTokenBytes)")
        }
        var dots = (first: -1, second: -1, count: 0)
        for index in bytes.indices where bytes[index] == UInt8(ascii: ".") {
            switch dots.count {
            case 0: dots.first = index
            case 1: dots.second = index
            default: break
            }
            dots.count += 1
            if dots.count > 2 { break }
        }
        let expected = requireSignature ? "three base64url parts (header.payload.signature)" : "header.payload"
        if requireSignature {
            guard dots.count == 2 else {
                throw JWTError(.malformed, "the token has \(min(dots.count, 3) + 1)\(dots.count > 2 ? " or more" : "") parts; expected \(expected)")
            }
        } else {
            guard dots.count == 1 || (dots.count == 2 && dots.second == bytes.count - 1) else {
                throw JWTError(
                    .malformed, "the prototype has \(min(dots.count, 3) + 1)\(dots.count > 2 ? " or more" : "") parts; expected \(expected)")
            }
        }
        let payloadEnd = dots.count == 2 ? dots.second : bytes.count
        func part(_ range: Range<Int>, _ name: String) throws(JWTError) -> [UInt8] {
            guard !range.isEmpty else { throw JWTError(.malformed, "the \(name) is empty; expected \(expected)") }
            guard let decoded = Base64URL.decode(UnsafeBufferPointer(rebasing: bytes[range])) else {
                throw JWTError(.malformed, "the \(name) is not base64url without padding")
            }
            return decoded
        }
        header = try part(0..<dots.first, "header")
        payload = try part(dots.first + 1..<payloadEnd, "payload")
        signingInputCount = payloadEnd
        if dots.count == 2 && payloadEnd + 1 < bytes.count {
            signature = try part(payloadEnd + 1..<bytes.count, "signature")
        } else if requireSignature {
            throw JWTError(.malformed, "the signature is empty; expected an RS256 signature (unsigned tokens are never accepted)")
        } else {
            signature = []
        }
    }
}
