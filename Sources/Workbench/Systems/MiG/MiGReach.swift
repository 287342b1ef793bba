import Kernel
import Scenario

/// The outcomes of MiG and its print client worth reaching under faults: each shows a path the happy path never
/// takes (a hold, a retry, a printer that stopped) taken to its end.
extension ReachPoint {
    static let migReachPoints: [ReachPoint] = [
        heldThenCompleted, retryAfterLostAnswer, lostAnswerNotRepeated, busyThenSubmitted, printerStoppedThenResumed, uploadAbandoned, jobAborted,
    ]

    /// A job held from its creation (job-hold-until) is traced only when it is released; one held later, when held.
    static let heldThenCompleted = ReachPoint.sequence(
        "mig.job-held-then-completed", outcome: "a job MiG held (job-hold-until, Hold-Job) was released and printed to completion",
        actorKinds: ["mig"], events: ["job-held", "job-released", "job-completed"], initial: Set<String>()
    ) { held, event in
        guard let job = event["job"] else { return false }
        if event.event != "job-completed" { held.insert("\(event.actor) \(job)") }
        return event.event == "job-completed" && held.contains("\(event.actor) \(job)")
    }

    /// Only a request safe to repeat (a read such as Get-Job-Attributes) is sent again after a lost answer; a print
    /// whose answer was lost fails with `answer-lost` instead (it may have printed).
    static let retryAfterLostAnswer = ReachPoint.sequence(
        "mig.retry-after-lost-answer",
        outcome: "a MiG client whose request went out whole but whose answer was lost asked again (a request safe to repeat) and got an answer",
        actorKinds: ["mig"], events: ["mig-client-retry", "mig-client-response"], initial: Set<String>()
    ) { retried, event in
        if event.event == "mig-client-retry" {
            if event["reason"] == "answer-lost" { retried.insert(event.actor) }
            return false
        }
        return retried.contains(event.actor)
    }

    /// The other side of a lost answer: a print (or any request that changes the spool) is not sent again.
    static let lostAnswerNotRepeated = ReachPoint.event(
        "mig.lost-answer-not-repeated",
        outcome: "a MiG client whose print went out whole but whose answer was lost did not send it again (it may have printed) and said so",
        actorKinds: ["mig"], event: "mig-client-not-repeated")

    static let busyThenSubmitted = ReachPoint.sequence(
        "mig.busy-then-submitted", outcome: "a print client told 'server-error-busy' waited, retried, and its print was submitted",
        actorKinds: ["mig"], events: ["mig-client-retry", "mig-client-job-submitted"], initial: Set<String>()
    ) { retried, event in
        if event.event == "mig-client-retry" {
            if event["reason"]?.contains("busy") == true { retried.insert(event.actor) }
            return false
        }
        return retried.contains(event.actor)
    }

    static let printerStoppedThenResumed = ReachPoint.sequence(
        "mig.printer-stopped-then-resumed", outcome: "MiG's printer stopped on a device fault (no paper, jam…) and resumed the job",
        actorKinds: ["mig"], events: ["printer-stopped", "printer-resumed"], initial: Set<String>()
    ) { stopped, event in
        if event.event == "printer-stopped" { stopped.insert(event.actor) }
        return event.event == "printer-resumed" && stopped.contains(event.actor)
    }

    static let uploadAbandoned = ReachPoint.event(
        "mig.upload-abandoned", outcome: "MiG gave up a document upload the client stopped sending (the job is not printed)",
        actorKinds: ["mig"], event: "upload-abandoned")

    static let jobAborted = ReachPoint.event(
        "mig.job-aborted", outcome: "MiG's printer aborted a job (job-abort fault), and the job ended aborted", actorKinds: ["mig"],
        event: "job-aborted")
}
