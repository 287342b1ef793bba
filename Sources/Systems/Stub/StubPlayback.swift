import Foundation
import Recordings
import Scenario
import SystemKit

/// What picks a request's recorded answer besides its method and target (`start stub … match-headers=…`): the values
/// of some headers, some JSON fields of its body, some IPP operation attributes. Each list is comma-separated in
/// the option.
struct StubMatching: Sendable, Equatable {
    /// Header names, compared case-insensitively; the header's first value is matched (or its absence).
    var headers: [String] = []
    /// JSON fields by path (`DeviceType`, `d.results[0].Name`), as ``JSONFields`` names them.
    var jsonFields: [String] = []
    /// IPP attributes by name, in any group of the request (`job-id`, `document-format`): matched as ipptool prints
    /// them. The operation is always matched; the request id never is (a client numbers its requests its own way).
    var ippAttributes: [String] = []

    /// The names of a comma-separated option value, empty entries dropped.
    static func names(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// A request as the stub sees it.
struct StubRequest: Sendable {
    let method: String
    /// Path and query, as the client sent them.
    let target: String
    let headers: [(name: String, value: String)]
    let body: [UInt8]
}

/// The playback of a recording: which recorded answer each request gets. Pure (no I/O, no clock).
///
/// A request matches the exchanges recorded with the same method, target and chosen parts (``StubMatching``). Among
/// those, answers come in the order they were recorded: the first matching request gets the first, the second the
/// second, and once they are used up every further one gets the last (a recording of `GET` 200 then, after a
/// `DELETE`, 404 plays back the same way). A request that matches nothing gets a miss naming the closest recorded
/// exchange and how it differs.
struct StubPlayback: Sendable {
    /// The exchanges the upstream answered (those the recording proxy answered itself, a 502 or 504, are left out:
    /// they say nothing of the server).
    let exchanges: [RecordedExchange]
    let matching: StubMatching
    /// Each exchange's parts as they are matched, in `exchanges`' order.
    private let parts: [[Part]]
    /// How many requests each set of parts has been answered, by its key.
    private var answered: [String: Int] = [:]

    /// One thing a request is matched on: a name (`method`, `target`, `header X`, `json X`, `ipp operation`, `ipp X`) and its value.
    struct Part: Equatable, Sendable {
        let name: String
        let value: String
    }

    enum Outcome {
        /// The recorded exchange that answers, and which of the answers recorded for this request it is (1, 2, …) out of
        /// how many.
        case answer(RecordedExchange, sequence: Int, of: Int)
        /// Nothing matches: why, naming the closest recorded exchange.
        case miss(String)
    }

    init(recording: Recording, matching: StubMatching) throws(WorkbenchError) {
        exchanges = recording.exchanges.filter { $0.proxyError == nil }
        guard !exchanges.isEmpty else {
            throw WorkbenchError("\(recording.folder): every exchange was answered by the recording proxy itself (502, 504): nothing to play back")
        }
        self.matching = matching
        parts = exchanges.map { exchange in
            Self.parts(
                StubRequest(
                    method: exchange.request.method, target: exchange.request.target,
                    headers: exchange.request.headers.map { ($0.name, $0.value) }, body: exchange.request.body?.data ?? []),
                matching)
        }
    }

    /// The exchange that answers `request`, counting it.
    mutating func answer(_ request: StubRequest) -> Outcome {
        let wanted = Self.parts(request, matching)
        let candidates = parts.indices.filter { parts[$0] == wanted }
        guard let first = candidates.first else { return .miss(miss(request, wanted)) }
        let key = Self.key(parts[first])
        let sequence = answered[key, default: 0]
        answered[key] = sequence + 1
        let chosen = candidates[min(sequence, candidates.count - 1)]
        return .answer(exchanges[chosen], sequence: sequence + 1, of: candidates.count)
    }

    private static func key(_ parts: [Part]) -> String { parts.map { "\($0.name)=\($0.value)" }.joined(separator: "\n") }

    /// What `request` is matched on.
    static func parts(_ request: StubRequest, _ matching: StubMatching) -> [Part] {
        var parts = [Part(name: "method", value: request.method), Part(name: "target", value: request.target)]
        for name in matching.headers {
            let value = request.headers.first { $0.name.lowercased() == name.lowercased() }?.value
            parts.append(Part(name: "header \(name)", value: value ?? "(absent)"))
        }
        if !matching.jsonFields.isEmpty {
            let fields = JSONFields(String(decoding: request.body, as: UTF8.self)).fields
            for path in matching.jsonFields {
                parts.append(Part(name: "json \(path)", value: fields.first { $0.path == path }?.value.shown ?? "(absent)"))
            }
        }
        let contentType = request.headers.first { $0.name.lowercased() == "content-type" }?.value.lowercased() ?? ""
        if contentType.hasPrefix("application/ipp") {
            let ipp = RecordedIPP(request.body, side: .request)
            parts.append(Part(name: "ipp operation", value: ipp.code ?? "(undecodable: \(ipp.problem ?? "?"))"))
            let attributes = (ipp.groups ?? []).flatMap(\.attributes)
            for name in matching.ippAttributes {
                parts.append(Part(name: "ipp \(name)", value: attributes.first { $0.hasPrefix(name + " (") } ?? "(absent)"))
            }
        }
        return parts
    }

    /// Why nothing matches `request`: the recorded exchange that differs in the fewest parts, of those the one whose
    /// differing values are nearest (edit distance; the earliest of equals), and those parts.
    private func miss(_ request: StubRequest, _ wanted: [Part]) -> String {
        func differences(_ recorded: [Part]) -> (texts: [String], distance: Int) {
            let names = (wanted.map(\.name) + recorded.map(\.name)).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            var distance = 0
            let texts: [String] = names.compactMap { name in
                let have = wanted.first { $0.name == name }?.value ?? "(not matched)"
                let had = recorded.first { $0.name == name }?.value ?? "(not matched)"
                guard have != had else { return nil }
                distance += editDistance(have, had)
                return "\(name) \(Self.quoted(have)), recorded \(Self.quoted(had))"
            }
            return (texts, distance)
        }
        let ranked = parts.indices.map { ($0, differences(parts[$0])) }.min { ($0.1.texts.count, $0.1.distance) < ($1.1.texts.count, $1.1.distance) }
        let asked = "\(request.method) \(request.target)"
        guard let (index, (differing, _)) = ranked else { return "no recorded exchange matches \(asked)" }
        let exchange = exchanges[index]
        return "no recorded exchange matches \(asked); the closest is \(Recording.fileName(of: exchange.number)) "
            + "\(exchange.request.method) \(exchange.request.target): \(differing.joined(separator: "; "))"
    }

    private static func quoted(_ value: String) -> String { value.count > 80 ? "'\(value.prefix(77))…'" : "'\(value)'" }
}
