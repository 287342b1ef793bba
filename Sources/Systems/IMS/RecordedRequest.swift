import Foundation
import NIOCore
import NIOHTTP1
import Scenario
import WireHTTP

/// An HTTP/1.1 request written out as text — request line, `Name: value` header lines, a blank line, the body —
/// like original 004's "Example HTTP Signing Request", read so it can be sent again as it was printed.
///
/// Lines may end in CRLF or LF; one line ending after the body (a text file's last newline) is not part of
/// it. Framing headers (`Content-Length`, `Transfer-Encoding`) are left to the client, which frames the body
/// it sends, as any HTTP client does with such a printed example.
struct RecordedRequest {
    /// Larger files are not requests worth replaying (the signer takes at most a few KiB).
    static let maxBytes = 64 * 1024

    let request: HTTPRequest

    init(text: String) throws {
        guard text.utf8.count <= Self.maxBytes else {
            throw StepError("the recorded request takes \(text.utf8.count) bytes; expected at most \(Self.maxBytes)")
        }
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
        let blank = normalized.range(of: "\n\n")
        let head = blank.map { normalized[..<$0.lowerBound] } ?? normalized[...].dropLast(normalized.hasSuffix("\n") ? 1 : 0)
        let body = blank.map { normalized[$0.upperBound...] } ?? ""
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { throw StepError("the recorded request is empty; expected 'METHOD /path HTTP/1.1' on its first line") }
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3, requestLine[2] == "HTTP/1.1", requestLine[1].hasPrefix("/"),
            !requestLine[0].isEmpty, requestLine[0].allSatisfy({ $0.isASCII && $0.isUppercase })
        else {
            throw StepError("the recorded request's first line is '\(requestLine.joined(separator: " "))'; expected 'METHOD /path HTTP/1.1'")
        }
        var headers = HTTPHeaders()
        for (index, line) in lines.enumerated() {
            guard let colon = line.firstIndex(of: ":"), colon > line.startIndex,
                line[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) })
            else {
                throw StepError("the recorded request's header line \(index + 2) is '\(line)'; expected 'Name: value'")
            }
            let name = String(line[..<colon])
            if ["content-length", "transfer-encoding"].contains(name.lowercased()) { continue }
            headers.add(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let payload = body.hasSuffix("\n") ? body.dropLast() : body
        request = HTTPRequest(
            method: HTTPMethod(rawValue: String(requestLine[0])), target: String(requestLine[1]), headers: headers,
            body: payload.isEmpty ? nil : ByteBuffer(string: String(payload)))
    }
}
