import Scenario
import Swarm
import SystemKit

/// Ivanti: the client app (`ivanti …` knobs) and an app using the AppConnect module (`appconnect …`).
extension WorkbenchSystem {
    package static let ivanti = WorkbenchSystem(
        name: "Ivanti",
        actorKinds: [.ivanti],
        directives: [.ivanti, .appConnect],
        liveOptions: ["ivanti": ["bus-port": "9084"]],
        invariants: Invariant.ivantiInvariants,
        reachPoints: ReachPoint.ivantiReachPoints,
        traceEvents: WorkbenchSystem.ivantiTraceEvents,
        loadBench: .ivanti,
        plantedBugs: PlantedBugEntry.ivanti
    )
}
