import Base64URLEncoding
import TestSupport
import Testing

@testable import JWT

/// The one-pass header and claims readers against the tree readers they replaced (kept below as the reference):
/// on every input, the same values or the same error, code and message, byte position included.
@Suite struct OnePassReaderTests {
    static let headers = [
        #"{"alg":"RS256","typ":"JWT","kid":"host-1"}"#, #"{"alg":"RS256"}"#, #"{"typ":"jwt","alg":"RS256"}"#,
        #" { "alg" : "RS256" , "x-extra" : [1, {"a": [true, null, -0.5e3]}] } "#, #"{"\u0061lg":"RS256","k\u00e9":"\ud83d\ude00"}"#,
    ]
    static let payloads = [
        #"{"iss":"63d9a389-4ddc-4df1-8dd1-af6a10c7226e","sub":"14","jti":"j1","nbf":1497577381,"exp":1497578281}"#,
        #"{"sub":"14","iat":1497577381,"aud":["a","b"],"exp":1497578281,"nbf":1497577381,"jti":"x","iss":"i"}"#,
        #"{"iss":"\u0069","sub":"é","jti":"\"q\"","nbf":0,"exp":9223372036854775807,"Kelvin":1}"#,
    ]
    /// Bytes the mutations insert: JSON's punctuation, escapes, digits, letters of the known names, a multi-byte
    /// character, the Kelvin sign (canonically equal to "K"), a control character.
    static let pieces = [
        "{", "}", "[", "]", ":", ",", "\"", "\\", "\\u0069", "\\ud800", " ", "0", "1", "-", ".", "e", "+", "true", "null",
        "\"iss\":\"x\",", "\"alg\":\"none\",", "\"crit\":[],", "\"K\":0,", "\"\u{212A}\":0,", "é", "\u{7}", "\"nbf\":1.5,", "a", "s",
    ]

    @Test func headersReadAsTheTreeReaderReadThem() {
        var random = SplitMix64(seed: 31)
        for input in Self.mutations(of: Self.headers, count: 6000, &random) {
            #expect(Self.outcome { try JWTHeader(json: input) } == Self.outcome { try TreeReference.header(input) }, "\(Self.show(input))")
        }
    }

    @Test func claimsReadAsTheTreeReaderReadThem() {
        var random = SplitMix64(seed: 32)
        for input in Self.mutations(of: Self.payloads, count: 8000, &random) {
            #expect(Self.outcome { try JWTClaims(json: input) } == Self.outcome { try TreeReference.claims(input) }, "\(Self.show(input))")
        }
    }

    /// Whole tokens: every part's base64url is checked before any JSON, as before.
    @Test func aBadSignaturePartIsReportedBeforeBadJSON() {
        let token = Base64URL.encode(Array("{".utf8)) + "." + Base64URL.encode(Array(Self.payloads[0].utf8)) + ".a*b"
        #expect(
            Self.outcome { try SignedJWT(compact: token).claims } == .refused(JWTError(.malformed, "the signature is not base64url without padding")))
        let prototype = Base64URL.encode(Array(Self.headers[0].utf8)) + "." + Base64URL.encode(Array("{\"iss\":1,".utf8))
        #expect(
            Self.outcome { try JWTPrototype(compact: prototype).claims }
                == .refused(JWTError(.invalidJSON, "the payload is not valid JSON at byte 9: expected a member name in double quotes")))
    }

    /// A few mutations are counted, so a generator that stopped producing refusals (or acceptances) fails too.
    @Test func theMutationsReachBothOutcomes() {
        var random = SplitMix64(seed: 32)
        let outcomes = Self.mutations(of: Self.payloads, count: 2000, &random).map { input in Self.outcome { try JWTClaims(json: input) } }
        let accepted = outcomes.filter { if case .read = $0 { true } else { false } }.count
        #expect(accepted > 50 && accepted < 1950)
        let codes = Set(outcomes.compactMap { if case .refused(let error) = $0 { error.code } else { nil } })
        #expect(codes.isSuperset(of: [.invalidJSON, .duplicateMember, .invalidClaim, .missingClaim]))
    }

    enum Outcome<Value: Equatable>: Equatable {
        case read(Value)
        case refused(JWTError)
    }

    static func outcome<Value: Equatable>(_ body: () throws -> Value) -> Outcome<Value> {
        do {
            return .read(try body())
        } catch let error as JWTError {
            return .refused(error)
        } catch {
            return .refused(JWTError(.key, "not a JWTError: \(error)"))
        }
    }

    static func show(_ input: [UInt8]) -> String { String(decoding: input, as: UTF8.self).debugDescription }

    /// `count` inputs: each a base document with one to three edits (a byte deleted, a piece inserted, a span
    /// duplicated), so most stay close to valid and reach the member rules.
    static func mutations(of documents: [String], count: Int, _ random: inout SplitMix64) -> [[UInt8]] {
        (0..<count).map { index in
            var bytes = Array(documents[index % documents.count].utf8)
            if index < documents.count { return bytes }
            for _ in 0...random.below(3) {
                let at = random.below(bytes.count + 1)
                switch random.below(3) {
                case 0 where !bytes.isEmpty: bytes.remove(at: min(at, bytes.count - 1))
                case 1 where at < bytes.count:
                    let end = min(bytes.count, at + 1 + random.below(24))
                    bytes.insert(contentsOf: bytes[at..<end], at: at)
                default: bytes.insert(contentsOf: Array(pieces[random.below(pieces.count)].utf8), at: at)
                }
            }
            return bytes
        }
    }
}

/// The header and claims readers as they were before the one-pass reader: StrictJSON's tree, then the members in
/// order. The reference the new readers must agree with.
enum TreeReference {
    static func header(_ bytes: [UInt8]) throws(JWTError) -> JWTHeader {
        let members = try StrictJSON.parseObject(bytes, what: "the header")
        var header = JWTHeader()
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
                guard case .string(let text) = value, text.utf8.count == 3, text.utf8.elementsEqual("jwt".utf8, by: { $0 | 0x20 == $1 }) else {
                    throw JWTError(.unsupportedAlgorithm, "header typ is \(show(value)); expected \"JWT\"")
                }
            case "kid":
                guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= JWTLimits.maxClaimBytes else {
                    throw JWTError(
                        .invalidClaim, "header kid is \(show(value)); expected a non-empty string of at most \(JWTLimits.maxClaimBytes) bytes")
                }
                header.keyID = text
            case "crit", "jku", "jwk", "x5u", "x5c":
                throw JWTError(.unsupportedAlgorithm, "header parameter \"\(name)\" is not supported; expected only alg, typ and kid")
            default:
                continue
            }
        }
        guard let algorithm else { throw JWTError(.unsupportedAlgorithm, "the header has no alg; expected \"alg\":\"RS256\"") }
        guard algorithm == JWTHeader.algorithm else {
            let why =
                switch algorithm.lowercased() {
                case "none": "alg none means an unsigned token, which is never accepted"
                case let hmac where hmac.hasPrefix("hs"):
                    "alg \(algorithm) is an HMAC (shared-secret) algorithm, which IMS never accepts: host keys are RSA"
                default: "alg \(algorithm) is not supported"
                }
            throw JWTError(.unsupportedAlgorithm, "\(why); expected RS256")
        }
        return header
    }

    static func claims(_ bytes: [UInt8]) throws(JWTError) -> JWTClaims {
        let members = try StrictJSON.parseObject(bytes, what: "the payload")
        var iss: String?
        var sub: String?
        var jti: String?
        var nbf: Int64?
        var exp: Int64?
        for member in members {
            let (name, value) = (member.name, member.value)
            switch name {
            case "iss": iss = try string(name, value)
            case "sub": sub = try string(name, value)
            case "jti": jti = try string(name, value)
            case "nbf": nbf = try seconds(name, value)
            case "exp": exp = try seconds(name, value)
            case "iat": _ = try seconds(name, value)
            default: continue
            }
        }
        func missing(_ name: String, _ meaning: String) -> JWTError { JWTError(.missingClaim, "the claim \(name) is missing; expected \(meaning)") }
        guard let iss else { throw missing("iss", "the host API key") }
        guard let sub else { throw missing("sub", "the enrolled user's id") }
        guard let jti else { throw missing("jti", "a unique token id") }
        guard let nbf else { throw missing("nbf", "an integer timestamp (seconds since 1970)") }
        guard let exp else { throw missing("exp", "an integer timestamp (seconds since 1970)") }
        return JWTClaims(issuer: iss, subject: sub, id: jti, notBefore: nbf, expires: exp)
    }

    private static func show(_ value: JSONValue) -> String {
        if case .string(let text) = value { return "\"\(text)\"" }
        return value.kindName
    }

    private static func string(_ name: String, _ value: JSONValue) throws(JWTError) -> String {
        guard case .string(let text) = value else { throw JWTError(.invalidClaim, "the claim \(name) is \(value.kindName); expected a string") }
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
