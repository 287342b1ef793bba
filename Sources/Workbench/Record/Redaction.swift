import Foundation
import IPP
import NIOHTTP1
import Recordings
import SystemKit

/// The rules `workbench record` applies before anything is written: credentials in headers, password-like fields in
/// JSON and form bodies and in the query, password-like IPP attributes. On by default; docs/record.md lists the rules.
struct Redaction: Sendable {
    /// What stands where a secret was.
    static let marker = "REDACTED"

    /// Headers redacted unless `--no-redact`: credentials and the cookies that carry sessions.
    static let defaultHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// Off with `--no-redact`: the recording then keeps every secret as sent.
    var enabled = true
    /// Lower-cased header names whose values are redacted.
    var headers = Self.defaultHeaders

    /// A JSON member, form field, query item or IPP attribute whose name says it holds a secret.
    static func isSecretName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return ["password", "passwd", "passphrase", "secret"].contains { lowered.contains($0) } || lowered == "pwd"
    }

    /// The headers as they are written. An `Authorization` value keeps its scheme (`Basic REDACTED`), a cookie its names
    /// and a `Set-Cookie` its attributes, so a reader (and `--to-scenario`) knows what was there.
    func headers(_ headers: HTTPHeaders, side: String, notes: inout [String]) -> [RecordedHeader] {
        headers.map { name, value in
            let lowered = name.lowercased()
            guard enabled, self.headers.contains(lowered) else { return RecordedHeader(name: name, value: value) }
            notes.append("\(side).header.\(lowered)")
            switch lowered {
            case "authorization", "proxy-authorization":
                let scheme = value.split(separator: " ", maxSplits: 1).first.map(String.init)
                return RecordedHeader(name: name, value: value.contains(" ") ? "\(scheme ?? "") \(Self.marker)" : Self.marker)
            case "cookie":
                return RecordedHeader(name: name, value: Self.cookieNamesOnly(value, separator: ";", all: true))
            case "set-cookie":
                return RecordedHeader(name: name, value: Self.cookieNamesOnly(value, separator: ";", all: false))
            default:
                return RecordedHeader(name: name, value: Self.marker)
            }
        }
    }

    /// `a=1; b=2` → `a=REDACTED; b=REDACTED` (`all`), or only the first pair's value (a `Set-Cookie`: the rest are
    /// attributes such as `Path=/`).
    static func cookieNamesOnly(_ value: String, separator: Character, all: Bool) -> String {
        value.split(separator: separator, omittingEmptySubsequences: false).enumerated().map { index, pair in
            guard all || index == 0, let equals = pair.firstIndex(of: "=") else { return String(pair) }
            return String(pair[...equals]) + marker
        }.joined(separator: String(separator))
    }

    /// The request target with password-like query items redacted.
    func target(_ target: String, notes: inout [String]) -> String {
        guard enabled, let question = target.firstIndex(of: "?") else { return target }
        let query = String(target[target.index(after: question)...])
        let redacted = Self.form(query, side: "request.query", notes: &notes)
        return String(target[...question]) + redacted
    }

    /// The body with its secrets redacted, by its media type: JSON members, form fields, IPP attributes.
    func body(_ bytes: [UInt8], contentType: String?, side: String, notes: inout [String]) -> [UInt8] {
        guard enabled, !bytes.isEmpty else { return bytes }
        let media = (contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if media == "application/ipp" { return Self.ipp(bytes, side: side, notes: &notes) }
        if media == "application/x-www-form-urlencoded", let text = String(validating: bytes, as: UTF8.self) {
            return Array(Self.form(text, side: "\(side).body.form", notes: &notes).utf8)
        }
        if media.hasSuffix("json") || media.hasSuffix("+json") { return Self.json(bytes, side: side, notes: &notes) }
        return bytes
    }

    /// `a=1&password=x` → `a=1&password=REDACTED`, the rest as it was.
    static func form(_ text: String, side: String, notes: inout [String]) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            guard parts.count == 2, isSecretName(name) else { return String(pair) }
            notes.append("\(side).\(name)")
            return "\(parts[0])=\(marker)"
        }.joined(separator: "&")
    }

    /// A JSON body with every password-like member's value replaced, at any depth. Only a body that had one is written
    /// anew (keys sorted); any other keeps its bytes.
    static func json(_ bytes: [UInt8], side: String, notes: inout [String]) -> [UInt8] {
        guard let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else { return bytes }
        var found: [String] = []
        let redacted = redactJSON(value, path: "\(side).body.json", found: &found)
        guard !found.isEmpty,
            let data = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else { return bytes }
        notes += found
        return Array(data)
    }

    private static func redactJSON(_ value: Any, path: String, found: inout [String]) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            // In key order: the list of what was redacted is the same every time.
            for key in object.keys.sorted() {
                let member = object[key]!
                if isSecretName(key), !(member is [String: Any]), !(member is [Any]) {
                    found.append("\(path).\(key)")
                    result[key] = marker
                } else {
                    result[key] = redactJSON(member, path: "\(path).\(key)", found: &found)
                }
            }
            return result
        }
        if let array = value as? [Any] { return array.map { redactJSON($0, path: "\(path)[]", found: &found) } }
        return value
    }

    /// An IPP message with the values of its password-like attributes replaced by `REDACTED` in the bytes themselves
    /// (each value carries its own length, so the message stays well-formed and the document after it untouched).
    static func ipp(_ bytes: [UInt8], side: String, notes: inout [String]) -> [UInt8] {
        guard let message = try? IPPDecoder().decodeWithDocumentOffset(bytes) else { return bytes }
        var output = bytes
        var attributesEnd = message.documentOffset
        for group in message.message.groups {
            for attribute in group where isSecretName(attribute.name) {
                for value in attribute.values {
                    let secret: [UInt8]
                    switch value {
                    case .text(let text), .name(let text), .keyword(let text), .textWithLanguage(let text, _), .nameWithLanguage(let text, _):
                        secret = Array(text.utf8)
                    case .octetString(let raw): secret = raw
                    default: continue
                    }
                    // The attribute's name (length first) then the value (length first); later values of a 1setOf have
                    // an empty name.
                    let name = Array(attribute.name.utf8)
                    for prefix in [length(name) + name, [0, 0]] {
                        let pattern = prefix + length(secret) + secret
                        guard let at = find(pattern, in: output, before: attributesEnd) else { continue }
                        let replacement = prefix + length(Array(marker.utf8)) + Array(marker.utf8)
                        output.replaceSubrange(at..<(at + pattern.count), with: replacement)
                        attributesEnd += replacement.count - pattern.count
                        notes.append("\(side).body.ipp.\(attribute.name)")
                        break
                    }
                }
            }
        }
        return output
    }

    private static func length(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8 & 0xFF), UInt8(bytes.count & 0xFF)] }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8], before end: Int) -> Int? {
        guard !pattern.isEmpty, pattern.count <= end else { return nil }
        for start in 0...(end - pattern.count) where bytes[start] == pattern[0] && Array(bytes[start..<(start + pattern.count)]) == pattern {
            return start
        }
        return nil
    }
}
