import Scenario
import SystemKit
import Wire

/// Recordings played back (docs/record.md, "Playback"): one actor kind that answers from a recording `workbench
/// record` made, no directives of its own (the `http` directive and the systems' clients talk to it).
extension WorkbenchSystem {
    package static let stub = WorkbenchSystem(
        name: "Stub",
        actorKinds: [.stub],
        invariants: [.stubAnswersFromItsRecording],
        reachPoints: [
            .event(
                "stub.played-a-sequence", outcome: "a stub answered a repeated request with the next answer recorded for it", actorKinds: ["stub"],
                event: "stub-answered"
            ) { $0["sequence"].map { !$0.hasPrefix("1/") } ?? false },
            .event(
                "stub.answered-past-its-recording", outcome: "a stub gave the last recorded answer again, its sequence used up",
                actorKinds: ["stub"], event: "stub-answered"
            ) { event in
                let numbers = (event["sequence"] ?? "").split(separator: "/").compactMap { Int($0) }
                return numbers.count == 2 && numbers[0] > numbers[1]
            },
            .event(
                "stub.unavailable", outcome: "a stub answered 503 while its fault was on", actorKinds: ["stub"], event: "fault-fired"
            ) { $0["point"] == StubServer.unavailableFault },
        ],
        traceEvents: [
            .event("started", fields: "exchanges", "url"),
            .event("stopped"),
            .event("stub-answered", fields: "exchange", "method", "path", "sequence"),
            .event("stub-miss", fields: "method", "path", "why"),
        ]
    )
}

extension Invariant {
    /// A stub answers every request from its recording: a request it has no recorded answer for means the scenario
    /// (or the app) asked something the recording never saw, and a 404 the client may shrug off must not pass.
    static let stubAnswersFromItsRecording = Invariant.trace(
        "stub.answers-from-its-recording",
        promise: "every request a stub receives matches an exchange of its recording",
        initial: ()
    ) { _, event in
        guard event.event == "stub-miss" else { return nil }
        return "\(event.actor): \(event["why"] ?? "a request matched no recorded exchange")"
    }
}
