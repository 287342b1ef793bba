import Sunfire
import Swarm
import Wire

/// The bug `workbench swarm --planted` can give Sunfire, caught by an invariant.
extension PlantedBugEntry {
    static let sunfire: [PlantedBugEntry] = [
        PlantedBugEntry(
            .sunfireQuotaAnyLeft, system: "Sunfire",
            summary: "the spooler prints a job while any quota is left, not enough for it: the quota goes negative")
    ]
}
