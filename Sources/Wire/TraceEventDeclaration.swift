/// One event something records in the trace, with the keys of the fields it may carry and, for the fields whose values
/// come from a closed set (a state, an outcome, a reason code), that set: what a scenario's `expect [no] trace EVENT
/// KEY=VALUE` may name, and all a run may record of that event. Systems and the libraries under them declare theirs
/// next to the code that records them, e.g. `.event("job-created", fields: "job", "name")`, or
/// `.event("job-state", fields: "job", values: ["state": JobState.allCases.map(\.rawValue)])`.
public struct TraceEventDeclaration: Sendable, Equatable {
    /// The event's kebab-case name, e.g. `job-created`: what the code records and a scenario's `expect trace` names.
    public let name: String
    /// Every key the event may carry (not all on every recording of it), those of `values` included.
    public let fields: Set<String>
    /// The keys whose values come from a closed set, with that set. A key not here is free (an id, a name, a count, a
    /// message): any value may be looked for and recorded.
    public let values: [String: Set<String>]

    /// The event `name` with the free keys `fields` and the closed keys `values`; ``TraceEventDeclaration/fields`` takes
    /// the keys of `values` too.
    public init(_ name: String, fields: Set<String> = [], values: [String: Set<String>] = [:]) {
        self.name = name
        self.fields = fields.union(values.keys)
        self.values = values
    }

    /// The event `name`, which may carry the free fields `fields` and the closed ones `values` (each with every value
    /// the recording code can give it: derived from the enum it records where there is one, else its literals).
    public static func event(_ name: String, fields: String..., values: [String: [String]] = [:]) -> TraceEventDeclaration {
        TraceEventDeclaration(name, fields: Set(fields), values: values.mapValues(Set.init))
    }
}

/// Declarations merged by name (several systems' actors record `started`, each with its own fields): for each event,
/// every key any declaration of it gives, and the values of the keys every declaration that gives them closes.
public struct TraceVocabulary: Sendable {
    /// What one event name may carry.
    public struct Entry: Sendable, Equatable {
        /// Every key any declaration of the event gives, closed or free.
        public var fields: Set<String> = []
        /// The closed keys, with the values any declaration gives them; a key some declaration leaves free is not here.
        public var values: [String: Set<String>] = [:]

        /// An entry with the keys `fields` and the closed keys' value sets `values`.
        public init(fields: Set<String> = [], values: [String: Set<String>] = [:]) {
            self.fields = fields
            self.values = values
        }
    }

    /// What each declared event may carry, by event name.
    public let entries: [String: Entry]
    /// The keys each event may carry.
    public let fields: [String: Set<String>]

    /// Merges `declarations` by event name: their keys add up, and a key stays closed only if every declaration that
    /// gives it closes it (its values then add up too).
    public init(_ declarations: [TraceEventDeclaration]) {
        var entries: [String: Entry] = [:]
        var free: [String: Set<String>] = [:]
        for declaration in declarations {
            entries[declaration.name, default: Entry()].fields.formUnion(declaration.fields)
            free[declaration.name, default: []].formUnion(declaration.fields.subtracting(declaration.values.keys))
            for (key, values) in declaration.values { entries[declaration.name, default: Entry()].values[key, default: []].formUnion(values) }
        }
        for (name, keys) in free {
            for key in keys { entries[name]?.values[key] = nil }
        }
        self.entries = entries
        fields = entries.mapValues(\.fields)
    }

    /// The events' names.
    public var events: Set<String> { Set(entries.keys) }
    /// Whether no event is declared at all.
    public var isEmpty: Bool { entries.isEmpty }
}
