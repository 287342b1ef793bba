// libFuzzer input function for the JWT parsers: the SwiftPM target JWTFuzz, built for fuzzing by
// tools/fuzz-jwt.sh (libFuzzer calls it; in a plain build, Replay runs it on saved inputs).
//
// The first byte chooses the parser (seeds start with the digit of theirs), the rest is its input:
// - 0: a compact token, as SignedJWT (header.payload.signature) and as JWTPrototype (header.payload);
// - 1: a JSON object, as StrictJSON, JWTHeader and JWTClaims read a decoded header or payload;
// - 2: base64url text.
//
// Invariants checked on every input:
// - parsing never traps; a refusal has a message and one of the codes its parser documents;
// - a parsed token keeps the limits (claims 1…256 bytes, timestamps ≥ 0), and its signature is checked over
//   exactly the `header.payload` bytes received;
// - a parsed token or prototype rebuilt from its values (canonical JSON) parses to the same values;
// - StrictJSON: names unique, depth bounded, and the value written back as JSON parses to the same value;
// - base64url is canonical: decoding then encoding gives the text back, and any bytes survive encode-decode.

import Base64URLEncoding
import FuzzReplay
import JWT

@_cdecl("LLVMFuzzerTestOneInput")
public func jwtFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: data + 1, count: size - 1)
    switch data[0] % 3 {
    case 0: checkToken(String(decoding: input, as: UTF8.self))
    case 1: checkJSON(input)
    default: checkBase64URL(input)
    }
    return 0
}

/// The codes a parse (no key, no clock) may refuse with.
private let parseCodes: Set<JWTError.Code> = [
    .malformed, .tooLarge, .invalidJSON, .duplicateMember, .unsupportedAlgorithm, .missingClaim, .invalidClaim,
]

private func checkToken(_ token: String) {
    do {
        let jwt = try SignedJWT(compact: token)
        checkLimits(jwt.header, jwt.claims)
        // The signature must cover the bytes up to the second dot, as received (not a re-encoding).
        let dots = token.utf8.indices.filter { token.utf8[$0] == UInt8(ascii: ".") }
        precondition(dots.count == 2, "a token with \(dots.count) dots parsed")
        let signingInput = Array(token.utf8[..<dots[1]])
        precondition(jwt.hasValidSignature(ExactInput(signature: jwt.signature, input: signingInput)), "the signature is checked over other bytes")
        let rebuilt = JWTPrototype(header: jwt.header, claims: jwt.claims).compact + "." + Base64URL.encode(jwt.signature)
        if rebuilt.utf8.count <= JWTLimits.maxTokenBytes {
            do {
                let again = try SignedJWT(compact: rebuilt)
                precondition(
                    again.header == jwt.header && again.claims == jwt.claims && again.signature == jwt.signature,
                    "a rebuilt token parses differently")
            } catch {
                preconditionFailure("a rebuilt token is refused: \(error)")
            }
        }
        // The window check is arithmetic on parsed claims; it may refuse but not trap.
        do {
            try JWTVerifier().checkWindow(jwt.claims, now: 1_700_000_000)
        } catch {
            precondition([.lifetimeTooLong, .notYetValid, .expired].contains(error.code) && !error.message.isEmpty, "a window refusal: \(error)")
        }
    } catch {
        checkError(error)
    }
    do {
        let prototype = try JWTPrototype(compact: token)
        checkLimits(prototype.header, prototype.claims)
        if prototype.compact.utf8.count <= JWTLimits.maxTokenBytes {
            do {
                let again = try JWTPrototype(compact: prototype.compact)
                precondition(again == prototype, "a re-encoded prototype parses differently")
            } catch {
                preconditionFailure("a re-encoded prototype is refused: \(error)")
            }
        }
    } catch {
        checkError(error)
    }
}

private func checkLimits(_ header: JWTHeader, _ claims: JWTClaims) {
    if let keyID = header.keyID {
        precondition(!keyID.isEmpty && keyID.utf8.count <= JWTLimits.maxClaimBytes, "kid outside 1…\(JWTLimits.maxClaimBytes) bytes")
    }
    for text in [claims.issuer, claims.subject, claims.id] {
        precondition(!text.isEmpty && text.utf8.count <= JWTLimits.maxClaimBytes, "a string claim outside 1…\(JWTLimits.maxClaimBytes) bytes")
    }
    precondition(claims.notBefore >= 0 && claims.expires >= 0, "a negative timestamp was accepted")
}

private func checkError(_ error: JWTError) {
    precondition(!error.message.isEmpty, "an error without a message: \(error.code)")
    precondition(parseCodes.contains(error.code), "an unexpected code from parsing: \(error)")
}

private func checkJSON(_ input: UnsafeBufferPointer<UInt8>) {
    do {
        let members = try StrictJSON.parseObject(input, what: "the input")
        let value = JSONValue.object(members)
        precondition(depth(of: value) <= StrictJSON.maxDepth, "nested deeper than \(StrictJSON.maxDepth)")
        var written: [UInt8] = []
        write(value, to: &written)
        do {
            let again = try StrictJSON.parseObject(written, what: "the re-written input")
            precondition(JSONValue.object(again) == value, "written back, the JSON parses differently")
        } catch {
            preconditionFailure("written back, the JSON is refused: \(error)")
        }
    } catch {
        precondition(error.code == .invalidJSON || error.code == .duplicateMember, "an unexpected code from StrictJSON: \(error)")
        precondition(!error.message.isEmpty, "an error without a message")
    }
    let bytes = Array(input)
    do { _ = try JWTHeader(json: bytes) } catch { checkError(error) }
    do {
        let claims = try JWTClaims(json: bytes)
        do {
            let again = try JWTClaims(json: claims.json)
            precondition(again == claims, "re-encoded claims parse differently")
        } catch {
            preconditionFailure("re-encoded claims are refused: \(error)")
        }
    } catch {
        checkError(error)
    }
}

private func checkBase64URL(_ input: UnsafeBufferPointer<UInt8>) {
    if let decoded = Base64URL.decode(input) {
        precondition(Array(Base64URL.encode(decoded).utf8) == Array(input), "base64url is not canonical: another text decodes to the same bytes")
    }
    // The input's own bytes as data: encoding and decoding them gives them back.
    let encoded = Base64URL.encode(input)
    precondition(Base64URL.decode(encoded) == Array(input), "encode-decode changed the bytes")
}

/// A verifier that accepts exactly one signature over exactly one signing input.
private struct ExactInput: RS256Verifying {
    let signature: [UInt8]
    let input: [UInt8]
    var backEnd: String { "exact-input" }
    func isValidSignature(_ signature: [UInt8], for signingInput: UnsafeBufferPointer<UInt8>) -> Bool {
        signature == self.signature && Array(signingInput) == input
    }
}

private func depth(of value: JSONValue) -> Int {
    switch value {
    case .array(let elements): 1 + (elements.map(depth(of:)).max() ?? 0)
    case .object(let members): 1 + (members.map { depth(of: $0.value) }.max() ?? 0)
    default: 1
    }
}

/// JSON text for a parsed value: strings through the module's own writer, numbers as they were written.
private func write(_ value: JSONValue, to out: inout [UInt8]) {
    switch value {
    case .string(let text): JSONWriter.appendString(text, to: &out)
    case .integer(let number): out.append(contentsOf: String(number).utf8)
    case .fractional(let text): out.append(contentsOf: text.utf8)
    case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
    case .null: out.append(contentsOf: "null".utf8)
    case .array(let elements):
        out.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            write(element, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    case .object(let members):
        out.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(member.name, to: &out)
            out.append(UInt8(ascii: ":"))
            write(member.value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}

#if !FUZZING
    /// A plain build's entry (a fuzzing build has libFuzzer's): runs the input function on each file named on the command line.
    @main enum Replay { static func main() { FuzzReplay.run(jwtFuzzOneInput) } }
#endif
