// libFuzzer input function for the Ivanti derived-credential parsers: the SwiftPM target IvantiFuzz, built for fuzzing by
// tools/fuzz-ivanti.sh (libFuzzer calls it; in a plain build, Replay runs it on saved inputs).
//
// The first byte chooses the parser (seeds start with the digit of theirs), the rest is its input:
// - 0: a bus URL, as BusURL reads it;
// - 1: a URL the Ivanti client receives (AppConnectRequest);
// - 2: a URL an AppConnect app receives (AppConnectReply);
// - 3: an opened credential payload (CredentialPayload's JSON);
// - 4: base64url text.
//
// Invariants checked on every input:
// - parsing never traps; a refusal has a detail and one of the codes its parser documents;
// - an accepted URL has only valid %-escapes (a '%' and two hex digits), and its printed form parses to the same URL;
// - a request or reply rebuilt as a URL parses to the same request or reply;
// - a decoded payload re-encodes to JSON that decodes to the same payload; its structural check never traps;
// - base64url: any bytes survive encode-decode, and decoded text re-encodes to what decodes to the same bytes.

import Base64URLEncoding
import DerivedCredential
import FuzzReplay

@_cdecl("LLVMFuzzerTestOneInput")
public func ivantiFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let text = String(decoding: input, as: UTF8.self)
    switch data[0] % 5 {
    case 0: checkBusURL(text)
    case 1: checkRequest(text)
    case 2: checkReply(text)
    case 3: checkPayload(Array(input))
    default: checkBase64URL(text, bytes: Array(input))
    }
    return 0
}

private func checkBusURL(_ text: String) {
    do {
        let url = try BusURL(parsing: text)
        checkEscapes(text)
        let printed = url.description
        guard printed.utf8.count <= CredentialLimits.maxURLBytes else { return }
        do {
            let again = try BusURL(parsing: printed)
            precondition(again.scheme == url.scheme && again.command == url.command, "the printed URL has another scheme or command")
            precondition(
                again.query.map(\.name) == url.query.map(\.name) && again.query.map(\.value) == url.query.map(\.value),
                "the printed URL has other query items")
        } catch {
            preconditionFailure("the printed URL \(printed) is refused: \(error)")
        }
    } catch {
        checkProblem(error, [.oversized, .malformedURL])
    }
}

private func checkRequest(_ text: String) {
    do {
        let request = try AppConnectRequest(parsing: text)
        checkEscapes(text)
        let printed = request.url.description
        guard printed.utf8.count <= CredentialLimits.maxURLBytes else { return }
        do {
            let again = try AppConnectRequest(parsing: printed)
            precondition(again == request, "a request rebuilt as a URL parses differently")
        } catch {
            preconditionFailure("a request rebuilt as \(printed) is refused: \(error)")
        }
    } catch {
        checkProblem(error, [.oversized, .malformedURL, .unknownTag])
    }
}

private func checkReply(_ text: String) {
    do {
        let reply = try AppConnectReply(parsing: text)
        checkEscapes(text)
        // The reply keeps no scheme; the URL it came in on has it.
        guard let scheme = try? BusURL(parsing: text).scheme else { preconditionFailure("a reply parsed from a URL that does not parse") }
        let printed = reply.url(scheme: scheme).description
        guard printed.utf8.count <= CredentialLimits.maxURLBytes else { return }
        do {
            let again = try AppConnectReply(parsing: printed)
            precondition(again == reply, "a reply rebuilt as a URL parses differently")
        } catch {
            preconditionFailure("a reply rebuilt as \(printed) is refused: \(error)")
        }
    } catch {
        checkProblem(error, [.oversized, .malformedURL])
    }
}

private func checkPayload(_ bytes: [UInt8]) {
    do {
        let payload = try CredentialPayload(decoding: bytes)
        if let problem = payload.structuralProblem() { precondition(!problem.detail.isEmpty, "a structural problem without a detail") }
        do {
            let again = try CredentialPayload(decoding: payload.encoded())
            precondition(again == payload, "a payload re-encoded decodes differently")
        } catch {
            preconditionFailure("a payload re-encoded is refused: \(error)")
        }
    } catch {
        checkProblem(error, [.malformedPayload])
    }
}

private func checkBase64URL(_ text: String, bytes: [UInt8]) {
    if let decoded = Base64URL.decode(text, padding: .optional) {
        precondition(Base64URL.decode(Base64URL.encode(decoded)) == decoded, "re-encoded base64url decodes differently")
    }
    precondition(Base64URL.decode(Base64URL.encode(bytes)) == bytes, "encode-decode changed the bytes")
}

/// Every '%' is followed by two hex digits: what BusURL documents as a valid %-escape.
private func checkEscapes(_ text: String) {
    let bytes = Array(text.utf8)
    func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
    for index in bytes.indices where bytes[index] == UInt8(ascii: "%") {
        precondition(
            index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2]),
            "an accepted URL has the %-escape \(String(decoding: bytes[index..<min(index + 3, bytes.count)], as: UTF8.self))")
    }
}

private func checkProblem(_ problem: CredentialProblem, _ codes: Set<CredentialProblem.Code>) {
    precondition(!problem.detail.isEmpty, "a problem without a detail: \(problem.code)")
    precondition(codes.contains(problem.code), "an unexpected code: \(problem)")
}

#if !FUZZING
    /// A plain build's entry (a fuzzing build has libFuzzer's): runs the input function on each file named on the command line.
    @main enum Replay { static func main() { FuzzReplay.run(ivantiFuzzOneInput) } }
#endif
