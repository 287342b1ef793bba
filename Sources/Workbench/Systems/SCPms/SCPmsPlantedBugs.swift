import SCPmsServer
import Swarm
import Wire

/// The bug `workbench swarm --planted` can give SCPms, caught by an invariant.
extension PlantedBugEntry {
    static let scpms: [PlantedBugEntry] = [
        PlantedBugEntry(
            .scpmsIDFromDevice, system: "SCPms",
            summary: "registration ids come from the user and device, unique among live ones only: a deleted id is handed out again")
    ]
}
