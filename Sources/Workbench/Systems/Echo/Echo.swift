import Scenario

/// The demo system: one echo actor, no directives of its own, no bench.
extension WorkbenchSystem {
    static let echo = WorkbenchSystem(
        name: "Echo",
        actorKinds: [.echo],
        liveOptions: ["echo": ["tcp-port": "7007", "http-port": "8080"]],
        invariants: [.echoReportsWhatItReceived]
    )
}

extension Invariant {
    /// The echo's summary of a request states the body size it received.
    static let echoReportsWhatItReceived = Invariant.trace(
        "echo.reports-what-it-received",
        promise: "echo's answer to a request with a body states the number of bytes it received",
        initial: ()
    ) { _, event in
        guard event.event == "http-response", let received = event["received"], let reported = event["reported"], received != reported else { return nil }
        return "\(event.actor) received \(received) bytes and answered that it got \(reported)"
    }
}
