import Kernel

/// One thing a run did, as guided exploration counts it: an actor's trace event, with the field that tells its
/// outcomes apart when it has one (`mig fault-fired point=mig.busy`, `ims token-rejected reason=not-yet-valid`,
/// `mig http-response status=503`). Coverage in the sense of a fuzzer's edges: a behaviour few runs showed marks a
/// run worth mutating, and the statement it first appeared in says which of its faults to edit.
public enum Behaviour {
    /// The fields that tell outcomes apart, in the order they are tried: only the first one an event has is kept.
    /// `margin` is a value profile: how close a check came to failing, in buckets (`ims session-checked
    /// margin=under-1m`), so the runs nearest a refusal are mutated first.
    static let telling = ["point", "reason", "state", "status", "outcome", "operation", "code", "step", "margin"]
    /// Values longer than this are free text (an error message, a path), not an outcome: the event counts without it.
    static let longestValue = 48

    /// The behaviour an event shows, nil for the scenario's own events (sections, scheduled faults).
    public static func of(_ event: Trace.Event) -> String? {
        guard event.actor != "scenario" else { return nil }
        for name in telling {
            if let value = event[name] {
                return value.utf8.count <= longestValue ? "\(event.actor) \(event.event) \(name)=\(value)" : "\(event.actor) \(event.event)"
            }
        }
        return "\(event.actor) \(event.event)"
    }

    /// Every distinct name `name` gives an event of `events` (nil: the event counts for nothing), with the statement it
    /// first appeared in: `statementEnds[i]` is the number of events recorded when statement `i` ended (events after
    /// the last end count as the last statement's).
    static func firstSeen(in events: [Trace.Event], statementEnds: [Int], by name: (Trace.Event) -> String?) -> [String: Int] {
        var seen: [String: Int] = [:]
        var cursor = StatementCursor(statementEnds: statementEnds)
        for (position, event) in events.enumerated() {
            let statement = cursor.statement(at: position)
            guard let key = name(event), seen[key] == nil else { continue }
            seen[key] = statement
        }
        return seen
    }
}

/// Places positions in a run's trace, taken in ascending order, in their statements: `statementEnds[i]` is the number
/// of events recorded when statement `i` ended (a position after the last end counts as the last statement's).
struct StatementCursor {
    let statementEnds: [Int]
    private var statement = 0

    init(statementEnds: [Int]) { self.statementEnds = statementEnds }

    mutating func statement(at position: Int) -> Int {
        while statement < statementEnds.count - 1, position >= statementEnds[statement] { statement += 1 }
        return statement
    }
}
