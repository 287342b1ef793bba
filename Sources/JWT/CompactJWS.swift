import Base64URLEncoding
import Foundation

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
        header = parts.header
        claims = parts.claims
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
    public var header: JWTHeader { parts.header }
    public var claims: JWTClaims { parts.claims }
    public var signature: [UInt8] { parts.signature }
    /// The token as received.
    public let compact: String
    /// Kept whole rather than copied out field by field: each copy of the claims retains and releases their strings,
    /// which the parse profile showed.
    private let parts: CompactParts
    /// Length of `header.payload` in `compact`'s UTF-8, the bytes the signature covers.
    var signingInputCount: Int { parts.signingInputCount }

    /// - throws: ``JWTError``: `malformed`, `tooLarge`, `invalidJSON`, `duplicateMember`,
    ///   `unsupportedAlgorithm`, `missingClaim` or `invalidClaim`.
    public init(compact token: String) throws(JWTError) {
        var token = token
        parts = try token.withUTF8 { bytes in Result { () throws(JWTError) in try CompactParts(bytes, requireSignature: true) } }.get()
        compact = token
    }

    /// Whether the signature verifies with `key` over the exact bytes received.
    public func hasValidSignature(_ key: any RS256Verifying) -> Bool {
        var token = compact
        let count = signingInputCount
        return token.withUTF8 { bytes in key.isValidSignature(parts.signature, for: UnsafeBufferPointer(rebasing: bytes[0..<count])) }
    }
}

/// The three base64url parts of a compact JWS: the header and claims read, the signature decoded.
///
/// Every part's base64url is checked before any JSON is read (a token with a bad signature part is `malformed`,
/// whatever its claims). The header and payload are decoded onto the stack and read from there in one pass each: a
/// token's JSON never lives on the heap, only the values kept.
struct CompactParts {
    var header: JWTHeader
    var claims: JWTClaims
    var signature: [UInt8]
    var signingInputCount: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, requireSignature: Bool) throws(JWTError) {
        guard bytes.count <= JWTLimits.maxTokenBytes else {
            throw JWTError(.tooLarge, "the token has \(bytes.count) bytes; expected at most \(JWTLimits.maxTokenBytes)")
        }
        // memchr finds the dots many bytes at a time; a byte loop over the ~600 bytes of a token cost more than
        // decoding it (bench jwt's parse profile).
        var dots = (first: -1, second: -1, count: 0)
        if let base = bytes.baseAddress {
            var from = 0
            while dots.count < 3, from < bytes.count, let found = memchr(base + from, Int32(UInt8(ascii: ".")), bytes.count - from) {
                let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if dots.count == 0 { dots.first = index } else if dots.count == 1 { dots.second = index }
                dots.count += 1
                from = index + 1
            }
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
        let headerText = UnsafeBufferPointer(rebasing: bytes[0..<dots.first])
        let payloadText = UnsafeBufferPointer(rebasing: bytes[dots.first + 1..<payloadEnd])
        self = try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: (headerText.count + payloadText.count) * 3 / 4 + 2) {
            (buffer) throws(JWTError) -> CompactParts in
            let headerSpace = UnsafeMutableBufferPointer(rebasing: buffer[0..<headerText.count * 3 / 4])
            let payloadSpace = UnsafeMutableBufferPointer(rebasing: buffer[headerSpace.count...])
            let header = try Self.decode(headerText, into: headerSpace, "header", expected)
            let payload = try Self.decode(payloadText, into: payloadSpace, "payload", expected)
            let signature: [UInt8]
            if dots.count == 2 && payloadEnd + 1 < bytes.count {
                let text = UnsafeBufferPointer(rebasing: bytes[(payloadEnd + 1)...])
                guard let decoded = Base64URL.decode(text) else { throw JWTError(.malformed, "the signature is not base64url without padding") }
                signature = decoded
            } else if requireSignature {
                throw JWTError(.malformed, "the signature is empty; expected an RS256 signature (unsigned tokens are never accepted)")
            } else {
                signature = []
            }
            return CompactParts(
                header: try JWTHeader(reading: header), claims: try JWTClaims(reading: payload), signature: signature,
                signingInputCount: payloadEnd)
        }
    }

    private init(header: JWTHeader, claims: JWTClaims, signature: [UInt8], signingInputCount: Int) {
        self.header = header
        self.claims = claims
        self.signature = signature
        self.signingInputCount = signingInputCount
    }

    /// One part decoded into `space`: the bytes written.
    private static func decode(
        _ text: UnsafeBufferPointer<UInt8>, into space: UnsafeMutableBufferPointer<UInt8>, _ name: String, _ expected: String
    ) throws(JWTError) -> UnsafeBufferPointer<UInt8> {
        guard !text.isEmpty else { throw JWTError(.malformed, "the \(name) is empty; expected \(expected)") }
        guard let count = Base64URL.decode(text, into: space) else { throw JWTError(.malformed, "the \(name) is not base64url without padding") }
        return UnsafeBufferPointer(rebasing: UnsafeBufferPointer(space)[0..<count])
    }
}
