import Scenario
import SunfireHost
import Swarm
import SystemKit

/// NUS SOC Print's side of the world (original 001): Sunfire, the SSH print host, and mysoc, the site with the quota
/// page; the `sunfire` directive holds the host operators' knobs.
extension WorkbenchSystem {
    package static let sunfire = WorkbenchSystem(
        name: "Sunfire",
        actorKinds: [.sunfire, .mysoc],
        directives: [.ssh, .sunfire, .socprint],
        liveOptions: [
            "sunfire": ["port": "2222", "directory-port": "8389"],
            "mysoc": ["port": "9443", "directory": "sunfire:8389"],
        ],
        invariants: Invariant.sunfireInvariants,
        reachPoints: ReachPoint.sunfireReachPoints,
        traceEvents: WorkbenchSystem.sunfireTraceEvents,
        actorBenches: [SunfireBench.self],
        loadBench: .sunfire,
        fuzzSamples: FuzzSamples(
            addresses: ["sunfire:22"],
            hostile: ["disk-quota=9223372036854775807", "print-quota=-1", "max-auth-tries=0"]),
        timelineEvents: WorkbenchSystem.sunfireTimelineEvents,
        plantedBugs: PlantedBugEntry.sunfire,
        demoAccounts: DemoAccount.sunfire.map { ["sunfire": $0] } ?? [:]
    )
}

extension DemoAccount {
    /// The first of the print host's demo accounts.
    static let sunfire = UnixAccount.demo.first.map { DemoAccount(user: $0.user, password: $0.password) }
}
