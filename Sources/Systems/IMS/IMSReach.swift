import Kernel
import Scenario
import SystemKit

/// The outcomes of IMS, its signer and the SDK worth reaching: a refresh that came after the token had expired, a
/// signer that answered on a retry, a session after a rejected token.
extension ReachPoint {
    static let imsReachPoints: [ReachPoint] = [tokenRefreshedAfterExpiry, signedOnRetry, sessionAfterRejectedToken]

    /// The SDK refreshes ahead of expiry; after a pause longer than the token's life (or a skewed clock) the refresh
    /// comes when the previous session's token has already expired, by the run's calendar (virtual time past the
    /// epoch). A refresh is traced after its new session is ready, so the previous session is the one before.
    static let tokenRefreshedAfterExpiry = ReachPoint.sequence(
        "ims.token-refreshed-after-expiry", outcome: "the IMS SDK refreshed its session when the previous token had already expired",
        actorKinds: ["ims"], events: ["session-ready", "token-refreshed"], initial: [String: [Int64]]()
    ) { sessions, event in
        if event.event == "session-ready" {
            if let exp = event["exp"].flatMap({ Int64($0) }) { sessions[event.actor] = Array((sessions[event.actor] ?? []).suffix(1)) + [exp] }
            return false
        }
        guard let expiries = sessions[event.actor], expiries.count == 2 else { return false }
        return Kernel.defaultEpoch.components.seconds + event.nanoseconds / 1_000_000_000 >= expiries[0]
    }

    static let signedOnRetry = ReachPoint.then(
        "ims.signed-on-retry", outcome: "the IMS SDK's signing request failed, was retried, and a signed token came back",
        actorKinds: ["ims"], after: ["signing-retry"], then: "token-received")

    static let sessionAfterRejectedToken = ReachPoint.then(
        "ims.session-after-rejected-token", outcome: "IMS rejected a token (expired, not yet valid, replayed…) and later started a session",
        actorKinds: ["ims"], after: ["token-rejected"], then: "session-started")
}
