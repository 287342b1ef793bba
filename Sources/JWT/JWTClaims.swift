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
        self = try bytes.withUnsafeBufferPointer { buffer in Result { () throws(JWTError) in try JWTHeader(reading: buffer) } }.get()
    }

    /// The members the header reads; every other name is skipped (its value still strictly parsed).
    private static let members: [StaticString] = ["alg", "typ", "kid", "crit", "jku", "jwk", "x5u", "x5c"]

    /// Reads a header in one pass (``JWTObjectReader``). A member's refusal is thrown once the whole object has
    /// parsed, so malformed JSON anywhere in it is reported first, as the tree parser did.
    init(reading bytes: UnsafeBufferPointer<UInt8>) throws(JWTError) {
        var reader = try JWTObjectReader(bytes, what: "the header", names: Self.members)
        var algorithm: String?
        var refusal: JWTError?
        // alg and typ are compared as bytes when plain (as they always are), without a String each.
        while let member = try reader.next(plainFor: 0b11) {
            guard refusal == nil, let known = member.known else { continue }
            if let plain = member.plain {
                switch known {
                case 0: algorithm = plain.elementsEqual(Self.algorithm.utf8) ? Self.algorithm : String(decoding: plain, as: UTF8.self)
                default:
                    // RFC 7519 §5.1: typ is compared case-insensitively; ASCII folding is enough for "JWT".
                    guard plain.count == 3, plain.elementsEqual("jwt".utf8, by: { $0 | 0x20 == $1 }) else {
                        refusal = JWTError(.unsupportedAlgorithm, "header typ is \(Self.show(member.value)); expected \"JWT\"")
                        continue
                    }
                }
                continue
            }
            let value = member.value
            switch known {
            case 0:
                guard case .string(let text) = value else {
                    refusal = JWTError(.unsupportedAlgorithm, "header alg is \(value.kindName); expected the string \"RS256\"")
                    continue
                }
                algorithm = text
            case 1:
                guard case .string(let text) = value, text.utf8.count == 3,
                    text.utf8.elementsEqual("jwt".utf8, by: { $0 | 0x20 == $1 })
                else {
                    refusal = JWTError(.unsupportedAlgorithm, "header typ is \(Self.show(value)); expected \"JWT\"")
                    continue
                }
            case 2:
                guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= JWTLimits.maxClaimBytes else {
                    refusal = JWTError(
                        .invalidClaim, "header kid is \(Self.show(value)); expected a non-empty string of at most \(JWTLimits.maxClaimBytes) bytes")
                    continue
                }
                keyID = text
            default:
                // crit, jku, jwk, x5u, x5c: each would let the token choose how it is checked; IMS uses only registered
                // certificates.
                refusal = JWTError(
                    .unsupportedAlgorithm, "header parameter \"\(Self.members[known])\" is not supported; expected only alg, typ and kid")
            }
        }
        if let refusal { throw refusal }
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
        self = try bytes.withUnsafeBufferPointer { buffer in Result { () throws(JWTError) in try JWTClaims(reading: buffer) } }.get()
    }

    /// The claims read; every other name is skipped (its value still strictly parsed).
    private static let members: [StaticString] = ["iss", "sub", "jti", "nbf", "exp", "iat"]

    /// Reads claims in one pass (``JWTObjectReader``). A claim's refusal is thrown once the whole object has parsed,
    /// so malformed JSON anywhere in it is reported first, as the tree parser did.
    init(reading bytes: UnsafeBufferPointer<UInt8>) throws(JWTError) {
        var reader = try JWTObjectReader(bytes, what: "the payload", names: Self.members)
        var iss: String?
        var sub: String?
        var jti: String?
        var nbf: Int64?
        var exp: Int64?
        var refusal: JWTError?
        while let member = try reader.next() {
            guard refusal == nil, let known = member.known else { continue }
            do {
                switch known {
                case 0: iss = try Self.string("iss", member.value)
                case 1: sub = try Self.string("sub", member.value)
                case 2: jti = try Self.string("jti", member.value)
                case 3: nbf = try Self.seconds("nbf", member.value)
                case 4: exp = try Self.seconds("exp", member.value)
                default: _ = try Self.seconds("iat", member.value)
                }
            } catch {
                refusal = error
            }
        }
        if let refusal { throw refusal }
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
