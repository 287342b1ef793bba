import Kernel
import Scenario

/// The outcomes of MiG and its print client worth reaching under faults: each shows a path the happy path never
/// takes (a hold, a retry, a printer that stopped) taken to its end.
extension ReachPoint {
    static let migReachPoints: [ReachPoint] = [
        heldThenCompleted, retryAfterLostAnswer, lostAnswerNotRepeated, busyThenSubmitted, printerStoppedThenResumed, uploadAbandoned, jobAborted,
    ]

    /// A job held from its creation (job-hold-until) is traced only when it is released; one held later, when held.
    static let heldThenCompleted = ReachPoint.then(
        "mig.job-held-then-completed", outcome: "a job MiG held (job-hold-until, Hold-Job) was released and printed to completion",
        actorKinds: ["mig"], after: ["job-held", "job-released"], then: "job-completed",
        sameKey: { event in event["job"].map { "\(event.actor) \($0)" } })

    /// Only a request safe to repeat (a read such as Get-Job-Attributes) is sent again after a lost answer; a print
    /// whose answer was lost fails with `answer-lost` instead (it may have printed).
    static let retryAfterLostAnswer = ReachPoint.then(
        "mig.retry-after-lost-answer",
        outcome: "a MiG client whose request went out whole but whose answer was lost asked again (a request safe to repeat) and got an answer",
        actorKinds: ["mig"], after: ["mig-client-retry"], where: { $0["reason"] == "answer-lost" }, then: "mig-client-response")

    /// The other side of a lost answer: a print (or any request that changes the spool) is not sent again.
    static let lostAnswerNotRepeated = ReachPoint.event(
        "mig.lost-answer-not-repeated",
        outcome: "a MiG client whose print went out whole but whose answer was lost did not send it again (it may have printed) and said so",
        actorKinds: ["mig"], event: "mig-client-not-repeated")

    static let busyThenSubmitted = ReachPoint.then(
        "mig.busy-then-submitted", outcome: "a print client told 'server-error-busy' waited, retried, and its print was submitted",
        actorKinds: ["mig"], after: ["mig-client-retry"], where: { $0["reason"]?.contains("busy") == true }, then: "mig-client-job-submitted")

    static let printerStoppedThenResumed = ReachPoint.then(
        "mig.printer-stopped-then-resumed", outcome: "MiG's printer stopped on a device fault (no paper, jam…) and resumed the job",
        actorKinds: ["mig"], after: ["printer-stopped"], then: "printer-resumed")

    static let uploadAbandoned = ReachPoint.event(
        "mig.upload-abandoned", outcome: "MiG gave up a document upload the client stopped sending (the job is not printed)",
        actorKinds: ["mig"], event: "upload-abandoned")

    static let jobAborted = ReachPoint.event(
        "mig.job-aborted", outcome: "MiG's printer aborted a job (job-abort fault), and the job ended aborted", actorKinds: ["mig"],
        event: "job-aborted")
}
