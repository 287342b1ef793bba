import EchoServer
import Kernel
import Scenario
import Testing

/// Reach points (declared ones and `sometimes` lines) counted outside the trace, checked names, and `after heal`
/// ending every fault of the world.
@Suite struct ReachTests {
    static let answered = ReachPoint.event(
        "echo.answered-503", outcome: "the echo server answered 503", actorKinds: ["echo"], event: "http-response",
        where: { $0["status"] == "503" })
    static let partitionedThenAnswered = ReachPoint.sequence(
        "echo.answered-after-partition", outcome: "the echo server answered after a partition", actorKinds: ["echo"],
        events: ["partition", "http-response"], initial: false
    ) { partitioned, event in
        if event.event == "partition" { partitioned = true }
        return event.event == "http-response" && partitioned
    }
    static let other = ReachPoint.event("other.ran", outcome: "another system ran", actorKinds: ["other"], event: "started")
    static let echo = ActorKind(name: "echo", summary: "echo", defaultHost: "echo", faultPoints: [EchoServer.unavailableFault]) { node, _ in
        TestActors.Running(server: try await EchoServer.start(on: node).get())
    }

    let runner = ScenarioRunner(
        language: ScenarioLanguage(actorKinds: [Self.echo], reachPoints: [Self.answered, Self.partitionedThenAnswered, Self.other]),
        catalog: [Self.echo])

    func script(_ text: String) throws -> Script {
        let (script, errors) = runner.language.parse(file: "dir/t.scn", text: text)
        try #require(errors.isEmpty, "\(errors.map(\.message))")
        return script
    }

    func errors(_ text: String) -> [String] {
        runner.language.parse(file: "t.scn", text: text).1.map { "\($0.line):\($0.column) \($0.message)" }
    }

    @Test func reachedPointsAreOnTheResultAndOutOfTheTrace() throws {
        let text = """
            start echo
            fault echo.unavailable once
            http GET http://echo/ as r
            sometimes ${r.status} == 503 as refused
            sometimes ${r.status} == 200 as served
            sometimes ${echo.nothing} == 1 as unreadable
            sometimes ${r.status} in 200 503
            """
        let result = runner.run(try script(text), seed: 1) { _ in }
        #expect(result.passed, "a sometimes never fails a run, not even one it cannot check")
        #expect(result.reached == ["echo.answered-503", "refused", "t.scn:7"])
        #expect(
            runner.language.reachPoints(in: try script(text)) == [
                "echo.answered-503", "echo.answered-after-partition", "refused", "served", "t.scn:7", "unreadable",
            ])
        let without = runner.run(try script(text.split(separator: "\n").filter { !$0.hasPrefix("sometimes") }.joined(separator: "\n")), seed: 1) {
            _ in
        }
        #expect(without.digest == result.digest, "reaching points records nothing in the trace")
    }

    @Test func aPointIsInPlayOnlyWhereItsActorKindIsStarted() throws {
        #expect(runner.language.reachPoints(in: try script("advance 1s\nsometimes 1 == 1 as mine")) == ["mine"])
    }

    @Test func expectReachedChecksAPointSoFar() throws {
        let result = runner.run(
            try script(
                """
                start echo
                expect reached echo.answered-after-partition
                partition phone -> echo for 1s
                http GET http://echo/ as r
                expect reached echo.answered-after-partition
                sometimes ${r.status} == 200 as served
                expect reached served
                """), seed: 1
        ) { _ in }
        #expect(result.failures.map(\.line) == [2])
        #expect(result.failures.first?.failure == "expected reach point echo.answered-after-partition reached, it was not; reached so far: none")
    }

    @Test func unknownReachNamesAreRefusedBeforeAnythingRuns() {
        #expect(
            errors("start echo\nexpect reached echo.answred-503") == [
                "2:16 no reach point 'echo.answred-503' (did you mean 'echo.answered-503'?); expected a declared point ('workbench reach' lists them) "
                    + "or the label of a 'sometimes … as LABEL' line of this file"
            ])
        #expect(
            errors("expect reached servd\nsometimes 1 == 1 as served").first?.hasPrefix("1:16 no reach point 'servd' (did you mean 'served'?)")
                == true)
        #expect(
            errors("sometimes 1 == 1 as echo.answered-504") == [
                "1:21 no reach point 'echo.answered-504' (did you mean 'echo.answered-503'?); names under 'echo.' are echo's declared points: "
                    + "echo.answered-503, echo.answered-after-partition ('workbench reach' lists them all)"
            ])
        #expect(errors("sometimes 1 == 1 as echo.answered-503").first?.contains("is a declared reach point") == true)
        #expect(errors("sometimes as x") == ["1:11 expected a condition after 'sometimes', like ${p.status} == ok"])
        #expect(errors("sometimes 1 === 1").first?.hasPrefix("1:13 expected one of ==") == true)
        #expect(!errors("after heal within").isEmpty && !errors("after heal within 1s now").isEmpty)
        #expect(errors("after heel").first?.hasPrefix("1:7 expected 'heal'") == true)
    }

    @Test func afterHealEndsEveryFaultAndDropsThoseStillToCome() throws {
        let result = runner.run(
            try script(
                """
                start echo
                partition phone <-> echo
                fault echo.unavailable on
                clock echo skew +5m
                link phone <-> echo latency 2s
                later 3s partition phone -> echo
                after heal within 1m
                http GET http://echo/ as r
                expect ${r.status} == 200
                expect ${r.elapsed} < 1s
                advance 10s
                expect trace later-dropped directive=partition
                expect trace after-heal links=2 clocks=1 points=1 within=1m
                """), seed: 1
        ) { _ in }
        #expect(result.passed, "\(result.failures.map { $0.failure ?? "" }) \(result.error ?? "")")
    }

    @Test func aRunThatDoesNotRecoverInTimeFails() throws {
        let result = runner.run(try script("after heal within 1s\nadvance 500ms\nadvance 1s\nadvance 1h"), seed: 1) { _ in }
        #expect(
            result.error
                == "dir/t.scn:3: advance: the world did not recover: this step ended more than 1s after 'after heal' (line 1), "
                + "the virtual time the rest of the run was given")
        #expect(result.virtualTime == .milliseconds(1_500), "nothing runs after it")
    }
}
