import Scenario
import Testing
import Wire

/// The values a line matches of a closed field (`expect [no] trace EVENT KEY=VALUE`, KEY a state or an outcome) must be
/// ones the event can carry: `expect no trace job-state state=complted` would pass on nothing, `wait until trace` with a
/// misspelt value would wait out its limit. Free fields (ids, names, counts) and values with a variable are not checked.
@Suite struct TraceValueTests {
    static let events: [TraceEventDeclaration] = [
        .event("job-state", fields: "job", values: ["state": ["completed", "pending", "processing"]]),
        .event("started", fields: "http", "tcp"), .event("connect", fields: "from", "to"),
    ]
    let language = ScenarioLanguage(actorKinds: [ScenarioNamesTests.echo], traceEvents: Self.events)

    func errors(_ text: String, in language: ScenarioLanguage? = nil) -> [String] {
        (language ?? self.language).parse(file: "t.scn", text: text).1.map { "\($0.line):\($0.column) \($0.message)" }
    }

    @Test func aMisspeltValueIsRefusedOnEveryFormWithTheNearestOneAndAllOfThem() {
        let values = "its state values: completed, pending, processing"
        #expect(
            errors("start echo\nexpect no trace job-state by echo state=complted") == [
                "2:41 the trace event 'job-state' never carries state=complted (did you mean 'completed'?); \(values)"
            ])
        #expect(
            errors("expect trace job-state state=pendng job=1") == [
                "1:30 the trace event 'job-state' never carries state=pendng (did you mean 'pending'?); \(values)"
            ])
        #expect(
            errors("wait until trace job-state state=procesing within 1s") == [
                "1:34 the trace event 'job-state' never carries state=procesing (did you mean 'processing'?); \(values)"
            ])
        #expect(
            errors("sometimes trace job-state state=complete as done") == [
                "1:33 the trace event 'job-state' never carries state=complete (did you mean 'completed'?); \(values)"
            ])
        // A quoted word's value starts after its quote; far from every value, none is suggested.
        #expect(errors("expect no trace job-state \"state=held up\"") == ["1:34 the trace event 'job-state' never carries state=held up; \(values)"])
    }

    @Test func declaredValuesFreeFieldsAndVariablesAreAccepted() {
        #expect(
            errors(
                "let s = held\nexpect trace job-state state=completed job=7\nexpect no trace job-state state=${s}\nexpect no trace started http=anything"
                    + "\nspawn w wait until trace job-state state=pending\nsometimes trace connect to=echo:80 as c"
            ).isEmpty)
    }

    /// Declarations of one event are merged: a key every declaration closes takes the values of any of them; a key one
    /// of them leaves free is free.
    @Test func closedValuesAreMergedAndAFreeDeclarationFreesTheKey() {
        let closed = TraceVocabulary([.event("e", values: ["k": ["a"]]), .event("e", values: ["k": ["b"]]), .event("e", fields: "j")])
        #expect(closed.entries["e"] == TraceVocabulary.Entry(fields: ["j", "k"], values: ["k": ["a", "b"]]))
        let free = TraceVocabulary([.event("e", values: ["k": ["a"]]), .event("e", fields: "k")])
        #expect(free.entries["e"] == TraceVocabulary.Entry(fields: ["k"], values: [:]))
    }

    /// A run that records a value of a closed field outside its declared values fails, naming the event, the key, the
    /// value and who recorded it; its trace is the one it would be otherwise.
    @Test func aRunThatRecordsAnUndeclaredValueFails() throws {
        let text = TraceEventNameTests.echoRequest
        let recorded = TraceEventNameTests.run(text, knowing: [])
        let declarations = try TraceEventNameTests.declarations(of: recorded.trace)
        func closing(_ values: Set<String>) -> [TraceEventDeclaration] {
            declarations.map { $0.name == "http-response" ? TraceEventDeclaration($0.name, fields: $0.fields, values: ["status": values]) : $0 }
        }
        #expect(TraceEventNameTests.run(text, knowing: closing(["200", "404"])).passed)
        let lacking = TraceEventNameTests.run(text, knowing: closing(["404"]))
        #expect(
            lacking.error == "t.scn: echo recorded status=200 on the trace event 'http-response', a value its declaration does not give the "
                + "field: add it to the field's values in the system (or kernel library) that records it (or derive them from the enum it "
                + "records), so 'expect trace http-response status=200' may be written")
        #expect(lacking.digest == recorded.digest)
    }
}

/// A line that looks for an event `by` a node the file starts actors of known kinds on (or by such an actor's name) is
/// checked against what those kinds record, not against every system's: `expect no trace started by ims ipp=1` would
/// pass on nothing when only MiG's `started` carries `ipp`.
@Suite struct TraceAuthorKindTests {
    static let echoEvents: [TraceEventDeclaration] = [
        .event("started", fields: "http", "tcp"), .event("job-state", fields: "job", values: ["state": ["pending"]]),
    ]
    static let otherEvents: [TraceEventDeclaration] = [
        .event("started", fields: "ipp"), .event("job-state", fields: "job", values: ["state": ["completed"]]), .event("held", fields: "job"),
    ]
    let language = ScenarioLanguage(
        actorKinds: [ScenarioNamesTests.echo, ScenarioNamesTests.other], traceEvents: Self.echoEvents + Self.otherEvents,
        kindTraceEvents: ["echo": Self.echoEvents, "other": Self.otherEvents])

    func errors(_ text: String) -> [String] {
        language.parse(file: "t.scn", text: text).1.map { "\($0.line):\($0.column) \($0.message)" }
    }

    @Test func aKeyValueOrEventOfAnotherKindIsRefused() {
        #expect(
            errors("start echo\nexpect no trace started by echo ipp=1") == [
                "2:33 the trace event 'started' by 'echo' (which runs echo) has no field 'ipp' (did you mean 'tcp'?); its fields: http, tcp"
            ])
        #expect(
            errors("start echo\nwait until trace job-state by echo state=completed within 1s") == [
                "2:42 the trace event 'job-state' by 'echo' (which runs echo) never carries state=completed; its state values: pending"
            ])
        #expect(
            errors("start echo\nexpect no trace held by echo") == [
                "2:17 no trace event 'held' by 'echo' (which runs echo); its events: job-state, started"
            ])
        // On a host of its own (the actor records as its node, not by its name).
        #expect(
            errors("start other as o on box\nsometimes trace started by box http=80 as s") == [
                "2:32 the trace event 'started' by 'box' (which runs other) has no field 'http'; its fields: ipp"
            ])
    }

    /// Every kind the node runs counts; a node another line puts on the network, a kernel author, or a node no `start` of
    /// the file runs keeps the check against every system.
    @Test func otherAuthorsKeepTheMergedCheck() {
        #expect(errors("start echo\nstart other on echo\nexpect no trace started by echo ipp=1\nexpect no trace held by echo").isEmpty)
        #expect(errors("start echo\nexpect no trace started by net ipp=1").isEmpty)
        #expect(errors("start echo\nconnect c to echo:7 from echo\nexpect no trace started by echo ipp=1").isEmpty)
        #expect(errors("start echo\nexpect no trace started by echo tcp=7\nexpect trace job-state by echo state=pending").isEmpty)
    }
}
