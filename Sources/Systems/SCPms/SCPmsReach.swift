import Kernel
import Scenario

/// The outcomes of SCPms and its session manager worth reaching: a registration that had to be made again, or
/// that succeeded only after the server or the network failed; an administrator's delete that the store failed.
extension ReachPoint {
    static let scpmsReachPoints: [ReachPoint] = [
        reRegisteredAfterServerForgot, registeredAfterUnavailable, registeredAfterNetworkError, catalogueRead,
        deleteRetried, deleteFailed,
    ]

    static let reRegisteredAfterServerForgot = ReachPoint.then(
        "scpms.re-registered-after-server-forgot",
        outcome: "a client whose stored registration the server no longer knew registered again, and got a new id",
        actorKinds: ["scpms"], after: ["scpms-register-again"], then: "scpms-registered")

    static let registeredAfterUnavailable = ReachPoint.then(
        "scpms.registered-after-unavailable", outcome: "a client answered 503 by SCPms retried and then registered",
        actorKinds: ["scpms"], after: ["scpms-retry"], then: "scpms-registered")

    static let registeredAfterNetworkError = ReachPoint.then(
        "scpms.registered-after-network-error", outcome: "a client whose exchange with SCPms failed on the network later registered",
        actorKinds: ["scpms"], after: ["scpms-network-error"], then: "scpms-registered")

    static let catalogueRead = ReachPoint.event(
        "scpms.catalogue-read", outcome: "a registered client read an OData collection (status 200)", actorKinds: ["scpms"],
        event: "scpms-odata", where: { $0["status"] == "200" })

    static let deleteRetried = ReachPoint.sequence(
        "scpms.delete-retried", outcome: "an administrator's delete went through on the retry after the store failed it once",
        actorKinds: ["scpms"], events: ["store-write-failed", "registration-deleted"], initial: [String: String]()
    ) { attempts, event in
        guard let id = event["id"] else { return false }
        if event.event == "store-write-failed" {
            attempts[id] = event["attempt"]
            return false
        }
        return attempts.removeValue(forKey: id) == "1"
    }

    static let deleteFailed = ReachPoint.event(
        "scpms.delete-failed", outcome: "an administrator's delete failed in the store twice and was reported; the registration stayed",
        actorKinds: ["scpms"], event: "registration-delete-failed")
}
