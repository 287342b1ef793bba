import Kernel
import Testing

@testable import Scenario

/// The behaviours guided exploration counts: an actor's event with the field that tells its outcomes apart, and the
/// statement each first appeared in.
@Suite struct BehaviourTests {
    @Test func anEventCountsWithItsFirstTellingFieldAndFreeTextDoesNot() {
        let trace = Trace(clock: { 0 })
        trace.record(actor: "mig", event: "fault-fired", fields: [("point", "mig.busy")])
        trace.record(actor: "ims", event: "token-rejected", fields: [("jti", "j1"), ("reason", "not-yet-valid"), ("status", "401")])
        trace.record(actor: "mig", event: "job-created", fields: [("job", "7")])
        trace.record(actor: "mig", event: "http-response", fields: [("reason", String(repeating: "x", count: 49))])
        trace.record(actor: "scenario", event: "section", fields: [("title", "MiG")])
        let behaviours = trace.all.map(Behaviour.of)
        #expect(
            behaviours == [
                "mig fault-fired point=mig.busy", "ims token-rejected reason=not-yet-valid", "mig job-created", "mig http-response", nil,
            ])
    }

    @Test func eachBehaviourKeepsTheStatementItFirstAppearedIn() {
        let trace = Trace(clock: { 0 })
        for (actor, event) in [("a", "x"), ("a", "y"), ("b", "x"), ("a", "x"), ("a", "z"), ("a", "w")] {
            trace.record(actor: actor, event: event, fields: [])
        }
        // Statement 0 ended after 2 events, statement 1 after 4, statement 2 after 5; the sixth came after the last.
        let seen = Behaviour.firstSeen(in: trace.all, statementEnds: [2, 4, 5], by: Behaviour.of)
        #expect(seen == ["a x": 0, "a y": 0, "b x": 1, "a z": 2, "a w": 2])
        #expect(Behaviour.firstSeen(in: trace.all, statementEnds: [], by: Behaviour.of) == ["a x": 0, "a y": 0, "b x": 0, "a z": 0, "a w": 0])
    }
}
