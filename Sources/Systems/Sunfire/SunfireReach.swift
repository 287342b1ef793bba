import Kernel
import Scenario

/// The outcomes of Sunfire and the SOC Print app worth reaching: a quota that ran out, a print that failed and a
/// later one that went through, an upload cut short.
extension ReachPoint {
    static let sunfireReachPoints: [ReachPoint] = [quotaRefused, printedAfterFailure, uploadFailed, jobPrinted]

    static let quotaRefused = ReachPoint.event(
        "sunfire.quota-refused", outcome: "Sunfire's spooler dropped a job because its owner's print quota was exhausted",
        actorKinds: ["sunfire"], event: "job-dropped", where: { $0["reason"]?.contains("quota") == true })

    static let printedAfterFailure = ReachPoint.then(
        "sunfire.printed-after-failure", outcome: "a SOC Print print failed, and a later one from the same app went through",
        actorKinds: ["sunfire"], after: ["print-finished"], where: { $0["status"] == "failed" }, then: "print-finished",
        where: { $0["status"] == "printed" })

    static let uploadFailed = ReachPoint.event(
        "sunfire.upload-failed", outcome: "a SOC Print print failed while uploading the document to Sunfire", actorKinds: ["sunfire"],
        event: "print-finished", where: { $0["status"] == "failed" && $0["step"]?.hasPrefix("Uploading") == true })

    static let jobPrinted = ReachPoint.event(
        "sunfire.job-printed", outcome: "Sunfire's spooler printed a job and charged its owner's quota", actorKinds: ["sunfire"],
        event: "job-printed")
}
