import Kernel

#if canImport(Glibc)
    import Glibc
#endif

/// `workbench serve`'s request log, one line per request, built from the trace events the actors already record:
///
/// ```
/// 2026-11-25T10:02:03.456Z printer 127.0.0.1:53422 "Print-Job" successful-ok 1834µs
/// 2026-11-25T10:02:04.001Z registrar 127.0.0.1:53430 "POST /odata/applications/latest/com.sap.demo/Connections" 201 912µs
/// 2026-11-25T10:02:05.310Z print-host 127.0.0.1:53440 "lpq -P psts" exit-0 2210µs
/// 2026-11-25T10:02:06.000Z proxy 127.0.0.1:53450 "-" 400 -
/// ```
///
/// Fields: the wall time the answer went out (UTC, ms), the actor, the peer, what was asked (HTTP method and
/// path, the IPP operation, or the SSH exec command; `-` for bytes that were no request), the answer (HTTP status,
/// IPP status keyword, SSH exit status) and the time from the request's event to the answer's, in µs (`-` when
/// there was no request). A request starts at `http-request`, `proxy-request` or `ssh-exec` and ends at
/// `http-response` or `ssh-exit` of the same actor and peer (HTTP/1.1 answers one request at a time per
/// connection; SSH execs are told apart by their command); `ipp-response` on the way names the IPP operation
/// and status. Pure: events and times in, lines out.
public struct RequestLog: Sendable {
    /// Requests without an answer yet; bounded, so connections that vanish mid-request cannot grow it forever.
    static let maximumPending = 4096

    private struct Pending {
        var request: String
        var started: Int64
        var ippStatus: String?
    }

    private var pending: [String: Pending] = [:]

    public init() {}

    /// One request answered: when the answer went out, by whom, to whom, what was asked, the answer, and how long it took.
    public struct Entry: Sendable, Equatable {
        public let time: Int64
        public let actor: String
        public let peer: String
        public let request: String
        public let status: String
        public let microseconds: Int64?

        /// The log line (`time` in microseconds since the Unix epoch).
        public var line: String {
            "\(RequestLog.timestamp(time)) \(actor) \(peer) \"\(RequestLog.escaped(request))\" \(status) \(microseconds.map { "\($0)µs" } ?? "-")"
        }
    }

    /// Takes one trace event seen at `microseconds` since the Unix epoch; returns the log line it completes.
    public mutating func record(actor: String, event: String, fields: [(String, String)], at microseconds: Int64) -> String? {
        entry(actor: actor, event: event, fields: fields, at: microseconds)?.line
    }

    /// Takes one trace event seen at `microseconds`; returns the request it completes.
    public mutating func entry(actor: String, event: String, fields: [(String, String)], at microseconds: Int64) -> Entry? {
        func field(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
        guard let peer = field("from") else { return nil }
        switch event {
        case "http-request", "proxy-request":
            start(key: "\(actor) \(peer)", request: "\(field("method") ?? "?") \(field("path") ?? "?")", at: microseconds)
        case "ssh-exec":
            guard let command = field("command") else { return nil }
            start(key: "\(actor) \(peer) \(command)", request: command, at: microseconds)
        case "ipp-response":
            let key = "\(actor) \(peer)"
            if let operation = field("operation") { pending[key]?.request = operation }
            pending[key]?.ippStatus = field("status")
        case "http-response":
            guard let request = pending.removeValue(forKey: "\(actor) \(peer)") else { return nil }
            return Entry(
                time: microseconds, actor: actor, peer: peer, request: request.request, status: request.ippStatus ?? field("status") ?? "?",
                microseconds: microseconds - request.started)
        case "ssh-exit":
            guard let command = field("command"), let request = pending.removeValue(forKey: "\(actor) \(peer) \(command)") else { return nil }
            return Entry(
                time: microseconds, actor: actor, peer: peer, request: command, status: "exit-\(field("status") ?? "?")",
                microseconds: microseconds - request.started)
        case "http-bad-request", "http-rejected":
            pending.removeValue(forKey: "\(actor) \(peer)")
            return Entry(time: microseconds, actor: actor, peer: peer, request: "-", status: field("status") ?? "?", microseconds: nil)
        default:
            break
        }
        return nil
    }

    private mutating func start(key: String, request: String, at microseconds: Int64) {
        if pending.count >= Self.maximumPending, pending[key] == nil, let oldest = pending.min(by: { $0.value.started < $1.value.started }) {
            pending.removeValue(forKey: oldest.key)
        }
        pending[key] = Pending(request: request, started: microseconds)
    }

    /// ISO 8601 in UTC with milliseconds: `2026-11-25T10:02:03.456Z`.
    public static func timestamp(_ microseconds: Int64) -> String {
        var seconds = time_t(microseconds / 1_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = Int(microseconds % 1_000_000 / 1000)
        let fraction = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }

    /// A request as one quoted field: quotes and backslashes escaped, control characters as `\xNN`.
    public static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "\\": result += "\\\(scalar)"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// The requests a live journal's events hold, as the request log writes them (WireMock's request journal).
public enum JournalRequests {
    /// The requests answered among `events` (stamped in nanoseconds since the Unix epoch), oldest first; only
    /// `actor`'s when one is named.
    public static func of(_ events: [Trace.Event], actor: String? = nil) -> [RequestLog.Entry] {
        var log = RequestLog()
        return events.compactMap { event in
            guard actor == nil || event.actor == actor else { return nil }
            return log.entry(actor: event.actor, event: event.event, fields: event.fields, at: event.nanoseconds / 1000)
        }
    }
}

extension RequestLog.Entry {
    /// Whether nothing handled the request: no such path or method (HTTP 404, 405, 501), no such IPP operation, no such
    /// command (exit 127), or bytes that were no request at all.
    public var isMiss: Bool {
        request == "-" || ["404", "405", "501", "exit-127", "server-error-operation-not-supported"].contains(status)
    }
}

extension JournalRequests {
    /// The requests nothing handled among `events`, each with the nearest request its actor does answer: one it
    /// declares (`served`, by actor), or one it answered in the journal (WireMock's near misses).
    public static func misses(_ events: [Trace.Event], actor: String? = nil, served: [String: [String]]) -> [String] {
        let all = of(events, actor: actor)
        return all.filter(\.isMiss).map { miss in
            let answered = all.filter { $0.actor == miss.actor && !$0.isMiss }.map(\.request)
            let known = Set((served[miss.actor] ?? []) + answered).sorted()
            let nearest = known.min { (editDistance($0, miss.request), $0) < (editDistance($1, miss.request), $1) }
            return miss.line + (nearest.map { " — nearest: \"\($0)\"" } ?? " — nothing answered yet to compare with")
        }
    }
}
