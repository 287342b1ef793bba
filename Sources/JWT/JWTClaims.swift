/// The JOSE header of an IMS token: always RS256, type JWT, and optionally the id of the signing key.
public struct JWTHeader: Equatable, Sendable {
    /// The only algorithm IMS accepts.
    public static let algorithm = "RS256"

    /// Id of the host key that signed the token (IMS may hold several certificates per issuer).
    public var keyID: String?

    public init(keyID: String? = nil) { self.keyID = keyID }

    /// Canonical JSON: `{"alg":"RS256","typ":"JWT"}` (plus `"kid"` when set).
    public var json: [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        JSONWriter.appendMember("alg", string: Self.algorithm, to: &out)
        JSONWriter.appendMember("typ", string: "JWT", to: &out)
        if let keyID { JSONWriter.appendMember("kid", string: keyID, to: &out) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Reads a header, refusing every algorithm but RS256.
    public init(json bytes: [UInt8]) throws(JWTError) {
        let members = try StrictJSON.parseObject(bytes, what: "the header")
        var algorithm: String?
        for member in members {
            let (name, value) = (member.name, member.value)
            switch name {
            case "alg":
                guard case .string(let text) = value else {
                    throw JWTError(.unsupportedAlgorithm, "header alg is \(value.kindName); expected the string \"RS256\"")
                }
                algorithm = text
            case "typ":
                // RFC 7519 §5.1: compared case-insensitively; ASCII folding is enough for "JWT".
                guard case .string(let text) = value, text.utf8.count == 3,
                    text.utf8.elementsEqual("jwt".utf8, by: { $0 | 0x20 == $1 })
                else {
                    throw JWTError(.unsupportedAlgorithm, "header typ is \(Self.show(value)); expected \"JWT\"")
                }
            case "kid":
                guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= JWTLimits.maxClaimBytes else {
                    throw JWTError(
                        .invalidClaim, "header kid is \(Self.show(value)); expected a non-empty string of at most \(JWTLimits.maxClaimBytes) bytes")
                }
                keyID = text
            case "crit", "jku", "jwk", "x5u", "x5c":
                // Each of these would let the token choose how it is checked; IMS uses only registered certificates.
                throw JWTError(.unsupportedAlgorithm, "header parameter \"\(name)\" is not supported; expected only alg, typ and kid")
            default:
                continue
            }
        }
        guard let algorithm else { throw JWTError(.unsupportedAlgorithm, "the header has no alg; expected \"alg\":\"RS256\"") }
        guard algorithm == Self.algorithm else {
            let why =
                switch algorithm.lowercased() {
                case "none": "alg none means an unsigned token, which is never accepted"
                case let hmac where hmac.hasPrefix("hs"):
                    "alg \(algorithm) is an HMAC (shared-secret) algorithm, which IMS never accepts: host keys are RSA"
                default: "alg \(algorithm) is not supported"
                }
            throw JWTError(.unsupportedAlgorithm, "\(why); expected RS256")
        }
    }

    private static func show(_ value: JSONValue) -> String {
        if case .string(let text) = value { return "\"\(text)\"" }
        return value.kindName
    }
}

/// The claims of an IMS token (all required): who issued it (the host's API key), for whom (the enrolled
/// user), its unique id, and its validity window in whole seconds since the Unix epoch.
public struct JWTClaims: Equatable, Sendable {
    /// `iss`: the host's API key; IMS finds the host's certificate by it.
    public var issuer: String
    /// `sub`: the enrolled user's id at the host.
    public var subject: String
    /// `jti`: unique per token, so IMS can refuse a replay.
    public var id: String
    /// `nbf`: valid from this second.
    public var notBefore: Int64
    /// `exp`: invalid from this second.
    public var expires: Int64

    public init(issuer: String, subject: String, id: String, notBefore: Int64, expires: Int64) {
        self.issuer = issuer
        self.subject = subject
        self.id = id
        self.notBefore = notBefore
        self.expires = expires
    }

    /// Canonical JSON in the original example's member order: iss, sub, jti, nbf, exp.
    public var json: [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(160)
        JSONWriter.appendMember("iss", string: issuer, to: &out)
        JSONWriter.appendMember("sub", string: subject, to: &out)
        JSONWriter.appendMember("jti", string: id, to: &out)
        JSONWriter.appendMember("nbf", integer: notBefore, to: &out)
        JSONWriter.appendMember("exp", integer: expires, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Reads claims strictly: every required claim present, strings non-empty, timestamps integers.
    /// Other registered claims (`iat`, `aud`) are allowed; `iat`, when present, must be an integer too.
    public init(json bytes: [UInt8]) throws(JWTError) {
        let members = try StrictJSON.parseObject(bytes, what: "the payload")
        var iss: String?
        var sub: String?
        var jti: String?
        var nbf: Int64?
        var exp: Int64?
        for member in members {
            let (name, value) = (member.name, member.value)
            switch name {
            case "iss": iss = try Self.string(name, value)
            case "sub": sub = try Self.string(name, value)
            case "jti": jti = try Self.string(name, value)
            case "nbf": nbf = try Self.seconds(name, value)
            case "exp": exp = try Self.seconds(name, value)
            case "iat": _ = try Self.seconds(name, value)
            default: continue
            }
        }
        guard let iss else { throw Self.missing("iss", "the host API key") }
        guard let sub else { throw Self.missing("sub", "the enrolled user's id") }
        guard let jti else { throw Self.missing("jti", "a unique token id") }
        guard let nbf else { throw Self.missing("nbf", "an integer timestamp (seconds since 1970)") }
        guard let exp else { throw Self.missing("exp", "an integer timestamp (seconds since 1970)") }
        issuer = iss
        subject = sub
        id = jti
        notBefore = nbf
        expires = exp
    }

    private static func missing(_ name: String, _ meaning: String) -> JWTError {
        JWTError(.missingClaim, "the claim \(name) is missing; expected \(meaning)")
    }

    private static func string(_ name: String, _ value: JSONValue) throws(JWTError) -> String {
        guard case .string(let text) = value else {
            throw JWTError(.invalidClaim, "the claim \(name) is \(value.kindName); expected a string")
        }
        guard !text.isEmpty, text.utf8.count <= JWTLimits.maxClaimBytes else {
            throw JWTError(.invalidClaim, "the claim \(name) has \(text.utf8.count) bytes; expected 1…\(JWTLimits.maxClaimBytes)")
        }
        return text
    }

    private static func seconds(_ name: String, _ value: JSONValue) throws(JWTError) -> Int64 {
        guard case .integer(let seconds) = value else {
            throw JWTError(.invalidClaim, "the claim \(name) is \(value.kindName); expected an integer number of seconds since 1970")
        }
        guard seconds >= 0 else { throw JWTError(.invalidClaim, "the claim \(name) is negative (\(seconds)); expected seconds since 1970") }
        return seconds
    }
}

/// Size limits, so a hostile token costs little to refuse.
public enum JWTLimits {
    /// Longest compact token accepted, in bytes (an IMS token is about 600).
    public static let maxTokenBytes = 8192
    /// Longest string claim or key id, in bytes.
    public static let maxClaimBytes = 256
    /// The longest validity window IMS allows: exp − nbf ≤ 15 minutes.
    public static let maxLifetimeSeconds: Int64 = 900
}
