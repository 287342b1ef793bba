import SCPmsServer
import Scenario
import Swarm
import SystemKit

/// SAP Mobile Services: the registration endpoint, the app's session manager and admin knobs (`scpms …`),
/// and the endpoint's bench.
extension WorkbenchSystem {
    package static let scpms = WorkbenchSystem(
        name: "SCPms",
        actorKinds: [.scpms],
        directives: [.scpms],
        liveOptions: ["scpms": ["port": "9083", "tls-port": "9086"]],
        invariants: Invariant.scpmsInvariants,
        reachPoints: ReachPoint.scpmsReachPoints,
        traceEvents: WorkbenchSystem.scpmsTraceEvents,
        actorBenches: [SCPmsBench.self],
        loadBench: .scpms,
        plantedBugs: PlantedBugEntry.scpms,
        demoAccounts: ["scpms": .scpms]
    )
}

extension DemoAccount {
    /// The account SCPms's default configuration registers devices with.
    static let scpms = DemoAccount(user: SCPmsServer.Configuration().user, password: SCPmsServer.Configuration().password)
}
