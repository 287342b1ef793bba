import Scenario

/// The demo system: one echo actor, no directives of its own, no bench.
extension WorkbenchSystem {
    static let echo = WorkbenchSystem(
        name: "Echo",
        actorKinds: [.echo],
        liveOptions: ["echo": ["tcp-port": "7007", "http-port": "8080"]]
    )
}
