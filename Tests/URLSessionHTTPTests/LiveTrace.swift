import Synchronization
import Wire

/// What the live wire's nodes put in the trace, kept for a test to read.
final class LiveTrace: TraceSink {
    struct Event: Sendable {
        let actor: String
        let event: String
        let fields: [String: String]
    }

    private let events = Mutex<[Event]>([])

    func record(actor: String, event: String, fields: [(String, String)]) {
        let recorded = Event(actor: actor, event: event, fields: Dictionary(fields, uniquingKeysWith: { _, last in last }))
        events.withLock { $0.append(recorded) }
    }

    /// The events `actor` recorded named `event`, in order.
    func events(_ actor: String, _ event: String) -> [Event] { events.withLock { $0.filter { $0.actor == actor && $0.event == event } } }

    /// The requests a served actor took, as `METHOD path`.
    func requests(to actor: String) -> [String] {
        events(actor, "http-request").map { "\($0.fields["method"] ?? "?") \($0.fields["path"] ?? "?")" }
    }

    func clear() { events.withLock { $0.removeAll() } }
}

extension Result {
    /// The error, if it failed.
    var failure: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
