import Crypto
import JSONEscaping
import NIOConcurrencyHelpers
import Wire

/// The run's record: one event per meaningful step, stamped with virtual time, in the order it happened.
///
/// Its canonical form is JSON Lines with a fixed key order (`t`, `actor`, `event`, then the fields sorted by
/// name), times in integer nanoseconds; the digest is SHA-256 over those lines. The same seed and build
/// must give the same digest — that is the determinism the workbench promises and tests.
public final class Trace: TraceSink, @unchecked Sendable {
    // @unchecked Sendable: `events` is guarded by `lock`.

    /// One trace event.
    public struct Event: Sendable, Equatable {
        /// When the event happened, in nanoseconds since the start of the run (virtual time in a simulated world); the
        /// `t` of the canonical line.
        public let nanoseconds: Int64
        /// Who recorded the event: a node's name, or a part of the world such as `net` or `bus`; the `actor` of the
        /// canonical line.
        public let actor: String
        /// What happened, as a short kebab-case name such as `open-rejected`; the `event` of the canonical line.
        public let event: String
        /// The event's details as name–value pairs, in the order given; the canonical line sorts them by name.
        public let fields: [(String, String)]

        /// Creates an event from its parts as given; ``Trace/record(actor:event:fields:)`` stamps its own with the time
        /// now.
        public init(nanoseconds: Int64, actor: String, event: String, fields: [(String, String)]) {
            (self.nanoseconds, self.actor, self.event, self.fields) = (nanoseconds, actor, event, fields)
        }

        /// Whether two events have the same time, actor, event name and fields in the same order.
        public static func == (lhs: Event, rhs: Event) -> Bool {
            lhs.nanoseconds == rhs.nanoseconds && lhs.actor == rhs.actor && lhs.event == rhs.event
                && lhs.fields.elementsEqual(rhs.fields, by: { $0 == $1 })
        }

        /// The value of a field, if present.
        public subscript(field: String) -> String? { fields.first { $0.0 == field }?.1 }

        /// The canonical JSON line of this event.
        public var canonicalLine: String {
            var line = "{\"t\":\(nanoseconds),\"actor\":\(JSONString.quoted(actor)),\"event\":\(JSONString.quoted(event))"
            for (key, value) in fields.sorted(by: { $0.0 < $1.0 }) {
                line += ",\(JSONString.quoted(key)):\(JSONString.quoted(value))"
            }
            return line + "}"
        }
    }

    private let lock = NIOLock()
    private var events: [Event] = []
    private let clock: @Sendable () -> Int64
    private var observers: [@Sendable (Event) -> Void] = []

    /// An empty trace that stamps the events it records with `clock`'s time.
    ///
    /// - parameter clock: virtual nanoseconds now (the kernel's loop).
    public init(clock: @escaping @Sendable () -> Int64) {
        self.clock = clock
    }

    /// Appends an event stamped with the clock's time now and hands it to every observer; a source path in a field's
    /// value (" at /PATH:LINE") is cut to its file name, so the trace does not depend on the checkout.
    public func record(actor: String, event: String, fields: [(String, String)]) {
        let entry = Event(
            nanoseconds: clock(), actor: actor, event: event,
            fields: fields.map { ($0.0, Self.withoutSourcePaths($0.1)) })
        let observers = lock.withLock {
            events.append(entry)
            return self.observers
        }
        for observe in observers { observe(entry) }
    }

    /// `text` with source locations removed: some libraries' error texts name the file they were compiled from
    /// (BoringSSL's "… at /home/me/project/.build/checkouts/…/handshake.cc:393"), which would make the trace depend
    /// on where the checkout lives. Every " at /PATH:LINE" becomes " at FILE:LINE" with the last path component.
    static func withoutSourcePaths(_ text: String) -> String {
        guard mentionsSourcePath(text) else { return text }
        var result = ""
        var rest = Substring(text)
        while let range = rest.firstRange(of: " at /") {
            result += rest[..<range.lowerBound]
            result += " at "
            let tail = rest[range.upperBound...]
            let path = tail.prefix { !$0.isWhitespace && !"]),\"".contains($0) }
            result += path.split(separator: "/").last.map(String.init) ?? ""
            rest = tail.dropFirst(path.count)
        }
        return result + rest
    }

    /// Whether `text` holds " at /": every field of every event is asked, so this slides a five-byte window over the
    /// bytes once instead of searching the string (which costs several times more; most fields have no path).
    static func mentionsSourcePath(_ text: String) -> Bool {
        let marker: UInt64 = 0x20_61_74_20_2F  // " at /"
        var window: UInt64 = 0
        for byte in text.utf8 {
            window = (window << 8 | UInt64(byte)) & 0xFF_FFFF_FFFF
            if window == marker { return true }
        }
        return false
    }

    /// Calls `observer` with every event recorded from now on (the console's live view).
    public func observe(_ observer: @escaping @Sendable (Event) -> Void) {
        lock.withLock { observers.append(observer) }
    }

    /// Everything recorded so far.
    public var all: [Event] { lock.withLock { events } }

    /// The events recorded from position `index` on (0-based), e.g. those since a checker last looked.
    public func events(from index: Int) -> [Event] {
        lock.withLock { index < events.count ? Array(events[max(0, index)...]) : [] }
    }

    /// The number of events recorded so far.
    public var count: Int { lock.withLock { events.count } }

    /// The canonical JSON Lines text.
    public var canonicalText: String {
        all.map { $0.canonicalLine + "\n" }.joined()
    }

    /// SHA-256 of the canonical text, in lower-case hex.
    public var digest: String {
        Self.digest(of: canonicalText)
    }

    /// The digest of a canonical text already made (a run that keeps the text need not build it twice).
    public static func digest(of canonicalText: String) -> String {
        sha256Hex(canonicalText)
    }

    static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Array(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// A digest over several digests (several scenarios in one run), in order.
    public static func combinedDigest(_ digests: [String]) -> String {
        sha256Hex(digests.joined(separator: "\n"))
    }
}
