import Base64URLEncoding
import Crypto
import Foundation
import JWT
import Testing

/// Hostile tokens: each is refused with an error that names the problem.
@Suite struct HostileTokenTests {
    let now = IMSFixtures.claims.notBefore + 10
    let verifier = JWTVerifier()

    func verify(_ token: String, at time: Int64? = nil) throws(JWTError) -> SignedJWT {
        try verifier.verify(token, now: time ?? now) { _, _ in IMSFixtures.hostCertificate.publicKey }
    }

    func expectRefusal(_ token: String, at time: Int64? = nil, _ code: JWTError.Code, mentioning text: String) {
        do {
            _ = try verify(token, at: time)
            Issue.record("accepted a token that should be refused (\(code))")
        } catch {
            #expect(error.code == code)
            #expect(error.message.contains(text), "message: \(error.message)")
        }
    }

    func encode(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }

    /// A token with the given header and payload JSON, signed by the host key (so only the content is wrong).
    func signed(header: String = #"{"alg":"RS256","typ":"JWT"}"#, payload: String) throws -> String {
        var input = encode(header) + "." + encode(payload)
        let signature = try input.withUTF8 { bytes in try IMSFixtures.hostKey.signature(for: bytes) }
        return input + "." + Base64URL.encode(signature)
    }

    var goodToken: String { get throws { try JWTPrototype(claims: IMSFixtures.claims).signed(with: IMSFixtures.hostKey) } }
    let payload = #"{"iss":"63d9a389-4ddc-4df1-8dd1-af6a10c7226e","sub":"14","jti":"j1","nbf":1497577381,"exp":1497578281}"#

    @Test func algNoneIsRefused() {
        expectRefusal(
            encode(#"{"alg":"none","typ":"JWT"}"#) + "." + encode(payload) + ".", .malformed, mentioning: "unsigned tokens are never accepted")
        expectRefusal(encode(#"{"alg":"none","typ":"JWT"}"#) + "." + encode(payload) + ".c2ln", .unsupportedAlgorithm, mentioning: "alg none")
    }

    @Test func hs256WithThePublicKeyAsSecretIsRefused() {
        // The classic key-confusion forgery: HMAC keyed with the verifier's public key PEM.
        let input = encode(#"{"alg":"HS256","typ":"JWT"}"#) + "." + encode(payload)
        let secret = SymmetricKey(data: Array(IMSFixtures.hostCertificate.publicKey.pem.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: secret)
        expectRefusal(input + "." + Base64URL.encode(Array(mac)), .unsupportedAlgorithm, mentioning: "HMAC")
    }

    @Test func expiredAndNotYetValidTokensAreRefused() throws {
        let claims = IMSFixtures.claims
        expectRefusal(try goodToken, at: claims.expires + 61, .expired, mentioning: "expired at exp \(claims.expires)")
        expectRefusal(try goodToken, at: claims.notBefore - 61, .notYetValid, mentioning: "not valid until nbf \(claims.notBefore)")
        // Within the 60 s leeway both ways.
        #expect(throws: Never.self) { try verify(try goodToken, at: claims.expires + 59) }
        #expect(throws: Never.self) { try verify(try goodToken, at: claims.notBefore - 60) }
    }

    @Test func aWindowOf901SecondsIsRefusedAnd900Accepted() throws {
        var claims = IMSFixtures.claims
        claims.expires = claims.notBefore + 901
        expectRefusal(try JWTPrototype(claims: claims).signed(with: IMSFixtures.hostKey), .lifetimeTooLong, mentioning: "valid for 901 s")
        claims.expires = claims.notBefore + 900
        #expect(throws: Never.self) { try verify(try JWTPrototype(claims: claims).signed(with: IMSFixtures.hostKey)) }
        claims.expires = claims.notBefore
        expectRefusal(try JWTPrototype(claims: claims).signed(with: IMSFixtures.hostKey), .lifetimeTooLong, mentioning: "not after nbf")
    }

    @Test func aTamperedPayloadIsRefused() throws {
        let parts = try goodToken.split(separator: ".").map(String.init)
        let otherUser = encode(payload.replacingOccurrences(of: #""sub":"14""#, with: #""sub":"15""#))
        expectRefusal(parts[0] + "." + otherUser + "." + parts[2], .badSignature, mentioning: "does not verify")
    }

    @Test func aTamperedSignatureIsRefused() throws {
        let token = try goodToken
        var signature = Base64URL.decode(String(token.split(separator: ".")[2]))!
        signature[100] ^= 0x01
        let tampered = token.split(separator: ".").prefix(2).joined(separator: ".") + "." + Base64URL.encode(signature)
        expectRefusal(tampered, .badSignature, mentioning: "does not verify")
        // Signed by another key entirely.
        expectRefusal(try JWTPrototype(claims: IMSFixtures.claims).signed(with: IMSFixtures.otherKey), .badSignature, mentioning: "does not verify")
    }

    @Test func truncatedAndOversizedTokensAreRefused() throws {
        let token = try goodToken
        expectRefusal(String(token.prefix(token.count - 10)), .badSignature, mentioning: "does not verify")
        expectRefusal(token.split(separator: ".").prefix(2).joined(separator: "."), .malformed, mentioning: "expected three base64url parts")
        expectRefusal(String(token.prefix(20)), .malformed, mentioning: "parts")
        expectRefusal("", .malformed, mentioning: "parts")
        expectRefusal(token + "." + token, .malformed, mentioning: "or more parts")
        expectRefusal(String(repeating: "a", count: 9000), .tooLarge, mentioning: "expected at most 8192")
        expectRefusal(encode(#"{"alg":"RS256"}"#) + "." + encode(payload) + ".a*b", .malformed, mentioning: "not base64url")
    }

    @Test func nonIntegerTimestampsAreRefused() throws {
        for (value, shown) in [
            ("1497577381.0", "nbf is the non-integer number 1497577381.0"), ("1.497577381e9", "nbf is the non-integer number"),
            (#""1497577381""#, "nbf is a string"), ("null", "nbf is null"), ("-5", "nbf is negative"),
        ] {
            let token = try signed(payload: payload.replacingOccurrences(of: "1497577381", with: value))
            expectRefusal(token, .invalidClaim, mentioning: shown)
        }
    }

    @Test func missingClaimsAreNamed() throws {
        let token = try signed(payload: #"{"iss":"63d9a389-4ddc-4df1-8dd1-af6a10c7226e","sub":"14","nbf":1497577381,"exp":1497578281}"#)
        expectRefusal(token, .missingClaim, mentioning: "jti is missing")
    }

    @Test func duplicateJSONMembersAreRefused() throws {
        let twice = payload.replacingOccurrences(of: #""sub":"14","#, with: #""sub":"14","sub":"15","#)
        expectRefusal(try signed(payload: twice), .duplicateMember, mentioning: #"the member "sub" twice"#)
        expectRefusal(try signed(header: #"{"alg":"RS256","alg":"none"}"#, payload: payload), .duplicateMember, mentioning: #""alg" twice"#)
    }

    @Test func malformedJSONIsRefusedWithItsPosition() throws {
        expectRefusal(try signed(payload: #"{"iss":"x",}"#), .invalidJSON, mentioning: "expected a member name")
        expectRefusal(try signed(payload: payload + " {}"), .invalidJSON, mentioning: "unexpected data after")
        expectRefusal(try signed(payload: "[1]"), .invalidJSON, mentioning: "expected a JSON object")
        expectRefusal(try signed(header: #"{"alg":"RS256","crit":["exp"]}"#, payload: payload), .unsupportedAlgorithm, mentioning: "crit")
    }
}
