import Reports
import Scenario
import SystemKit
import Wire

/// The demo system: one echo actor, no directives of its own; the kernel's bench runs its HTTP exchanges against it.
extension WorkbenchSystem {
    package static let echo = WorkbenchSystem(
        name: "Echo",
        actorKinds: [.echo],
        liveOptions: ["echo": ["tcp-port": "7007", "http-port": "8080"]],
        invariants: [.echoReportsWhatItReceived],
        // The echo server's own: its HTTP face is its own, not WireHTTP's.
        traceEvents: [
            .event("started", fields: "http", "tcp"),
            .event("stopped"),
            .event("url-received", fields: "from", "url"),
            .event("tcp-error", fields: "error"),
            .event("http-request", fields: "bytes", "from", "method", "path"),
            .event("http-response", fields: "from", "received", "reported", "status"),
        ],
        coreBenches: [KernelBench.self],
        fuzzSamples: FuzzSamples(
            addresses: ["echo:7"], urls: ["http://echo/", "http://echo:80/x"], nodes: ["echo"],
            hostile: [
                "echo:70000", "http://echo:70000/", "http://echo:80/x", "http://echo:99999999999999999999/",
                "http://echo:-1/",
            ]),
        // A URL opened on the bus for the echo, a message.
        timelineEvents: [
            TimelineEvent(
                event: "url-received", isMessage: true,
                draw: "function (a, f, e, draw) { return draw.mark(a, 'bus', 'url received ' + draw.clip(f.url || '', 90)); }")
        ]
    )
}

extension Invariant {
    /// The echo's summary of a request states the body size it received.
    static let echoReportsWhatItReceived = Invariant.trace(
        "echo.reports-what-it-received",
        promise: "echo's answer to a request with a body states the number of bytes it received",
        initial: ()
    ) { _, event in
        guard event.event == "http-response", let received = event["received"], let reported = event["reported"], received != reported else {
            return nil
        }
        return "\(event.actor) received \(received) bytes and answered that it got \(reported)"
    }
}
