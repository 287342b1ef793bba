import Kernel
import Scenario
import Testing

/// The language rejects malformed lines precisely, before anything runs.
@Suite struct ScenarioParsingTests {
    let language = ScenarioLanguage()

    func firstError(_ text: String) -> ScenarioError? {
        language.parse(file: "t.scn", text: text).1.first
    }

    @Test func unknownDirectiveSuggestsTheNearestOne() throws {
        let error = try #require(firstError("# comment\n\nadvanse 1s"))
        #expect(error.line == 3)
        #expect(error.column == 1)
        #expect(error.message.contains("unknown directive 'advanse'"))
        #expect(error.message.contains("did you mean 'advance'?"))
    }

    @Test func badDurationNamesTheColumnAndWhatWasExpected() throws {
        let error = try #require(firstError("advance 5 parsecs"))
        #expect(error.column == 9)
        #expect(error.message.contains("expected a duration like 250ms or 2s, found '5'"))
    }

    @Test func trailingWordsAreRejected() throws {
        let error = try #require(firstError("heal phone <-> echo now"))
        #expect(error.column == 21)
        #expect(error.message.contains("unexpected 'now'"))
    }

    @Test func missingArrowAndUnterminatedString() throws {
        #expect(try #require(firstError("partition phone echo")).message.contains("expected one of ->, <->, found 'echo'"))
        let unterminated = try #require(firstError("print \"no end"))
        #expect(unterminated.column == 7)
        #expect(unterminated.message.contains("unterminated string"))
    }

    @Test func everyErrorOfAFileIsReported() {
        let errors = language.parse(file: "t.scn", text: "advance\nfault x sometimes\nexpect 1 ~= 2\nlink a -> b latency uniform 3ms..1ms").1
        #expect(errors.map(\.line) == [1, 2, 3, 4])
        #expect(errors[0].message.contains("found end of line"))
        #expect(errors[1].message.contains("expected one of on, off, once, times, chance, after, found 'sometimes'"))
        #expect(errors[3].message.contains("MIN..MAX"))
    }

    @Test func badRegexIsCaughtAtParseTime() throws {
        let error = try #require(firstError("expect abc matches \"(unclosed\""))
        #expect(error.message.contains("expected a regular expression"))
    }
}

/// Running scenarios: outcomes, failure reports and determinism.
@Suite struct ScenarioRunningTests {
    let runner = ScenarioRunner(language: ScenarioLanguage(), catalog: [TestActors.echo, TestActors.leaky])

    func run(_ text: String, seed: UInt64 = 1) -> ScenarioRunner.Result {
        let (script, errors) = runner.language.parse(file: "t.scn", text: text)
        precondition(errors.isEmpty, "\(errors)")
        return runner.run(script, seed: seed) { _ in }
    }

    @Test func failedExpectationShowsExpectedActualAndLine() throws {
        let result = run("start echo\nhttp GET http://echo/ as r\nexpect ${r.status} == 404")
        #expect(!result.passed)
        let failure = try #require(result.failures.first)
        #expect(failure.line == 3)
        #expect(failure.failure == "expected ${r.status} == \"404\", actual \"200\"")
    }

    @Test func aRunWithDeterminismViolationsFailsEvenWhenEveryExpectationHolds() {
        let result = run("start leaky\nexpect 1 == 1")
        #expect(result.failures.isEmpty)
        #expect(!result.passed)
        #expect(result.error == "t.scn: determinism violations: work was submitted from a thread the kernel does not drive at t=0ns")
        #expect(run("start echo\nexpect 1 == 1").passed, "the same run without the leak passes")
    }

    @Test func aStepThatCannotRunStopsTheScenarioWithItsPlace() {
        let result = run("capture x from abc matching z\nadvance 1h")
        #expect(result.error?.hasPrefix("t.scn:1: capture: capture x: /z/ does not match") == true, "\(String(describing: result.error))")
        #expect(result.virtualTime == .zero, "nothing after the failing line runs")
    }

    @Test func sameSeedSameDigestDifferentSeedDifferentFaults() {
        let text = """
            start echo
            link phone <-> echo latency normal 20ms 5ms
            fault echo.unavailable chance 0.5
            http GET http://echo/ as a
            http GET http://echo/ as b
            http GET http://echo/ as c
            http GET http://echo/ as d
            http GET http://echo/ as e
            http GET http://echo/ as f
            let outcome = "${a.status}${b.status}${c.status}${d.status}${e.status}${f.status}"
            expect ${outcome} matches "^((200|503)){6}$"
            """
        let first = run(text, seed: 11)
        let again = run(text, seed: 11)
        #expect(first.passed)
        #expect(first.digest == again.digest)
        #expect(first.trace == again.trace)
        let statuses = Set(
            (1...8).map { seed in
                run(text, seed: UInt64(seed)).trace.split(separator: "\n").filter { $0.contains("\"http-response\"") }.joined()
            })
        #expect(statuses.count > 1, "seeded fault outcomes must change with the seed")
    }

    /// `crash`: the node's connections reset and its ports close at once; `restart` starts the actor again on it.
    @Test func aCrashResetsTheNodesConnectionsAndARestartServesAgain() {
        let result = run(
            """
            start echo
            connect c to echo:7
            expect ${c.status} == connected
            crash echo
            receive c within 1s as r
            expect ${r.error} != ""
            expect trace crashed by scenario actor=echo node=echo connections-reset=1 files-lost=0 files-torn=0
            expect trace reset by net
            http GET http://echo/ as gone
            expect ${gone.status} == error
            restart echo
            http GET http://echo/ as back
            expect ${back.status} == 200
            """)
        #expect(result.passed, "\(result.error ?? "") \(result.failures.map { $0.failure ?? "" })")
    }

    @Test func spawnAndJoinAroundAHeldPath() {
        let result = run(
            """
            start echo
            hold echo -> phone
            spawn later http GET http://echo/ as r
            advance 2s
            release echo -> phone
            join later
            expect ${r.status} == 200
            expect ${r.elapsed} == 2s
            """)
        #expect(result.passed, "\(result.failures) \(result.error ?? "")")
    }

    @Test func busOpenFollowsIOSSemantics() {
        let result = run(
            """
            start echo
            open "echo://ping" as handled
            open "nobody://x" as unhandled
            open "not a url" as invalid
            expect ${handled} == true
            expect ${unhandled} == false
            expect ${invalid} == false
            wait until trace url-received by echo url=echo://ping within 1s
            """)
        #expect(result.passed, "\(result.failures) \(result.error ?? "")")
    }
}
