import Kernel
import Scenario
import SystemKit

/// What IMS promises in every run.
extension Invariant {
    static let imsInvariants: [Invariant] = [jtiAcceptedOnce, sessionInsideWindow]

    /// A token is good for one session: a replayed jti is refused.
    static let jtiAcceptedOnce = Invariant.trace(
        "ims.jti-accepted-once",
        promise: "IMS never starts two sessions from tokens with the same jti",
        initial: [String: Set<String>]()
    ) { used, event in
        guard event.event == "session-started", let jti = event["jti"] else { return nil }
        if used[event.actor, default: []].contains(jti) { return "\(event.actor) started a second session from jti \(jti)" }
        used[event.actor, default: []].insert(jti)
        return nil
    }

    /// A session starts only from a token inside its window (nbf ≤ now + leeway, now − leeway < exp) on IMS's own
    /// clock — computed here from virtual time, the epoch and the node's skew, not taken from IMS's word.
    static let sessionInsideWindow = Invariant(
        name: "ims.session-inside-token-window",
        promise: "IMS starts a session only from a token whose nbf…exp window (with IMS's leeway) contains IMS's own clock, skew included"
    ) { SessionWindowChecker() }
}

final class SessionWindowChecker: InvariantChecker {
    private var skews: [String: Duration] = [:]
    private var leeways: [String: Int64] = [:]

    func check(_ newEvents: ArraySlice<Trace.Event>, in context: ScenarioContext) -> InvariantBreach? {
        for index in newEvents.indices {
            let event = newEvents[index]
            switch event.event {
            case "clock-skew" where event.actor == "scenario":
                if let node = event["node"], let skew = event["skew"].flatMap(DurationParser.parse) { skews[node] = skew }
            case "started":
                if let leeway = event["leeway"].flatMap({ Int64($0) }) { leeways[event.actor] = leeway }
            case "session-started":
                guard let leeway = leeways[event.actor], let nbf = event["nbf"].flatMap({ Int64($0) }),
                    let exp = event["exp"].flatMap({ Int64($0) })
                else { continue }
                let clock = context.kernel.epoch + .nanoseconds(event.nanoseconds) + (skews[event.actor] ?? .zero)
                let now = clock.components.seconds
                if !(nbf <= now + leeway && now - leeway < exp) {
                    return InvariantBreach(
                        "\(event.actor) started a session (jti \(event["jti"] ?? "?")) at its time \(now), outside the token's window "
                            + "nbf \(nbf) … exp \(exp) with leeway \(leeway) s", event: index)
                }
            default: break
            }
        }
        return nil
    }
}
