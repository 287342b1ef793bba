import CZlib
import Foundation
import TestSupport
import Testing

@testable import Reports

/// `workbench run --report FILE.html`: the page a person opens, loaded in a real headless Chromium.
@Suite(.serialized) struct TimelineReportTests {
    /// A scenario with echo and MiG, a fault, and one expectation that is wrong on purpose; its title is markup
    /// that must stay text.
    static let scenario = """
        scenario "Report check <script>window.injected=1</script>"
        start echo
        start mig
        http GET http://echo/ as hello
        expect ${hello.status} == 200
        mig alive as alive
        expect ${alive.result} == alive
        fault echo.unavailable once
        http GET http://echo/ as down
        expect ${down.status} == 200
        expect ${down.status} == 503

        """
    static let failingText = "expect ${down.status} == 200"

    @Test func failingRunShowsALifelinePerActorAndMarksTheFailedStep() throws {
        let directory = try temporaryDirectory("report")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report-check.scn")
        try Self.scenario.write(to: file, atomically: true, encoding: .utf8)
        let page = directory.appendingPathComponent("report.html")
        let trace = directory.appendingPathComponent("trace.jsonl")
        let run = try WorkbenchBinary.run(["run", file.path, "--seed", "7", "--trace", trace.path, "--report", page.path])
        #expect(run.status == 1, "\(run.output)")
        let failingLine =
            try #require(
                Self.scenario.split(separator: "\n", omittingEmptySubsequences: false)
                    .firstIndex { $0 == Self.failingText }) + 1

        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(!html.contains(directory.path), "the page names the temporary directory")
        #expect(html.components(separatedBy: "<script").count == 3, "only the data and the page's own script")
        let data = try #require(Self.slice(of: html, from: "<script type=\"application/json\"", to: "</script>"))
        let ownMarkup = html.replacingOccurrences(of: data, with: "")
        for reference in ["http://", "https://", "src=", "href=", "@import", "url("] {
            #expect(!ownMarkup.contains(reference), "the page would load something: \(reference)")
        }

        let dom = try Chromium.dumpDOM(page, profile: directory.appendingPathComponent("profile"))
        #expect(dom.contains("data-ready=\"true\""), "the script did not finish:\n\(dom.prefix(2000))")
        let lifelines = Set(Self.matches(of: #"class="lifeline-head[^"]*" data-actor="([^"]+)""#, in: dom))
        let actors = try Self.nodesAndActors(inTrace: String(contentsOf: trace, encoding: .utf8))
        #expect(actors.isSuperset(of: ["scenario", "echo", "mig", "phone"]), "\(actors)")
        #expect(lifelines == actors, "lifelines \(lifelines.sorted()) for the trace's \(actors.sorted())")

        // The failed expectation: in the list of failures and as a red row of the timeline, with its line and text.
        let failureList = try #require(Self.slice(of: dom, from: "<ul class=\"failures\"", to: "</ul>"))
        #expect(failureList.contains("<span class=\"where\">line \(failingLine)</span>\(Self.failingText) — expected"), "\(failureList)")
        #expect(failureList.contains("actual \"503\""), "\(failureList)")
        let failedRow = try #require(Self.slice(of: dom, from: "<div class=\"row check failed", to: "</div></div>"))
        #expect(failedRow.contains("<span class=\"where\">line \(failingLine)</span><span class=\"text\">\(Self.failingText)</span>"), "\(failedRow)")
        #expect(dom.contains("<div class=\"row check ok"), "the expectations that held are drawn too")
        #expect(dom.contains("fault fired: echo.unavailable"), "the fault is marked")
        #expect(dom.contains("&lt;script&gt;window.injected=1&lt;/script&gt;"), "the title is shown as text")
        #expect(!dom.contains("<script>window.injected"), "the title became markup")

        // A search from the link: the one fault that fired is found, counted and brought into view.
        let searched = try Chromium.dumpDOM(
            try #require(URL(string: page.absoluteString + "#q=fault%20fired")),
            profile: directory.appendingPathComponent("profile"))
        #expect(searched.contains("<span class=\"count\">1 / 1</span>"), "\(searched.prefix(3000))")
        let found = try #require(Self.slice(of: searched, from: "<div class=\"row event match current", to: "</div></div>"))
        #expect(found.contains("fault fired: echo.unavailable"), "\(found)")

        // The same run writes the same bytes.
        let again = directory.appendingPathComponent("again.html")
        _ = try WorkbenchBinary.run(["run", file.path, "--seed", "7", "--report", again.path])
        #expect(try Data(contentsOf: again) == Data(contentsOf: page))
    }

    @Test func severalScenariosShareOnePageWithASelector() throws {
        let directory = try temporaryDirectory("report-several")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("report-check.scn")
        let second = directory.appendingPathComponent("plain-echo.scn")
        try Self.scenario.write(to: first, atomically: true, encoding: .utf8)
        try "start echo\nhttp GET http://echo/ as r\nexpect ${r.status} == 200\n".write(to: second, atomically: true, encoding: .utf8)
        let page = directory.appendingPathComponent("report.html")
        // A step that cannot run stops its scenario: the third one's error is shown at its place.
        let third = directory.appendingPathComponent("broken.scn")
        try "start echo\nhttp GET http://echo/ as r\ncapture nothing from ${r.body} matching zzz\n".write(
            to: third, atomically: true, encoding: .utf8)
        let run = try WorkbenchBinary.run(["run", first.path, second.path, third.path, "--report", page.path])
        #expect(run.status == 1, "\(run.output)")
        let link = try #require(URL(string: page.absoluteString + "#scenario=2"))
        let dom = try Chromium.dumpDOM(link, profile: directory.appendingPathComponent("profile"))
        let selector = try #require(Self.slice(of: dom, from: "<nav class=\"scenarios\"", to: "</nav>"))
        #expect(selector.contains("<button class=\"failed\" title=\"report-check.scn\">✗ Report check"), "\(selector)")
        #expect(selector.contains("<button class=\"passed selected\" title=\"plain-echo.scn\">✓ plain-echo.scn</button>"), "\(selector)")
        #expect(dom.contains("<h2><span>plain-echo.scn</span><span class=\"verdict pass\">PASS</span></h2>"))
        // The second scenario's own lifelines: no MiG there.
        let lifelines = Set(Self.matches(of: #"class="lifeline-head[^"]*" data-actor="([^"]+)""#, in: dom))
        #expect(lifelines == ["scenario", "phone", "echo", "bus"], "\(lifelines)")

        let broken = try Chromium.dumpDOM(
            try #require(URL(string: page.absoluteString + "#scenario=3")),
            profile: directory.appendingPathComponent("profile"))
        #expect(broken.contains("<div class=\"step-error\">broken.scn:3: capture: capture nothing: /zzz/ does not match"))
        let errorRow = try #require(Self.slice(of: broken, from: "<div class=\"row check failed step-error", to: "</div></div>"))
        #expect(errorRow.contains("<span class=\"where\">line 3</span><span class=\"text\">step error</span>"), "\(errorRow)")
    }

    @Test func screenshotIsThePageAtTheRequestedSize() throws {
        let directory = try temporaryDirectory("report-shot")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report-check.scn")
        try Self.scenario.write(to: file, atomically: true, encoding: .utf8)
        let page = directory.appendingPathComponent("report.html")
        _ = try WorkbenchBinary.run(["run", file.path, "--report", page.path])
        let shot = directory.appendingPathComponent("report.png")
        try Chromium.screenshot(page, to: shot, profile: directory.appendingPathComponent("profile"))

        let image = try PNGImage(Data(contentsOf: shot))
        #expect(image.width == 1400 && image.height == 900)
        let colours = image.colourCounts()
        #expect(colours.count > 32, "\(colours.count) colours: a blank or nearly blank page")
        // Flat fills of the page: the dark header, the failed step's red band, the held expectations' green band.
        #expect(colours[0x111827, default: 0] > 10_000, "the header is missing")
        #expect(colours[0xFEF2F2, default: 0] > 2_000, "no red band for the failed expectation")
        #expect(colours[0xECFDF3, default: 0] > 2_000, "no green band for the expectations that held")
    }

    @Test func tenThousandEventsStayFastAndSmall() throws {
        let directory = try temporaryDirectory("report-large")
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = Self.syntheticTrace(events: 10_000)
        let section = TimelineReport.Section(
            title: "10,000 events", file: "large.scn", seed: 1, digest: String(repeating: "0", count: 64), trace: trace,
            checks: [
                TimelineReport.Check(
                    kind: .expectation, line: 3, text: "expect ${r9000.status} == 500",
                    failure: "got 200", traceIndex: 9_000, nanoseconds: 9_000_000_000),
                TimelineReport.Check(
                    kind: .invariant, line: 4, text: "echo.answers", failure: "echo stopped answering",
                    traceIndex: 9_500, nanoseconds: 9_500_000_000),
            ],
            error: nil, virtualTime: .seconds(10))
        let page = directory.appendingPathComponent("large.html")
        try TimelineReport(sections: [section]).html.write(to: page, atomically: true, encoding: .utf8)

        let started = ContinuousClock.now
        let dom = try Chromium.dumpDOM(page, profile: directory.appendingPathComponent("profile"))
        let wall = ContinuousClock.now - started
        #expect(dom.contains("data-events=\"10000\""), "\(dom.prefix(1000))")
        let renderMilliseconds = try #require(Self.matches(of: #"data-render-ms="([0-9]+)""#, in: dom).first.flatMap { Int($0) })
        // Parsing, laying out and drawing 10,000 events; generous for a loaded 2-core machine (about 150 ms idle).
        #expect(renderMilliseconds < 5_000, "drawn in \(renderMilliseconds) ms")
        #expect(wall < .seconds(60), "Chromium took \(wall)")
        let timeline = try #require(Self.slice(of: dom, from: "<div class=\"timeline\"", to: "<aside"))
        let elements = timeline.components(separatedBy: "<").count - 1 - timeline.components(separatedBy: "</").count + 1
        #expect(elements < 3_000, "\(elements) elements in the timeline")
        #expect(dom.contains("<span class=\"where\">after line 4</span>invariant echo.answers — echo stopped answering"))
        // It opened at the failed expectation (after event 9,000), drawing rows there and none from the start.
        #expect(timeline.contains("<span class=\"when\">#9000 "))
        #expect(!timeline.contains("<span class=\"when\">#1 "))

        // A link to an event opens there.
        let link = try #require(URL(string: page.absoluteString + "#scenario=1&event=9990"))
        let end = try Chromium.dumpDOM(link, profile: directory.appendingPathComponent("profile"))
        let endTimeline = try #require(Self.slice(of: end, from: "<div class=\"timeline\"", to: "<aside"))
        #expect(endTimeline.contains("<span class=\"when\">#9990 "))
        #expect(!endTimeline.contains("<span class=\"when\">#9000 "))
    }

    @Test func traceTextCannotBreakOutOfTheDataScript() throws {
        let hostile = "</script><script>alert(1)</script><!-- \u{2028}\u{2029} & é"
        let trace =
            #"{"t":0,"actor":"scenario","event":"begin","file":"x.scn","seed":"1"}"# + "\n"
            + #"{"t":5,"actor":"phone","event":"opened","name":"\#(hostile)"}"# + "\n"
        let html = TimelineReport(sections: [
            TimelineReport.Section(
                title: hostile, file: "x.scn", seed: 1, digest: "d", trace: trace,
                checks: [], error: "x.scn:2: http: \(hostile)", virtualTime: .zero)
        ]).html
        #expect(html.components(separatedBy: "<script").count == 3)
        #expect(html.components(separatedBy: "</script>").count == 3)
        #expect(html.contains("<title>FAIL &lt;/script&gt;&lt;script&gt;"))
        // The data is still the same JSON once parsed, as the page's script parses it.
        let start = try #require(html.range(of: "<script type=\"application/json\" id=\"run-data\">"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        #expect(!html.contains("<!--"))
        let data = html[start.upperBound..<end.lowerBound]
        #expect(!data.contains("<") && !data.contains("\u{2028}") && !data.contains("\u{2029}"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        let scenario = try #require((json["scenarios"] as? [[String: Any]])?.first)
        #expect(scenario["title"] as? String == hostile)
        #expect((scenario["trace"] as? String)?.contains(hostile) == true)
    }

    /// A run with two sections, a job that is created, held and completed, an expectation that held by seeing the
    /// 401 it asked for, and one that failed; its first events are setup.
    static let storyTrace = [
        #"{"t":0,"actor":"scenario","event":"begin","file":"story.scn","seed":"1"}"#,
        #"{"t":0,"actor":"mig","event":"started","ipp":"631"}"#,
        #"{"t":0,"actor":"net","event":"listen","address":"mig:631"}"#,
        #"{"t":0,"actor":"echo","event":"started","http":"80"}"#,
        #"{"t":1000,"actor":"scenario","event":"section","title":"Print a job"}"#,
        #"{"t":2000,"actor":"net","event":"connect","conn":"1","from":"phone","to":"mig:631"}"#,
        #"{"t":2000,"actor":"net","event":"accept","conn":"1","on":"mig:631"}"#,
        #"{"t":3000,"actor":"mig","event":"http-request","method":"POST","path":"/ipp/print"}"#,
        #"{"t":3000,"actor":"mig","event":"job-created","format":"application/pdf","job":"1","user":"demo"}"#,
        #"{"t":3000,"actor":"mig","event":"http-response","status":"200"}"#,
        #"{"t":4000,"actor":"mig","event":"printer-stopped","job":"1","reason":"media-empty"}"#,
        #"{"t":5000,"actor":"mig","event":"printer-resumed","job":"1"}"#,
        #"{"t":6000,"actor":"mig","event":"job-completed","job":"1","pages":"3"}"#,
        #"{"t":7000,"actor":"scenario","event":"section","title":"Wrong password"}"#,
        #"{"t":8000,"actor":"mig","event":"http-request","method":"POST","path":"/ipp/print"}"#,
        #"{"t":8000,"actor":"mig","event":"auth-failed","user":"demo"}"#,
        #"{"t":8000,"actor":"mig","event":"http-response","status":"401"}"#,
        #"{"t":9000,"actor":"mig","event":"http-request","method":"POST","path":"/ipp/print"}"#,
        #"{"t":9000,"actor":"mig","event":"http-response","status":"500"}"#,
        #"{"t":9000,"actor":"scenario","event":"end","expectations":"2","failed":"1"}"#,
    ].map { $0 + "\n" }.joined()

    /// The job events of the story, declared as a print server declares its own (the page names none).
    static let jobLandmarks: [TimelineEvent] = [
        .jobLandmark("job-created", phase: "created", detail: "(f.user ? ' for ' + f.user : '')"),
        .jobLandmark("printer-stopped", phase: "stopped", detail: "(f.reason ? ': ' + draw.clip(f.reason, 60) : '')"),
        .jobLandmark("printer-resumed", phase: "resumed"),
        .jobLandmark(
            "job-completed", phase: "completed",
            detail: "(f.pages !== undefined ? ' (' + f.pages + ' page' + (f.pages === '1' ? '' : 's') + ')' : '')"),
    ]

    @Test func sectionsJobLandmarksExpectedFailuresAndFoldedSetup() throws {
        let directory = try temporaryDirectory("report-story")
        defer { try? FileManager.default.removeItem(at: directory) }
        let checks = [
            TimelineReport.Check(
                kind: .expectation, line: 9, text: "expect ${bad.http} == 401", failure: nil,
                traceIndex: 17, nanoseconds: 8000),
            TimelineReport.Check(
                kind: .expectation, line: 11, text: "expect ${worse.http} == 200",
                failure: "expected ${worse.http} == \"200\", actual \"500\"", traceIndex: 19, nanoseconds: 9000),
        ]
        let page = directory.appendingPathComponent("story.html")
        try TimelineReport(
            sections: [
                TimelineReport.Section(
                    title: "Story", file: "story.scn", seed: 1, digest: "d", trace: Self.storyTrace, checks: checks, error: nil,
                    virtualTime: .microseconds(9))
            ], systemEvents: Self.jobLandmarks
        ).html.write(to: page, atomically: true, encoding: .utf8)
        let dom = try Chromium.dumpDOM(page, profile: directory.appendingPathComponent("profile"))
        let timeline = try #require(Self.slice(of: dom, from: "<div class=\"timeline\"", to: "<aside"))

        // Each section is a heading at its moment, and a link above the timeline.
        #expect(
            Self.matches(
                of: #"<div class="row event heading" data-item="\d+" data-actor="scenario" data-event="section" title="([^"]+)""#,
                in: timeline) == ["Print a job", "Wrong password"], "\(timeline)")
        #expect(timeline.contains(#"<div class="heading-band" role="heading" aria-level="3" style="#))
        #expect(Self.matches(of: #"aria-level="3" style="[^"]*">([^<]+)</div>"#, in: timeline) == ["Print a job", "Wrong password"])
        let sections = try #require(Self.slice(of: dom, from: "<nav class=\"sections\"", to: "</nav>"))
        #expect(Self.matches(of: #"<button class="section" type="button">([^<]+)</button>"#, in: sections) == ["Print a job", "Wrong password"])

        // The job's life: a landmark row per phase, and one line of links in order.
        #expect(Self.matches(of: #"<div class="row event landmark (\w+)""#, in: timeline) == ["created", "stopped", "resumed", "completed"])
        for label in ["job 1 created for demo", "job 1 stopped: media-empty", "job 1 resumed", "job 1 completed (3 pages)"] {
            #expect(timeline.contains("<span class=\"label\">\(label)</span>"), "\(label)")
        }
        let job = try #require(Self.slice(of: dom, from: "<div class=\"job\" data-job=\"mig job 1\">", to: "</div>"))
        #expect(
            Self.matches(of: #"<button class="landmark \w+" type="button">([^<]+)</button>"#, in: job)
                == ["created 3µs", "stopped 4µs", "resumed 5µs", "completed 6µs"], "\(job)")

        // The 401 the expectation asked for, and the failed login before it, are drawn as expected; the 500 the
        // failed expectation saw stays red, as does that expectation.
        let expectedRow = try #require(Self.slice(of: timeline, from: "<div class=\"row check ok expected", to: "</div></div>"))
        #expect(expectedRow.contains("<span class=\"text\">expect ${bad.http} == 401</span><span class=\"note\">expected failure</span>"))
        func drawing(_ label: String) -> [String] {
            Self.matches(of: #"<div class="([^"]+)" style="[^"]*"><span class="label">"# + label + "</span>", in: timeline)
        }
        #expect(drawing("401") == ["arrow left expected"], "\(timeline)")
        #expect(drawing("auth-failed user=demo") == ["mark expected"])
        #expect(drawing("500") == ["arrow left error"])
        #expect(timeline.contains("<div class=\"row check failed"))

        // Setup (the scenario beginning, two actors starting, a listen) is one folded row until asked for.
        #expect(timeline.contains("▸ setup: 4 events (2 actors started) — show</button>"), "\(timeline)")
        #expect(!timeline.contains(#"data-event="started""#))
        #expect(!timeline.contains(#"data-event="listen""#))
        #expect(
            Self.matches(of: #"<label title="Setup: [^"]*"([^>]*)><input type="checkbox">show setup"#, in: dom) == [""],
            "the control to unfold it is shown")

        // A link to a setup event unfolds it.
        let setup = try #require(URL(string: page.absoluteString + "#scenario=1&event=2"))
        let unfolded = try Chromium.dumpDOM(setup, profile: directory.appendingPathComponent("profile"))
        #expect(unfolded.contains("▾ setup: 4 events (2 actors started) — hide</button>"))
        #expect(Self.matches(of: #"data-actor="(\w+)" data-event="started""#, in: unfolded) == ["mig", "echo"])
    }

    /// A Basic challenge the client answered and 503s it retried until a 201 are HTTP working as designed: drawn as
    /// expected, not red, with what followed in the detail; a 503 followed by a 500 stays red, as does the 500.
    @Test func aChallengeAnsweredAndARefusalRetriedAreDrawnAsExpected() throws {
        let directory = try temporaryDirectory("report-recovered")
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace =
            [
                #"{"t":0,"actor":"scenario","event":"begin","file":"retry.scn","seed":"1"}"#,
                #"{"t":1000,"actor":"net","event":"connect","conn":"1","from":"phone","to":"scpms:443"}"#,
                #"{"t":1000,"actor":"net","event":"accept","conn":"1","on":"scpms:443"}"#,
            ]
            + [("POST", "401"), ("POST", "201"), ("GET", "503"), ("GET", "503"), ("GET", "200"), ("PUT", "503"), ("PUT", "500")].enumerated()
            .flatMap { index, exchange in
                [
                    #"{"t":\#(2000 + index * 1000),"actor":"scpms","event":"http-request","method":"\#(exchange.0)","path":"/\#(index)"}"#,
                    #"{"t":\#(2000 + index * 1000),"actor":"scpms","event":"http-response","status":"\#(exchange.1)"}"#,
                ]
            } + [#"{"t":9000,"actor":"scenario","event":"end","expectations":"0","failed":"0"}"#]
        let page = directory.appendingPathComponent("retry.html")
        try TimelineReport(
            sections: [
                TimelineReport.Section(
                    title: "Retry", file: "retry.scn", seed: 1, digest: "d", trace: trace.map { $0 + "\n" }.joined(), checks: [],
                    error: nil, virtualTime: .microseconds(9))
            ], systemEvents: []
        ).html.write(to: page, atomically: true, encoding: .utf8)
        let dom = try Chromium.dumpDOM(page, profile: directory.appendingPathComponent("profile"))
        let timeline = try #require(Self.slice(of: dom, from: "<div class=\"timeline\"", to: "<aside"))
        let answers = Self.matches(of: #"<div class="(arrow left[^"]*)" style="[^"]*"><span class="label">\d+</span>"#, in: timeline)
        #expect(
            answers == [
                "arrow left expected", "arrow left http", "arrow left expected", "arrow left expected", "arrow left http", "arrow left error",
                "arrow left error",
            ], "\(timeline)")
        // The detail of the challenge says what answered it.
        let detail = try Chromium.dumpDOM(
            try #require(URL(string: page.absoluteString + "#scenario=1&event=5")), profile: directory.appendingPathComponent("profile"))
        #expect(detail.contains("the client answered the challenge, and the server then answered 201 (#7)"), "\(detail)")
    }

    /// Twenty lifelines in a 1,400 px window: the lanes narrow so every one is in view, none cut off at the edge.
    @Test func manyLifelinesFitTheWindow() throws {
        let directory = try temporaryDirectory("report-wide")
        defer { try? FileManager.default.removeItem(at: directory) }
        var lines = [#"{"t":0,"actor":"scenario","event":"begin","file":"wide.scn","seed":"1"}"#]
        for server in 1...18 {
            lines.append(#"{"t":\#(server),"actor":"net","event":"connect","conn":"\#(server)","from":"phone","to":"server-\#(server):80"}"#)
            lines.append(#"{"t":\#(server),"actor":"server-\#(server)","event":"http-request","method":"GET","path":"/"}"#)
        }
        let page = directory.appendingPathComponent("wide.html")
        try TimelineReport(sections: [
            TimelineReport.Section(
                title: "Wide", file: "wide.scn", seed: 1, digest: "d", trace: lines.map { $0 + "\n" }.joined(), checks: [],
                error: nil, virtualTime: .zero)
        ]).html.write(to: page, atomically: true, encoding: .utf8)
        let dom = try Chromium.dumpDOM(page, profile: directory.appendingPathComponent("profile"))
        let heads = Self.matches(of: #"<div class="lifeline-head[^"]*" data-actor="[^"]+" title="[^"]+" style="([^"]+)""#, in: dom)
        #expect(heads.count == 20, "\(heads)")
        for style in heads {
            let numbers = Self.matches(of: #"(-?[0-9.]+)px"#, in: style).compactMap(Double.init)
            try #require(numbers.count == 3, "\(style)")  // left (the lane's middle), width, margin-left
            #expect(numbers[0] + numbers[2] >= 0 && numbers[0] + numbers[2] + numbers[1] <= 1_400, "a lifeline runs off the window: \(style)")
        }
        #expect(dom.contains(">Lanes: fit window</button>"))
    }

    @Test func anExpectationAsksForAFailureByWhatItComparesWith() {
        let asking = [
            "expect ${r.status} == error", "expect ${x.http} == 401", "expect ${r.status} in ok error",
            "expect ${m.error} contains \"timed out\"", "expect trace auth-failed by mig", "expect ${c.code} == -1001",
            "expect ${r.result} == ServiceUnavailable", "expect ${s.state} == credential-expired",
        ]
        for text in asking { #expect(TimelineReport.Check.expectsFailure(text), "\(text)") }
        let notAsking = [
            "expect ${r.status} == 200", "expect ${r.status} != 401", "expect no trace job-created by mig",
            "expect ${j.state} == completed", "expect ${r.status} == 4011", "expect elapsed since start < 5s",
            "expect ${r.status} in 200 201", "expect trace job-created by mig job=1",
        ]
        for text in notAsking { #expect(!TimelineReport.Check.expectsFailure(text), "\(text)") }

        let held = TimelineReport.Check(kind: .expectation, line: 1, text: "expect ${x.http} == 401", failure: nil, traceIndex: 0, nanoseconds: 0)
        #expect(held.heldAnExpectedFailure)
        var failed = held
        failed.failure = "expected ${x.http} == \"401\", actual \"200\""
        #expect(!failed.heldAnExpectedFailure, "a failed expectation is red, whatever it asked for")
    }

    // MARK: - Helpers

    /// Every node and actor a trace names: its actors but `net`, and the hosts of `net`'s events.
    static func nodesAndActors(inTrace trace: String) throws -> Set<String> {
        var names: Set<String> = []
        for line in trace.split(separator: "\n") {
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let actor = try #require(event["actor"] as? String)
            guard actor == "net" else {
                names.insert(actor)
                continue
            }
            for key in ["from", "to", "on", "address", "host", "end"] {
                guard let value = event[key] as? String, value.first?.isLetter == true else { continue }
                names.insert(value.split(separator: ":").first.map(String.init) ?? value)
            }
        }
        return names
    }

    /// A trace like a busy run's: a client making connection after connection, each with one HTTP exchange.
    static func syntheticTrace(events: Int) -> String {
        var lines = [#"{"t":0,"actor":"scenario","event":"begin","file":"large.scn","seed":"1"}"#]
        var connection = 0
        while lines.count < events - 1 {
            connection += 1
            let t = connection * 1_000_000
            lines += [
                #"{"t":\#(t),"actor":"net","event":"connect","conn":"\#(connection)","from":"phone","to":"echo:80"}"#,
                #"{"t":\#(t),"actor":"net","event":"accept","conn":"\#(connection)","on":"echo:80"}"#,
                #"{"t":\#(t + 20_000),"actor":"net","event":"connected","conn":"\#(connection)"}"#,
                #"{"t":\#(t + 40_000),"actor":"echo","event":"http-request","bytes":"0","method":"GET","path":"/n/\#(connection)"}"#,
                #"{"t":\#(t + 40_000),"actor":"echo","event":"http-response","status":"200"}"#,
                #"{"t":\#(t + 60_000),"actor":"net","event":"close","conn":"\#(connection)","end":"phone","received":"80","sent":"40"}"#,
                #"{"t":\#(t + 60_000),"actor":"net","event":"close","conn":"\#(connection)","end":"echo","received":"40","sent":"80"}"#,
            ]
        }
        lines = Array(lines.prefix(events - 1))
        lines.append(#"{"t":\#((connection + 1) * 1_000_000),"actor":"scenario","event":"end","expectations":"1","failed":"1"}"#)
        return lines.map { $0 + "\n" }.joined()
    }

    static func matches(of pattern: String, in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    static func slice(of text: String, from start: String, to end: String) -> String? {
        guard let lower = text.range(of: start) else { return nil }
        guard let upper = text.range(of: end, range: lower.upperBound..<text.endIndex) else { return nil }
        return String(text[lower.lowerBound..<upper.upperBound])
    }

    func temporaryDirectory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// Headless Chromium (Debian's `chromium`), as root: no sandbox, no GPU, a private profile.
enum Chromium {
    static let path = "/usr/bin/chromium"

    static func arguments(profile: URL) -> [String] {
        [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)", "--window-size=1400,900",
            "--virtual-time-budget=5000",
        ]
    }

    /// The DOM after the page's script has run.
    static func dumpDOM(_ page: URL, profile: URL) throws -> String {
        let run = try ExternalProcess.run(path, arguments(profile: profile) + ["--dump-dom", page.absoluteString], timeout: 120)
        guard run.status == 0 else { throw ProcessFailure("chromium --dump-dom exited \(run.status):\n\(run.stderr)") }
        return run.stdout
    }

    static func screenshot(_ page: URL, to png: URL, profile: URL) throws {
        let run = try ExternalProcess.run(path, arguments(profile: profile) + ["--screenshot=\(png.path)", page.absoluteString], timeout: 120)
        guard run.status == 0, FileManager.default.fileExists(atPath: png.path) else {
            throw ProcessFailure("chromium --screenshot exited \(run.status):\n\(run.stderr)")
        }
    }
}

/// Just enough PNG to check a screenshot: size from IHDR, pixels from the IDAT stream (8-bit RGB or RGBA, not
/// interlaced, as Chromium writes them), unfiltered.
struct PNGImage {
    let width: Int, height: Int
    private let channels: Int
    private let pixels: [UInt8]

    struct Invalid: Error, CustomStringConvertible { let description: String }

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count > 33, bytes.prefix(8).elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw Invalid(description: "not a PNG")
        }
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var offset = 8
        var header: ArraySlice<UInt8> = []
        var compressed: [UInt8] = []
        while offset + 8 <= bytes.count {
            let length = be32(offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard offset + 12 + length <= bytes.count else { throw Invalid(description: "chunk \(type) runs past the end") }
            let body = bytes[offset + 8..<offset + 8 + length]
            if type == "IHDR" { header = body }
            if type == "IDAT" { compressed += body }
            offset += 12 + length
        }
        guard header.count == 13 else { throw Invalid(description: "no IHDR") }
        let h = Array(header)
        width = Int(h[0]) << 24 | Int(h[1]) << 16 | Int(h[2]) << 8 | Int(h[3])
        height = Int(h[4]) << 24 | Int(h[5]) << 16 | Int(h[6]) << 8 | Int(h[7])
        guard h[8] == 8, h[9] == 2 || h[9] == 6, h[12] == 0, (1...10_000).contains(width), (1...10_000).contains(height) else {
            throw Invalid(description: "depth \(h[8]) colour type \(h[9]) interlace \(h[12]): not what Chromium writes")
        }
        channels = h[9] == 6 ? 4 : 3
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        var size = uLongf(raw.count)
        let status = raw.withUnsafeMutableBufferPointer { out in
            compressed.withUnsafeBufferPointer { input in
                uncompress(out.baseAddress, &size, input.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK, Int(size) == raw.count else { throw Invalid(description: "IDAT does not inflate (zlib \(status))") }
        var pixels = [UInt8](repeating: 0, count: height * stride)
        for y in 0..<height {
            let filter = raw[y * (stride + 1)]
            for x in 0..<stride {
                let value = raw[y * (stride + 1) + 1 + x]
                let left = x >= channels ? Int(pixels[y * stride + x - channels]) : 0
                let up = y > 0 ? Int(pixels[(y - 1) * stride + x]) : 0
                let upLeft = x >= channels && y > 0 ? Int(pixels[(y - 1) * stride + x - channels]) : 0
                let predicted: Int
                switch filter {
                case 0: predicted = 0
                case 1: predicted = left
                case 2: predicted = up
                case 3: predicted = (left + up) / 2
                case 4:
                    let p = left + up - upLeft
                    let pa = abs(p - left)
                    let pb = abs(p - up)
                    let pc = abs(p - upLeft)
                    predicted = pa <= pb && pa <= pc ? left : (pb <= pc ? up : upLeft)
                default: throw Invalid(description: "unknown filter \(filter) on row \(y)")
                }
                pixels[y * stride + x] = UInt8(truncatingIfNeeded: Int(value) + predicted)
            }
        }
        self.pixels = pixels
    }

    /// How many pixels have each colour (0xRRGGBB).
    func colourCounts() -> [Int: Int] {
        var counts: [Int: Int] = [:]
        var index = 0
        while index < pixels.count {
            counts[Int(pixels[index]) << 16 | Int(pixels[index + 1]) << 8 | Int(pixels[index + 2]), default: 0] += 1
            index += channels
        }
        return counts
    }
}
