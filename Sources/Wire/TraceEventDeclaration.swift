/// One event something records in the trace, with the keys of the fields it may carry: what a scenario's
/// `expect [no] trace EVENT KEY=VALUE` may name, and all a run may record of that event. Systems and the libraries
/// under them declare theirs next to the code that records them, e.g. `.event("job-created", fields: "job", "name")`.
public struct TraceEventDeclaration: Sendable, Equatable {
    public let name: String
    /// Every key the event may carry (not all on every recording of it).
    public let fields: Set<String>

    public init(_ name: String, fields: Set<String> = []) {
        self.name = name
        self.fields = fields
    }

    /// The event `name`, which may carry the fields `fields`.
    public static func event(_ name: String, fields: String...) -> TraceEventDeclaration {
        TraceEventDeclaration(name, fields: Set(fields))
    }

    /// The declarations of `events` merged by name (several systems' actors record `started`, each with its own
    /// fields): one name, every key any declaration of it gives.
    public static func merged(_ events: [TraceEventDeclaration]) -> [String: Set<String>] {
        events.reduce(into: [:]) { $0[$1.name, default: []].formUnion($1.fields) }
    }
}
