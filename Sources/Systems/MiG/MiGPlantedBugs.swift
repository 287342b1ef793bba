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
            .migLostAnswerRepeatedAfterBusy, system: "MiG",
            summary:
                "once MiG answered server-error-busy, the print client takes the Print-Job's later attempts for refused ones too: an answer lost after the busy one is sent again, and the job prints twice (two faults, in that order)"
        ),
        PlantedBugEntry(
            .migBusyAfterQueueing, system: "MiG",
            summary: "MiG answers server-error-busy after it queued the job and took its document: the client's retry prints twice"),
        PlantedBugEntry(
            .migAnswerNamesNewestJob, system: "MiG",
            summary:
                "MiG answers an upload with the job it created last, kept printer-wide: when two clients' uploads overlap, the first client is told the second's job (two clients racing)",
            // The default workload prints from one client at a time.
            workload: "Simulations/mig-two-clients-swarm.scn"),
        PlantedBugEntry(
            .migAcknowledgedBeforeDurable, system: "MiG",
            summary:
                "MiG acknowledges a job before the commit that holds it is synced, whatever sync-to-disk promises: a crash of its node right after the answer loses the job",
            // The default workload keeps MiG's spool in memory, so the swarm never crashes it there.
            workload: "Simulations/mig-durable-swarm.scn"),
        PlantedBugEntry(
            .migDocumentLeftUnsynced, system: "MiG",
            summary:
                "with sync-to-disk, MiG syncs a job's record before it answers but leaves the document's file to the OS: a crash after the answer keeps a record naming a file the disk lost",
            workload: "Simulations/mig-durable-swarm.scn"),
        PlantedBugEntry(
            .migCommitWithoutJournal, system: "MiG",
            summary:
                "MiG's job database commits without SQLite's rollback journal, its pages written in place: a power cut during a commit that tears a page leaves the database half written (a commit lost whole leaves it as it was: only a torn write shows it)",
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
    /// Once MiG answered a Print-Job server-error-busy, the print client takes every later attempt of it for one MiG
    /// refused: a lost answer after the busy one is sent again, and MiG may have queued it.
    static let migLostAnswerRepeatedAfterBusy = PlantedBug("mig.lost-answer-repeated-after-busy")
}

extension MiGClient.AnswerPolicy {
    /// The answer policy of a print client on `node`: the standard one, but for the misreadings planted there.
    static func planted(on node: Node) -> Self {
        var policy = Self.standard
        if node.planted(.migStatusIgnored) {
            policy.acceptsUnsuccessfulPrintJob = { answer in answer.group(.job)?.jobID ?? answer.jobID != nil }
        }
        if node.planted(.migLostAnswerRepeated) {
            policy.repeatsUnansweredChange = { _ in true }
        } else if node.planted(.migLostAnswerRepeatedAfterBusy) {
            policy.repeatsUnansweredChange = { answeredBusyBefore in answeredBusyBefore }
        }
        return policy
    }
}
