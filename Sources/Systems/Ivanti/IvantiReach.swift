import Kernel
import Scenario

/// The outcomes of the Ivanti client and the AppConnect apps worth reaching: a credential vaulted, refused, renewed.
extension ReachPoint {
    static let ivantiReachPoints: [ReachPoint] = [credentialStored, credentialRejected, credentialRenewed]

    static let credentialStored = ReachPoint.event(
        "ivanti.credential-stored", outcome: "the Ivanti client vaulted a derived credential an app sent", actorKinds: ["ivanti"],
        event: "credential-stored")

    static let credentialRejected = ReachPoint.event(
        "ivanti.credential-rejected", outcome: "the Ivanti client refused a derived credential, with its problem code",
        actorKinds: ["ivanti"], event: "credential-rejected")

    static let credentialRenewed = ReachPoint.then(
        "ivanti.credential-renewed", outcome: "the Ivanti client asked an app to renew its credential, and vaulted the new one",
        actorKinds: ["ivanti"], after: ["renewal-requested"], then: "credential-stored", sameKey: { $0["app"] })
}
