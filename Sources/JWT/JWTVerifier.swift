/// The checks IMS makes on a signed token, in order: structure and sizes, header (RS256 only), claims,
/// the issuer's registered key, the signature, then the validity window against the caller's clock.
///
/// Pure: the caller supplies the time and the key lookup, so the same checks run under simulation, live,
/// and in the benchmark.
public struct JWTVerifier: Sendable {
    /// How far clocks may disagree (seconds) when checking `nbf` and `exp`.
    public var leeway: Int64
    /// The longest `exp − nbf` accepted.
    public var maxLifetime: Int64

    public init(leeway: Int64 = 60, maxLifetime: Int64 = JWTLimits.maxLifetimeSeconds) {
        self.leeway = leeway
        self.maxLifetime = maxLifetime
    }

    /// Verifies `token` at `now` (seconds since 1970 on the verifier's clock).
    ///
    /// - parameters:
    ///   - key: finds the key registered for an issuer and key id; throws `unknownIssuer` / `unknownKeyID`.
    /// - returns: the token, parsed, once every check passed.
    /// - throws: ``JWTError`` naming the first check that failed.
    public func verify(
        _ token: String, now: Int64, key: (_ issuer: String, _ keyID: String?) throws(JWTError) -> any RS256Verifying
    ) throws(JWTError) -> SignedJWT {
        let jwt = try SignedJWT(compact: token)
        let publicKey = try key(jwt.claims.issuer, jwt.header.keyID)
        guard jwt.hasValidSignature(publicKey) else {
            throw JWTError(
                .badSignature,
                "the signature does not verify with the certificate registered for iss \(jwt.claims.issuer); expected a token signed by that host's key, unchanged"
            )
        }
        try checkWindow(jwt.claims, now: now)
        return jwt
    }

    /// The validity-window rules alone (the host back end applies the lifetime rule to prototypes).
    public func checkLifetime(_ claims: JWTClaims) throws(JWTError) {
        let lifetime = claims.expires - claims.notBefore
        guard lifetime > 0 else {
            throw JWTError(
                .lifetimeTooLong, "exp (\(claims.expires)) is not after nbf (\(claims.notBefore)); expected 0 < exp − nbf ≤ \(maxLifetime) s")
        }
        guard lifetime <= maxLifetime else {
            throw JWTError(.lifetimeTooLong, "the token is valid for \(lifetime) s (exp − nbf); expected at most \(maxLifetime) s (15 minutes)")
        }
    }

    /// Lifetime, then `nbf` and `exp` against `now` with the leeway.
    public func checkWindow(_ claims: JWTClaims, now: Int64) throws(JWTError) {
        try checkLifetime(claims)
        guard now + leeway >= claims.notBefore else {
            throw JWTError(
                .notYetValid,
                "the token is not valid until nbf \(claims.notBefore), \(claims.notBefore - now) s after this server's time \(now); expected nbf ≤ now + \(leeway) s (is a clock ahead?)"
            )
        }
        guard now - leeway < claims.expires else {
            throw JWTError(
                .expired,
                "the token expired at exp \(claims.expires), \(now - claims.expires) s before this server's time \(now); expected now < exp + \(leeway) s"
            )
        }
    }
}
