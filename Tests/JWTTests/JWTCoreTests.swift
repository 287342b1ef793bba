import Crypto
import JWT
import Testing

/// The JWT core on good tokens: canonical encoding, RS256 round trip, base64url strictness.
@Suite struct JWTCoreTests {
    @Test func thePayloadIsEncodedExactlyAsTheOriginalShowsIt() {
        // The original example's prototype, payload part (its header part says HS256 and is not copied).
        let originalPayload =
            "eyJpc3MiOiI2M2Q5YTM4OS00ZGRjLTRkZjEtOGRkMS1hZjZhMTBjNzIyNmUiLCJzdWIiOiIxNCIsImp0aSI6IkJEOTg4QjJFLUIxNkEtNDlCOC04ODgyLTlCM0M5RDM1REQ4NCIsIm5iZiI6MTQ5NzU3NzM4MSwiZXhwIjoxNDk3NTc4MjgxfQ"
        let prototype = JWTPrototype(claims: IMSFixtures.claims)
        #expect(prototype.compact == "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9." + originalPayload)
    }

    @Test func signedTokensVerifyAndSignaturesAreDeterministic() throws {
        let prototype = JWTPrototype(header: JWTHeader(keyID: "k1"), claims: IMSFixtures.claims)
        let token = try prototype.signed(with: IMSFixtures.hostKey)
        #expect(try prototype.signed(with: IMSFixtures.hostKey) == token)
        let jwt = try JWTVerifier().verify(token, now: IMSFixtures.claims.notBefore) { _, _ in IMSFixtures.hostCertificate.publicKey }
        #expect(jwt.claims == IMSFixtures.claims)
        #expect(jwt.header.keyID == "k1")
        #expect(jwt.signature.count == 256)
    }

    @Test func prototypesRoundTrip() throws {
        let prototype = JWTPrototype(claims: IMSFixtures.claims)
        #expect(try JWTPrototype(compact: prototype.compact) == prototype)
        #expect(try JWTPrototype(compact: prototype.compact + ".") == prototype)
    }

    @Test func certificatesAreCheckedAndDescribed() throws {
        let certificate = IMSFixtures.hostCertificate
        #expect(certificate.subject.contains("CN=IMS DriveSync host signing key"))
        #expect(certificate.fingerprint.count == 64)
        #expect(certificate.publicKey.bits == 2048)
        #expect(throws: JWTError.self) { try HostCertificate(pem: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n") }
    }
}
