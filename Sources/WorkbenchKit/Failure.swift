import Kernel
import Scenario
import Wire

extension Simulation {
    /// Something that went wrong in a world: an expectation of a line that did not hold, an invariant a system
    /// broke, a problem of the world itself, or a failed ``Simulation/check(_:_:fileID:line:)``.
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        /// The virtual time it was found at.
        public let time: Duration
        /// Where it comes from: `FILE:LINE` of the line or the check, `invariant NAME`, or `world`.
        public let origin: String
        /// What was wrong, with what was expected.
        public let message: String

        init(time: Duration, origin: String, message: String) {
            (self.time, self.origin, self.message) = (time, origin, message)
        }

        init(_ expectation: ScenarioContext.Expectation, file: String) {
            self.init(
                time: .nanoseconds(expectation.nanoseconds), origin: "\(file):\(expectation.line)",
                message: "\(expectation.text): \(expectation.failure ?? "")")
        }

        init(_ violation: ScenarioContext.Violation) {
            self.init(
                time: .nanoseconds(violation.nanoseconds), origin: "invariant \(violation.invariant)",
                message: "\(violation.message) (trace event \(violation.traceIndex))")
        }

        /// `t=TIME ORIGIN: MESSAGE`.
        public var description: String { "t=\(time.workbenchText) \(origin): \(message)" }
    }
}

/// A call on a ``Simulation`` that could not do what it was asked: a line that is wrong or cannot run, an actor that
/// does not start, work that did not end in time. The message says what was wrong and what was expected.
public struct SimulationError: Error, Sendable, CustomStringConvertible {
    /// What was wrong (with the line's place, for a line).
    public let message: String

    init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// One event of a world's trace.
public struct TraceEvent: Sendable, Equatable, CustomStringConvertible {
    /// The virtual time it was recorded at.
    public let time: Duration
    /// The node (or kernel part: `net`, `bus`, `scenario`) that recorded it.
    public let actor: String
    /// The event's name, e.g. `job-completed` (`workbench`'s `help expect` lists every name and its fields).
    public let name: String
    /// Its fields, in the order recorded.
    public let fields: [Field]

    /// One field of an event.
    public struct Field: Sendable, Equatable {
        /// The field's key.
        public let key: String
        /// Its value.
        public let value: String
    }

    init(_ event: Trace.Event) {
        time = .nanoseconds(event.nanoseconds)
        actor = event.actor
        name = event.event
        fields = event.fields.map { Field(key: $0.0, value: $0.1) }
    }

    /// The value of the field `key`, or nil when the event has none.
    public subscript(key: String) -> String? { fields.first { $0.key == key }?.value }

    /// The event's canonical trace line (what the digest hashes).
    public var description: String {
        Trace.Event(nanoseconds: time.nanosecondsValue, actor: actor, event: name, fields: fields.map { ($0.key, $0.value) }).canonicalLine
    }
}
