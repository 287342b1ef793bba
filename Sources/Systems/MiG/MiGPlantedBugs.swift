import IPP
import MiGClient
import MiGServer
import Swarm
import Wire

/// The bugs `workbench swarm --planted` can give MiG and its print client, each caught by an invariant.
extension PlantedBugEntry {
    static let mig: [PlantedBugEntry] = [
        PlantedBugEntry(
            .migStatusIgnored, system: "MiG",
            summary:
                "the print client takes a Print-Job answer that names a job for success, whatever its IPP status: an aborted job is reported submitted"
        ),
        PlantedBugEntry(
            .migLostAnswerRepeated, system: "MiG",
            summary:
                "the print client sends a Print-Job again after its answer was lost, as if it were a read: MiG may have queued it already, so it prints twice"
        ),
        PlantedBugEntry(
            .migBusyAfterQueueing, system: "MiG",
            summary: "MiG answers server-error-busy after it queued the job and took its document: the client's retry prints twice"),
        PlantedBugEntry(
            .migAcknowledgedBeforeDurable, system: "MiG",
            summary:
                "MiG acknowledges a job before the commit that holds it is synced, whatever sync-to-disk promises: a crash of its node right after the answer loses the job",
            // The default workload keeps MiG's spool in memory, so the swarm never crashes it there.
            workload: "Simulations/mig-durable-swarm.scn"),
        PlantedBugEntry(
            .migStoppedForGood, system: "MiG",
            summary:
                "the printer re-arms its sensor poll only when it has just stopped: a device fault still there at its next look leaves it stopped for good, and no job prints after the faults heal"
        ),
    ]
}

extension PlantedBug {
    /// The print client takes a Print-Job answer that names a job for success, whatever its IPP status.
    static let migStatusIgnored = PlantedBug("mig.status-ignored")
    /// The print client sends a Print-Job again after its answer was lost, as if it were a read: a second job.
    static let migLostAnswerRepeated = PlantedBug("mig.lost-answer-repeated")
}

extension MiGClient.AnswerPolicy {
    /// The answer policy of a print client on `node`: the standard one, but for the misreadings planted there.
    static func planted(on node: Node) -> Self {
        var policy = Self.standard
        if node.planted(.migStatusIgnored) {
            policy.acceptsUnsuccessfulPrintJob = { answer in answer.group(.job)?.jobID ?? answer.jobID != nil }
        }
        if node.planted(.migLostAnswerRepeated) { policy.repeatsUnansweredChange = true }
        return policy
    }
}
