import Scenario
import Swarm
import SystemKit

/// IMS DriveSync token signing (original 004): the host's signing back end, IMS's verifier, the `ims` directives
/// that drive the IMS SDK from the phone, and the bench of the JWT core.
extension WorkbenchSystem {
    package static let ims = WorkbenchSystem(
        name: "IMS",
        actorKinds: [.imsSigner, .ims],
        directives: [.ims],
        liveOptions: [
            "ims-signer": ["port": "9081", "enrol": "14"],
            "ims": ["port": "9082", "host-certificate": "Fixtures/ims/host.pem", "enrol": "14"],
        ],
        invariants: Invariant.imsInvariants,
        reachPoints: ReachPoint.imsReachPoints,
        traceEvents: WorkbenchSystem.imsTraceEvents,
        coreBenches: [JWTBench.self],
        loadBench: .ims,
        fuzzSamples: FuzzSamples(hostile: ["leeway=99999999h"]),
        plantedBugs: PlantedBugEntry.ims
    )
}
