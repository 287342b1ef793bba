import Kernel
import MiGServer
import Scenario
import SystemKit

/// What MiG and its print client promise in every run.
extension Invariant {
    static let migInvariants: [Invariant] = [
        acknowledgedJobSpooledOnce, acknowledgedJobSurvivesCrash, clientSuccessWasAccepted, onePrintPerSubmission,
    ]

    /// MiG answered "received" with sync-to-disk on: a crash of its node does not take the job back.
    static let acknowledgedJobSurvivesCrash = Invariant(
        name: "mig.acknowledged-job-survives-crash",
        promise: "a crash of its node loses no job a MiG with a database and sync-to-disk acknowledged: after the restart each is "
            + "in the spool with the document it acknowledged, not back to an upload never answered"
    ) { CrashedJobsChecker() }

    /// MiG answered "received" for a document: the job that holds it is in the spool, once, with that document.
    static let acknowledgedJobSpooledOnce = Invariant(
        name: "mig.acknowledged-job-spooled-once",
        promise: "every job whose document MiG acknowledged is in MiG's spool exactly once, holding the document it acknowledged"
    ) { SpooledJobsChecker() }

    /// The client says "submitted, job N" only after MiG took the whole document of job N.
    static let clientSuccessWasAccepted = Invariant.trace(
        "mig.client-success-was-accepted",
        promise: "a print client reports a job submitted only if MiG received that job's whole document",
        initial: Set<String>()
    ) { received, event in
        switch (event.actor, event.event) {
        case (_, "document-received"):
            if let job = event["job"] { received.insert(job) }
        case (_, "mig-client-job-submitted"):
            guard let job = event["job-id"] else { return "\(event.actor) reported a job submitted without a job id" }
            if !received.contains(job) { return "\(event.actor) reported job \(job) submitted, but MiG never received its document" }
        default: break
        }
        return nil
    }

    /// One `print` is one printout: a retry must never leave two jobs holding the same document.
    static let onePrintPerSubmission = Invariant.trace(
        "mig.one-print-per-submission",
        promise: "one print by a client leaves at most one job in MiG holding its document (a retry after a lost answer must not print twice)",
        initial: OnePrintState()
    ) { state, event in
        switch (event.actor, event.event) {
        case (_, "mig-client-request") where event["attempt"] == "1" && event["operation"] == "Print-Job":
            state.submissionStart[event.actor] = state.received.count
        case (_, "document-received"):
            if let job = event["job"], let digest = event["digest"] { state.received.append((job, digest)) }
        case (_, "mig-client-job-submitted"):
            guard let job = event["job-id"], let start = state.submissionStart.removeValue(forKey: event.actor),
                let digest = state.received.last(where: { $0.job == job })?.digest
            else { return nil }
            let others = state.received[start...].filter { $0.digest == digest && $0.job != job }.map(\.job)
            if !others.isEmpty {
                return "\(event.actor)'s one print left jobs \((others + [job]).joined(separator: ", ")) holding the same document "
                    + "(digest \(digest)): it will print \(others.count + 1) times"
            }
        default: break
        }
        return nil
    }

    struct OnePrintState: Sendable {
        /// Per client node: how many documents MiG had received when its current print began.
        var submissionStart: [String: Int] = [:]
        var received: [(job: String, digest: String)] = []
    }
}

/// Compares what MiG's trace acknowledged with what its spool holds, after every step.
final class SpooledJobsChecker: InvariantChecker {
    /// MiG node → job id → the digest prefix it acknowledged.
    private var acknowledged: [String: [String: String]] = [:]

    func check(_ newEvents: ArraySlice<Trace.Event>, in context: ScenarioContext) -> InvariantBreach? {
        var active: Set<String> = []
        for event in newEvents {
            active.insert(event.actor)
            if event.event == "document-received", let job = event["job"], let digest = event["digest"] {
                acknowledged[event.actor, default: [:]][job] = digest
            }
            // What a crashed MiG acknowledged is for mig.acknowledged-job-survives-crash (which knows what it promised);
            // the restarted MiG's spool answers for what it acknowledges from now on.
            if event.actor == "scenario", event.event == "crashed", let node = event["node"] { acknowledged[node] = nil }
        }
        // A spool changes only when its MiG works, and MiG traces its work: a node that traced nothing since the last
        // look has the spool it had then (reading it after every statement was a tenth of a swarm's time).
        for (node, jobsAcknowledged) in acknowledged.sorted(by: { $0.key < $1.key }) where active.contains(node) {
            guard let mig = context.startedActors.lazy.compactMap({ $0.actor as? RunningMiG }).first(where: { $0.server.node.name == node })
            else { continue }
            let jobs: [Job]
            do { jobs = try mig.server.jobs() } catch { return InvariantBreach("\(node)'s spool cannot be read: \(error)") }
            for (job, digest) in jobsAcknowledged.sorted(by: { $0.key < $1.key }) {
                let held = jobs.filter { String($0.id) == job }
                guard held.count == 1 else { return InvariantBreach("\(node) acknowledged job \(job) but its spool holds it \(held.count) times") }
                let spooled = String((held[0].documentDigest ?? "stored").prefix(16))
                if spooled != digest {
                    return InvariantBreach("\(node) acknowledged job \(job) with document \(digest) but its spool holds \(spooled)")
                }
            }
        }
        return nil
    }
}

/// Keeps, for each MiG node that crashed, the jobs it acknowledged before, when it promised they would survive a power
/// loss (a database and sync-to-disk), and looks for them in the spool of the MiG restarted there.
final class CrashedJobsChecker: InvariantChecker {
    /// Job id → the digest prefix acknowledged, by MiG node.
    private var promises = CrashPromises()

    func check(_ newEvents: ArraySlice<Trace.Event>, in context: ScenarioContext) -> InvariantBreach? {
        for event in newEvents {
            switch event.event {
            case "document-received":
                if let job = event["job"], let digest = event["digest"] { promises.acknowledge(job, digest, on: event.actor) }
            case "started":
                if let mig = Self.mig(on: event.actor, in: context) {
                    promises.started(on: event.actor, durable: mig.server.configuration.databasePath != nil && mig.server.configuration.syncToDisk)
                }
            default: promises.observe(event)
            }
        }
        for node in promises.owing {
            guard let mig = Self.mig(on: node, in: context) else { continue }  // not restarted yet
            let jobs = promises.take(node)
            let spool: [Job]
            do { spool = try mig.server.jobs() } catch { return InvariantBreach("\(node)'s spool cannot be read after its restart: \(error)") }
            for (job, digest) in jobs.sorted(by: { $0.key < $1.key }) {
                guard let held = spool.first(where: { String($0.id) == job }) else {
                    return InvariantBreach("\(node) acknowledged job \(job) before it crashed, and the restarted spool does not hold it")
                }
                let spooled = String((held.documentDigest ?? "stored").prefix(16))
                if held.awaitingDocuments || spooled != digest {
                    return InvariantBreach(
                        "\(node) acknowledged job \(job) (document \(digest)) before it crashed, and the restart found "
                            + (held.awaitingDocuments ? "an upload never answered (\(held.state))" : "document \(spooled)")
                            + ": the answer went out before the write it promised was durable")
                }
                // A spool on the simulated disk: the file itself must hold the bytes acknowledged, not only the record.
                let onDisk: String?
                do { onDisk = try mig.server.documentDigestOnDisk(of: held) } catch {
                    return InvariantBreach(
                        "\(node) acknowledged job \(job) before it crashed, and after the restart its document file is gone: \(error)")
                }
                if let onDisk, onDisk.prefix(16) != digest {
                    return InvariantBreach(
                        "\(node) acknowledged job \(job) (document \(digest)) before it crashed, and after the restart its document file "
                            + "holds \(onDisk.prefix(16)): the answer went out before the file was durable")
                }
            }
        }
        return nil
    }

    private static func mig(on node: String, in context: ScenarioContext) -> RunningMiG? {
        context.startedActors.lazy.compactMap { $0.actor as? RunningMiG }.first { $0.server.node.name == node }
    }
}
