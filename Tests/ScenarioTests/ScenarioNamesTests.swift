import EchoServer
import Foundation
import Kernel
import Scenario
import Testing
import Wire

/// What a scenario names is checked against what exists before anything runs: fault points against the catalog's,
/// hosts against the scenario's nodes, option values against their declarations, durations against their sign.
@Suite struct ScenarioNamesTests {
    static let echo = ActorKind(
        name: "echo", summary: "echo", defaultHost: "echo",
        options: [
            ActorOption("tcp-port", "a port") { Int($0).map { (0...65_535).contains($0) } == true ? nil : "option tcp-port=\($0): expected a port" }
        ],
        faultPoints: [EchoServer.unavailableFault]
    ) { node, _ in TestActors.Running(server: try await EchoServer.start(on: node).get()) }
    static let other = ActorKind(name: "other", summary: "another system", defaultHost: "other", faultPoints: ["other.down"]) { _, _ in
        TestActors.Nothing()
    }

    let language = ScenarioLanguage(actorKinds: [Self.echo, Self.other])

    func errors(_ text: String) -> [ScenarioError] { language.parse(file: "t.scn", text: text).1 }

    @Test func aMisspelledFaultPointIsRefusedWithTheNearestOne() throws {
        let error = try #require(errors("start echo\nfault echo.unavilable on").first)
        #expect((error.line, error.column) == (2, 7))
        #expect(
            error.message
                == "no fault point 'echo.unavilable' (did you mean 'echo.unavailable'?); echo's points: echo.unavailable ('help fault' lists them all)"
        )
    }

    @Test func aFaultPointOfNoSystemNamesTheSystemsThatHaveSome() throws {
        let error = try #require(errors("fault printer.offline on").first)
        #expect(error.message.contains("no system's points start with 'printer.'; systems with fault points: echo, other"))
    }

    @Test func hostsMustBeNodesOfTheScenarioWhereverTheyAreNamed() {
        let found = errors(
            """
            start echo
            http GET http://echo/ as r
            partition phone <-> printhost
            later 2s hold phone -> ehco for 1s
            clock phnoe skew +5m
            link phone <-> echo latency 10ms
            """)
        #expect(
            found.map { "\($0.line):\($0.column) \($0.message)" } == [
                "3:21 no node 'printhost'; its nodes: echo, phone",
                "4:24 no node 'ehco' (did you mean 'echo'?); its nodes: echo, phone",
                "5:7 no node 'phnoe' (did you mean 'phone'?); its nodes: echo, phone",
            ])
    }

    @Test func anActorALineActsOnMustBeStartedByTheScenario() throws {
        let error = try #require(errors("start echo as e1\nstop e2").first)
        #expect((error.line, error.column) == (2, 6))
        #expect(error.message == "no actor 'e2' (did you mean 'e1'?); its actors: e1 ('start KIND [as NAME]' starts one)")
        #expect(errors("start echo as e1\nstop e1").isEmpty)
        let crashed = try #require(errors("start echo as e1\ncrash e2").first)
        #expect((crashed.line, crashed.column) == (2, 7))
        #expect(crashed.message == "no actor 'e2' (did you mean 'e1'?); its actors: e1 ('start KIND [as NAME]' starts one)")
        #expect(errors("start echo as e1\ncrash e1\nrestart e1").isEmpty)
        #expect(errors("start echo\ncrash echo\nstart echo").isEmpty, "a crashed actor may start again")
    }

    /// `expect no trace … by NAME` with a misspelt NAME would pass on nothing: the author must be a node of the
    /// scenario, or the kernel's network, bus or scenario runner. An actor records as its node, so an actor's own name
    /// (`start echo as e1` runs on node `echo`) is refused with the node to write.
    @Test func theAuthorOfAnExpectedTraceEventMustExist() throws {
        let error = try #require(errors("start echo as e1\nexpect no trace stopped by ecco").first)
        #expect((error.line, error.column) == (2, 28))
        #expect(error.message.hasPrefix("no node 'ecco' records trace events (did you mean 'echo'?); the scenario's: "))
        #expect(errors("start echo as e1\nexpect trace started by echo\nexpect no trace reset by net").isEmpty)
        let actor = try #require(errors("start echo as e1\nexpect no trace stopped by e1").first)
        #expect((actor.line, actor.column) == (2, 28))
        #expect(actor.message == "the actor 'e1' records its trace events as its node 'echo': expected 'by echo'")
        #expect(errors("start echo as e1 on mirror\nexpect no trace stopped by mirror").isEmpty)
    }

    @Test func aNodeMayBeNamedBeforeTheLineThatCreatesIt() {
        #expect(errors("partition laptop <-> mirror for 1s\nstart echo as e on mirror\nhttp GET http://mirror/ from laptop as r").isEmpty)
    }

    @Test func durationsAreNotNegativeExceptAnOffset() throws {
        for line in ["advance -5s", "later -1s fault echo.unavailable on", "partition phone <-> echo for -2s", "receive c within -1s"] {
            let error = try #require(errors("start echo\nconnect c to echo:7\n" + line).first, "\(line)")
            #expect(error.message.contains("a duration cannot be negative (0s is the shortest)"), "\(line): \(error.message)")
        }
        #expect(errors("start echo\nadvance 0s\nclock echo skew -2m").isEmpty)
    }

    @Test func optionValuesAreCheckedWhenTheLineIsRead() throws {
        let error = try #require(errors("start echo tcp-port=70000").first)
        #expect((error.column, error.message) == (12, "echo: option tcp-port=70000: expected a port"))
        #expect(errors("let p = 7\nstart echo tcp-port=${p}").isEmpty, "a value from a variable is checked when the actor starts")
    }

    @Test func aSecondStartOfARunningNameIsRefusedWhenRead() throws {
        let error = try #require(errors("start echo\nstart echo").first)
        #expect((error.line, error.column) == (2, 1))
        #expect(
            error.message
                == "an actor named 'echo' is already started: line 1 (start echo) started it; expected 'stop echo' before, or another name with 'as NAME'"
        )
        #expect(errors("start echo\nstop echo\nstart echo").isEmpty, "a stopped actor may start again")
        #expect(errors("start echo\nstart echo as mirror on mirror").isEmpty)
        let console = try #require(try language.parse(line: "start echo", file: "console", lineNumber: 1))
        #expect(language.checkStarts([console], running: ["echo"]).first?.message.contains("already started: it is running") == true)
    }

    @Test func aCheckThatCannotFailIsRefusedWhenRead() throws {
        let error = try #require(errors("let x = abc\nexpect ${x} contains \"\"").first)
        #expect((error.line, error.column) == (2, 22))
        #expect(
            error.message
                == "'contains \"\"': every value passes it: this check can never fail; expected the text to look for "
                + "(to check a value is empty: 'expect VALUE == \"\"')")
        #expect(try #require(errors("let x = abc\nexpect ${x} matches \"\"").first).message.contains("can never fail"))
        #expect(try #require(errors("let x = abc\nexpect ${x} !contains \"\"").first).message.contains("can never pass"))
        #expect(errors("let x = abc\nexpect ${x} == \"\"\nexpect ${x} contains b").isEmpty)
    }

    @Test func strictRefusesAFaultPointNoStartedActorChecks() throws {
        let (script, parseErrors) = language.parse(file: "t.scn", text: "start echo\nfault other.down on\nfault echo.unavailable once")
        #expect(parseErrors.isEmpty)
        let unreachable = language.unreachableFaultPoints(script)
        #expect(
            unreachable.map { "\($0.line):\($0.column) \($0.message)" }
                == ["2:7 fault point 'other.down' can never fire: only 'other' checks it, and no 'start' of this scenario starts one"])
    }
}

/// A result name holds exactly what the line that last bound it gave.
@Suite struct ResultFieldTests {
    let runner = ScenarioRunner(language: ScenarioLanguage(actorKinds: [TestActors.echo]), catalog: [TestActors.echo])

    func run(_ text: String) -> ScenarioRunner.Result {
        let (script, errors) = runner.language.parse(file: "t.scn", text: text)
        #expect(errors.isEmpty, "\(errors)")
        return runner.run(script, seed: 1) { _ in }
    }

    func parseError(_ text: String) -> ScenarioError? { runner.language.parse(file: "t.scn", text: text).1.first }

    @Test func aFieldTheLatestBindingCannotGiveIsRefusedBeforeTheRun() throws {
        let error = try #require(parseError("start echo\nhttp GET http://echo/ as r\nconnect r to echo:7\nexpect ${r.body} == x"))
        #expect((error.line, error.column) == (4, 8))
        #expect(
            error.message
                == "${r.body}: 'r' was last bound by line 3 (connect r to echo:7), which gives no 'body'; it gives ${r.elapsed}, ${r.error}, "
                + "${r.status}. The r.body of line 2 (http GET http://echo/ as r) was replaced by that binding: name each result with its own 'as NAME'"
        )
    }

    @Test func aMisspelledFieldSuggestsTheNearest() throws {
        let error = try #require(parseError("start echo\nhttp GET http://echo/ as r\nexpect ${r.stauts} == 200"))
        #expect(error.message.contains("which gives no 'stauts' (did you mean 'status'?)"), "\(error)")
        #expect(
            parseError("start echo\nhttp GET http://echo/ as r\nexpect ${r.header.content-type} == text/plain") == nil, "header.* gives any header")
    }

    @Test func aFieldOnlyTheRunKnowsIsCheckedWhenItRuns() throws {
        // `start` gives its endpoints, known once the actor runs: the replaced http result's body is an error then.
        let error = try #require(run("start echo\nhttp GET http://echo/ as r\nstart echo as r on mirror\nexpect ${r.body} == x").error)
        #expect(
            error.contains(
                "${r.body}: 'r' was last bound by line 3 (start echo as r on mirror), which gives no 'body'; it gives ${r.bus}, ${r.http}, ${r.tcp}"),
            "\(error)")
        #expect(error.contains("The r.body of line 2 (http GET http://echo/ as r) was replaced"), "\(error)")
    }

    @Test func aNameNoLineBindsIsRefusedBeforeTheRun() throws {
        let error = try #require(parseError("start echo\nhttp GET http://echo/ as r\nexpect ${q.status} == 200"))
        #expect((error.line, error.column) == (3, 8))
        #expect(
            error.message
                == "${q.status}: no line before this one binds 'q' (did you mean 'r'?); bound by then: echo, r "
                + "('as NAME' names a line's result, 'let NAME = VALUE' a value)")
        let early = try #require(parseError("start echo\nexpect ${s.status} == 200\nhttp GET http://echo/ as s"))
        #expect(early.message.contains("no line before this one binds 's'; line 3 binds it, after this one"), "\(early)")
        #expect(
            parseError("start echo\nhttp GET http://echo/ as status\nexpect ${stauts.status} == 200")?.message.contains("(did you mean 'status'?)")
                == true)
        #expect(parseError("print ${seed} ${now}") == nil, "every run defines them")
    }

    @Test func aSwapOfNeighbouringLettersIsOneEdit() {
        #expect(didYouMean("stauts", among: ["state", "status"]) == " (did you mean 'status'?)")
        #expect(didYouMean("eror", among: ["error", "elapsed"]) == " (did you mean 'error'?)")
        #expect(didYouMean("exti", among: ["exit", "stdout", "stderr"]) == " (did you mean 'exit'?)")
    }

    @Test func aFailureWithoutAReasonIsListed() {
        let context = ScenarioContext(kernel: Kernel(seed: 1), catalog: [], file: "t.scn", output: { _ in })
        context.publish("ok", ["status": "ok"])
        context.publish("said", ["status": "failed", "error": "the server said no"])
        context.publish("silent", ["status": "refused", "error": ""])
        context.publish("none", ["status": "no-service"])
        #expect(context.unexplainedFailures == ["line 0: silent (status refused)", "line 0: none (status no-service)"])
    }

    @Test func aJoinedResultIsTheSpawnedLines() throws {
        let errors = runner.language.parse(
            file: "t.scn", text: "start echo\nspawn w http GET http://echo/ as r\nexpect ${r.nope} == 1\njoin w\nexpect ${r.nope} == 1"
        ).1
        #expect(errors.map(\.line) == [3, 5])
        #expect(
            errors.first?.message.hasPrefix("${r.nope}: no line before this one binds 'r'; line 2 binds it when 'join w' collects its work") == true,
            "before the join, r is not bound yet: \(errors)")
        #expect(errors.last?.message.contains("'r' was last bound by line 2 (spawn w http GET http://echo/ as r)") == true, "\(errors)")
    }
}

/// The event a line looks for must be one something records: `expect no trace` of a misspelt event would pass on nothing,
/// `wait until trace` of one would wait out its limit. Checked when a language knows the events (the catalog's does).
@Suite struct TraceEventNameTests {
    static let events: [TraceEventDeclaration] = [
        .event("started", fields: "http", "tcp"), .event("stopped"), .event("http-response", fields: "from", "status"),
        .event("connect", fields: "from", "to"), .event("reset", fields: "from", "to"), .event("begin"), .event("end"),
    ]
    let language = ScenarioLanguage(actorKinds: [ScenarioNamesTests.echo], traceEvents: Self.events)

    func errors(_ text: String) -> [String] {
        language.parse(file: "t.scn", text: text).1.map { "\($0.line):\($0.column) \($0.message)" }
    }

    @Test func aMisspeltEventIsRefusedWithTheNearestOne() {
        let what = "expected an event an actor, a client or the kernel records ('help expect' lists them all)"
        #expect(errors("start echo as e1\nexpect no trace stoped by echo") == ["2:17 no trace event 'stoped' (did you mean 'stopped'?); \(what)"])
        #expect(
            errors("start echo\nexpect trace http-respnse status=200") == [
                "2:14 no trace event 'http-respnse' (did you mean 'http-response'?); \(what)"
            ])
        #expect(errors("start echo\nwait until trace startd within 1s") == ["2:18 no trace event 'startd' (did you mean 'started'?); \(what)"])
        #expect(errors("sometimes trace conect as c") == ["1:17 no trace event 'conect' (did you mean 'connect'?); \(what)"])
        #expect(errors("spawn w wait until trace nothing-like-it") == ["1:26 no trace event 'nothing-like-it'; \(what)"])
    }

    @Test func aRecordedEventIsAccepted() {
        #expect(
            errors(
                "start echo as e1\nexpect trace started by echo\nexpect no trace reset\nwait until trace http-response status=200 within 1s"
                    + "\nsometimes trace connect as c"
            ).isEmpty)
    }

    /// The bare language (unit tests, no catalog) knows no events, and checks none.
    @Test func aLanguageWithoutEventsChecksNone() {
        #expect(ScenarioLanguage().parse(file: "t.scn", text: "expect no trace anything-at-all").1.isEmpty)
    }

    /// A run that records an event the language does not know fails, naming it and who recorded it; its trace is the one
    /// it would be otherwise.
    @Test func aRunThatRecordsAnUndeclaredEventFails() throws {
        let text = Self.echoRequest
        let recorded = Self.run(text, knowing: [])
        #expect(recorded.passed)
        let full = try Self.declarations(of: recorded.trace)
        #expect(full.contains { $0.name == "started" })
        let declared = Self.run(text, knowing: full)
        #expect(declared.passed && declared.digest == recorded.digest)
        let missing = Self.run(text, knowing: full.filter { $0.name != "started" })
        #expect(
            missing.error == "t.scn: echo recorded the trace event 'started', which no system declares: add it to the trace events of the system "
                + "(or kernel library) that records it, so 'expect trace' may name it")
        #expect(missing.digest == recorded.digest)
    }

    /// Every event of a canonical trace, declared with every key it was recorded with.
    static func declarations(of trace: String) throws -> [TraceEventDeclaration] {
        var keys: [String: Set<String>] = [:]
        for line in trace.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let event = try #require(object["event"] as? String)
            keys[event, default: []].formUnion(object.keys.filter { !["t", "actor", "event"].contains($0) })
        }
        return keys.map { TraceEventDeclaration($0.key, fields: $0.value) }
    }

    /// A scenario whose echo records a few events with fields: what the run checks are tried on.
    static let echoRequest = "start echo\nhttp GET http://echo/ as r\nexpect ${r.status} == 200"

    /// `text` run with a language that knows `events` (none: the bare language, which checks nothing).
    static func run(_ text: String, knowing events: [TraceEventDeclaration]) -> ScenarioRunner.Result {
        let runner = ScenarioRunner(language: ScenarioLanguage(actorKinds: [TestActors.echo], traceEvents: events), catalog: [TestActors.echo])
        return runner.run(runner.language.parse(file: "t.scn", text: text).0, seed: 1) { _ in }
    }
}

/// The keys a line matches (`expect [no] trace EVENT KEY=VALUE`) must be ones the event carries: `expect no trace
/// job-created usr=x` would pass on nothing, `wait until trace` with a misspelt key would wait out its limit.
@Suite struct TraceFieldNameTests {
    let language = ScenarioLanguage(actorKinds: [ScenarioNamesTests.echo], traceEvents: TraceEventNameTests.events)

    func errors(_ text: String) -> [String] {
        language.parse(file: "t.scn", text: text).1.map { "\($0.line):\($0.column) \($0.message)" }
    }

    @Test func aMisspeltKeyIsRefusedWithTheNearestOneAndTheEventsKeys() {
        let its = "its fields: from, status"
        #expect(
            errors("start echo as e1\nexpect no trace http-response by echo stauts=500") == [
                "2:39 the trace event 'http-response' has no field 'stauts' (did you mean 'status'?); \(its)"
            ])
        #expect(
            errors("start echo\nexpect trace http-response status=200 frm=phone") == [
                "2:39 the trace event 'http-response' has no field 'frm' (did you mean 'from'?); \(its)"
            ])
        #expect(
            errors("start echo\nwait until trace started htp=80 within 1s") == [
                "2:26 the trace event 'started' has no field 'htp' (did you mean 'http'?); its fields: http, tcp"
            ])
        #expect(
            errors("sometimes trace connect too=echo as c") == [
                "1:25 the trace event 'connect' has no field 'too' (did you mean 'to'?); its fields: from, to"
            ])
        #expect(errors("spawn w wait until trace stopped reason=x") == ["1:34 the trace event 'stopped' has no field 'reason'; it carries no fields"])
    }

    @Test func declaredKeysAreAccepted() {
        #expect(
            errors(
                "start echo as e1\nexpect trace http-response by echo status=200 from=phone\nexpect no trace http-response status=500"
                    + "\nwait until trace started http=80 within 1s\nsometimes trace connect to=echo as c"
            ).isEmpty)
    }

    /// The bare language (unit tests, no catalog) knows no events, and checks no keys either.
    @Test func aLanguageWithoutEventsChecksNoKeys() {
        #expect(ScenarioLanguage().parse(file: "t.scn", text: "expect no trace anything usr=x").1.isEmpty)
    }

    /// A run that records a key its event's declaration lacks fails, naming the event, the key and who recorded it;
    /// its trace is the one it would be otherwise.
    @Test func aRunThatRecordsAnUndeclaredKeyFails() throws {
        let text = TraceEventNameTests.echoRequest
        let recorded = TraceEventNameTests.run(text, knowing: [])
        let declarations = try TraceEventNameTests.declarations(of: recorded.trace)
        #expect(declarations.contains { $0.name == "http-response" && $0.fields.contains("status") })

        #expect(TraceEventNameTests.run(text, knowing: declarations).passed)
        let lacking = TraceEventNameTests.run(
            text,
            knowing: declarations.map { $0.name == "http-response" ? TraceEventDeclaration($0.name, fields: $0.fields.subtracting(["status"])) : $0 })
        #expect(
            lacking.error == "t.scn: echo recorded the field 'status' of the trace event 'http-response', which its declaration lacks: add the key "
                + "to the event's declaration in the system (or kernel library) that records it, so 'expect trace http-response status=…' may match it"
        )
        #expect(lacking.digest == recorded.digest)
    }

    /// Declarations of one name (several systems' `started`) are merged: a key any of them gives is accepted.
    @Test func declarationsOfOneEventAreMerged() {
        let language = ScenarioLanguage(traceEvents: [.event("started", fields: "ipp"), .event("started", fields: "port")])
        #expect(language.traceVocabulary.fields["started"] == ["ipp", "port"])
        #expect(language.parse(file: "t.scn", text: "expect no trace started ipp=1\nexpect no trace started port=2").1.isEmpty)
    }
}
