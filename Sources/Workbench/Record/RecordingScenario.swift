import Foundation
import Recordings
import Scenario
import SystemKit

/// A recording as a scenario (`workbench record --to-scenario`): `start KIND`, then per exchange one `http` line sent
/// to the actor's node and an `expect` per part of the recorded answer that an actor should give again — the status,
/// the Content-Type, the JSON fields (volatile ones by their shape only). docs/record.md has the rules.
struct RecordingScenario {
    /// An exchange the scenario replays: the result name its `http` line binds, and that line.
    struct Step {
        let exchange: RecordedExchange
        let label: String
        let line: Int
    }

    let text: String
    let steps: [Step]
    /// Exchanges the scenario cannot replay, with why.
    let leftOut: [(exchange: Int, why: String)]

    /// Headers a client's HTTP stack writes itself, or that belong to one connection or one client.
    static let unsentHeaders: Set<String> = [
        "host", "content-length", "connection", "keep-alive", "transfer-encoding", "expect", "te", "user-agent", "accept-encoding",
        "proxy-connection", "upgrade",
    ]

    /// - parameters:
    ///   - kind: the actor kind the requests go to (its node by its default host, plain HTTP on port 80).
    ///   - account: the actor's demo account, put where a recorded `Authorization: Basic` was redacted.
    ///   - signIn: send the account's Basic credentials with every request that carried none (the recorded server asked
    ///     for none, the actor does).
    ///   - known: the recording's `known.differences`: what the actor is not held to.
    ///   - paths: where the actor keeps what the recorded server kept elsewhere (`--map-path`): targets, and an IPP
    ///     request's printer-uri and job-uri, under a mapping's FROM go under its TO.
    init(
        _ recording: Recording, kind: ActorKind, account: DemoAccount?, signIn: Bool = false, known: KnownDifferences,
        paths: [PathMapping] = [], title: String
    ) {
        var lines = [
            "# Made by `workbench record --to-scenario` from \(recording.exchanges.count) exchange(s) recorded against "
                + "\(recording.exchanges.first?.upstream ?? "?"); see docs/record.md.",
            "scenario \(Self.quoted(title))",
            "start \(kind.name)",
        ]
        var steps: [Step] = []
        var leftOut: [(Int, String)] = []
        // Values an earlier answer gave (ids) that a later request sends back: the replayed answer's value is captured
        // and sent instead, since the actor makes its own ids.
        var captured: [(value: String, variable: String)] = []
        var cookies: [String: String] = [:]  // cookie name -> the variable holding the replayed answer's value
        let harvest = Self.volatileValues(recording)
        let sentLater = Self.valuesSentBack(harvest, recording)
        for exchange in recording.exchanges {
            let number = Recording.fileName(of: exchange.number).dropLast(5)
            let label = "r\(exchange.number)"
            if let why = Self.problem(exchange) {
                lines.append("# \(number): left out: \(why)")
                leftOut.append((exchange.number, why))
                continue
            }
            let isIPP = exchange.request.body?.ipp != nil
            // An IPP request goes to the kind's IPP port (an IPP server listens there, not on 80).
            let origin = "http://\(kind.defaultHost)" + (isIPP ? kind.targetSchemes["ipp"].map { ":\($0)" } ?? "" : "")
            let recordedPath = Self.path(exchange.request.target)
            let path = paths.lazy.compactMap { $0.moved(recordedPath) }.first ?? recordedPath
            var words = ["http", exchange.request.method, Self.template(origin + path, captured)]
            for header in exchange.request.headers where !Self.unsentHeaders.contains(header.name.lowercased()) {
                guard let value = Self.headerValue(header, account: account, cookies: cookies) else {
                    lines.append("# \(number): header \(header.name) left out: it was redacted and the scenario has nothing to put there")
                    continue
                }
                words += ["header", Self.quoted(header.name), value == header.value ? Self.template(value, captured) : value]
            }
            let carriesCredentials = exchange.request.headers.contains { $0.name.lowercased() == "authorization" }
            if signIn, !carriesCredentials, let account {
                words += [
                    "header", "\"Authorization\"", Self.quoted("Basic " + Data("\(account.user):\(account.password)".utf8).base64EncodedString()),
                ]
            }
            if let body = exchange.request.body, isIPP || body.text == nil {
                let bytes = isIPP ? paths.reduce(body.data) { $1.movedIPPRequest($0) } : body.data
                words += ["body-base64", Data(bytes).base64EncodedString()]
            } else if let body = exchange.request.body?.text {
                words += ["body", Self.template(body, captured)]
            }
            words += ["as", label]
            lines.append("section \(Self.quoted("\(number): \(exchange.request.method) \(Self.path(exchange.request.target))"))")
            lines.append(words.joined(separator: " "))
            steps.append(Step(exchange: exchange, label: label, line: lines.count))
            lines += Self.expectations(exchange.response, label: label, number: String(number), known: known)
            // What later requests send back of this answer.
            for (index, item) in harvest.enumerated() where item.exchange == exchange.number && sentLater.contains(index) {
                let variable = "\(label)-\(Self.variableName(item.key))"
                lines.append(
                    "capture \(variable) from ${\(label).body} matching "
                        + Self.quoted("\"\(regexEscaped(item.key))\" *: *\"([^\"]*)\""))
                captured.append((item.value, variable))
            }
            for header in exchange.response.headers where header.name.lowercased() == "set-cookie" {
                guard let name = header.value.split(separator: "=", maxSplits: 1).first.map(String.init), !name.isEmpty,
                    Self.cookieSentBack(name, after: exchange.number, recording)
                else { continue }
                let variable = "\(label)-cookie-\(Self.variableName(name))"
                lines.append(
                    "capture \(variable) from ${\(label).header.set-cookie} matching " + Self.quoted("\(regexEscaped(name))=([^;]*)"))
                cookies[name] = variable
            }
            captured.sort { $0.value.count > $1.value.count }  // the longest first: one id may hold another
        }
        text = lines.joined(separator: "\n") + "\n"
        self.steps = steps
        self.leftOut = leftOut
    }

    /// Why an exchange cannot be a line of a scenario, or nil.
    static func problem(_ exchange: RecordedExchange) -> String? {
        if let error = exchange.proxyError { return "the proxy answered it itself (\(error))" }
        if let body = exchange.request.body, body.ipp != nil || body.text == nil, body.bytes > maximumInlineBytes {
            return "its body of \(body.bytes) bytes is no text and more than the \(maximumInlineBytes) a scenario line carries (body-base64)"
        }
        return nil
    }

    /// The largest body that is no text (an IPP request, an image) a line sends as `body-base64`: a Print-Job with a
    /// larger document is left out.
    static let maximumInlineBytes = 1 << 20

    /// The origin-form path and query of a target (an absolute-form target loses its scheme and authority).
    static func path(_ target: String) -> String {
        guard target.hasPrefix("http://") || target.hasPrefix("https://"), let components = URLComponents(string: target) else { return target }
        return (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath)
            + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// A header's value in the scenario: as recorded, or for a redacted one what the actor's run needs (nil: left out).
    static func headerValue(_ header: RecordedHeader, account: DemoAccount?, cookies: [String: String]) -> String? {
        guard header.value.contains(Redaction.marker) else { return header.value }
        switch header.name.lowercased() {
        case "authorization", "proxy-authorization":
            guard header.value.lowercased().hasPrefix("basic "), let account else { return nil }
            return quoted("Basic " + Data("\(account.user):\(account.password)".utf8).base64EncodedString())
        case "cookie":
            let pairs = header.value.split(separator: ";").compactMap { pair -> String? in
                let name = pair.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                return cookies[name].map { "\(name)=${\($0)}" }
            }
            return pairs.isEmpty ? nil : "\"" + pairs.joined(separator: "; ") + "\""
        default:
            return nil
        }
    }

    /// The checks of a recorded answer: its status, its Content-Type, each JSON field that should come again (a
    /// volatile one by its shape), each as a line the recorded answer itself passes.
    ///
    /// A check of a difference the recording's `known.differences` explains (`0009.ipp.status`) is written as a comment
    /// with the reason: the scenario holds the actor to the recording where the two are meant to agree.
    static func expectations(_ response: RecordedExchange.Response, label: String, number: String, known: KnownDifferences) -> [String] {
        var lines: [String] = []
        func expect(_ name: String, _ line: String) {
            if let why = known.reason(for: "\(number).\(name)") {
                lines.append("# known difference \(number).\(name) (\(why)), not checked: \(line)")
            } else {
                lines.append(line)
            }
        }
        expect("status", "expect ${\(label).status} == \(response.status)")
        if let type = response.headers.first(where: { $0.name.lowercased() == "content-type" })?.value {
            expect("header.content-type", "expect ${\(label).header.content-type} == \(quoted(type))")
        }
        if let status = response.body?.ipp?.code, response.body?.ipp?.problem == nil {
            expect("ipp.status", "expect ${\(label).ipp-status} == \(status)")
        }
        guard let body = response.body?.text else { return lines }
        for field in JSONFields(body).fields {
            guard let pattern = field.pattern(in: body) else { continue }
            expect("json.\(field.path)", "expect ${\(label).body} matches \(quoted(pattern))")
        }
        return lines
    }

    /// Values of volatile JSON fields (ids, tokens) the answers gave, each where it was first given.
    static func volatileValues(_ recording: Recording) -> [(exchange: Int, key: String, value: String)] {
        var seen: Set<String> = []
        return recording.exchanges.flatMap { exchange -> [(exchange: Int, key: String, value: String)] in
            guard exchange.proxyError == nil, let body = exchange.response.body?.text else { return [] }
            return JSONFields(body).fields.compactMap { field in
                guard field.volatile, !field.inArray, case .string(let value) = field.value, value.count >= 6, seen.insert(value).inserted else {
                    return nil
                }
                return (exchange.number, field.key, value)
            }
        }
    }

    /// The indexes of the values a later request sends back (in its target, a header or its body).
    static func valuesSentBack(_ values: [(exchange: Int, key: String, value: String)], _ recording: Recording) -> Set<Int> {
        var used: Set<Int> = []
        for exchange in recording.exchanges {
            let sent = [exchange.request.target] + exchange.request.headers.map { $0.value } + [exchange.request.body?.text ?? ""]
            for (index, item) in values.enumerated() where item.exchange < exchange.number && sent.contains(where: { $0.contains(item.value) }) {
                used.insert(index)
            }
        }
        return used
    }

    /// Whether a request after exchange `number` sends the cookie `name` back.
    static func cookieSentBack(_ name: String, after number: Int, _ recording: Recording) -> Bool {
        recording.exchanges.contains { exchange in
            exchange.number > number
                && exchange.request.headers.contains { $0.name.lowercased() == "cookie" && $0.value.contains("\(name)=") }
        }
    }

    static func variableName(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) ? Character($0) : "-" })
    }

    /// A scenario string: quoted, with the language's escapes (`$` escaped, so nothing in it is read as a variable).
    static func quoted(_ text: String) -> String { "\"" + escaped(text) + "\"" }

    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "$": out += "\\$"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` quoted, each captured value in it replaced by its variable (`${r1-ApplicationConnectionId}`).
    static func template(_ text: String, _ captured: [(value: String, variable: String)]) -> String {
        var out = ""
        var rest = Substring(text)
        while !rest.isEmpty {
            let hits = captured.compactMap { item in rest.range(of: item.value).map { ($0, item.variable) } }
            guard let (range, variable) = hits.min(by: { $0.0.lowerBound < $1.0.lowerBound }) else { break }
            out += escaped(String(rest[..<range.lowerBound])) + "${\(variable)}"
            rest = rest[range.upperBound...]
        }
        return "\"" + out + escaped(String(rest)) + "\""
    }
}
