import SCPmsServer
import Swarm
import Wire

/// The bugs `workbench swarm --planted` can give SCPms, each caught by an invariant.
extension PlantedBugEntry {
    static let scpms: [PlantedBugEntry] = [
        PlantedBugEntry(
            .scpmsIDFromDevice, system: "SCPms",
            summary: "registration ids come from the user and device, unique among live ones only: a deleted id is handed out again"),
        PlantedBugEntry(
            .scpmsDeleteErrorSwallowed, system: "SCPms",
            summary:
                "an administrator's delete whose store write fails twice (an internal error, and again on its retry) is reported done: the registration stays and its id still opens sessions"
        ),
        PlantedBugEntry(
            .scpmsRegisteredBeforeDurable, system: "SCPms",
            summary:
                "SCPms answers a registration 201 before the commit that holds it is synced: a crash of its node right after the answer loses the registration, and the app's id is refused",
            // The default workload keeps SCPms's registrations in memory, so the swarm never crashes it there.
            workload: "Simulations/scpms-durable-swarm.scn"),
    ]
}
