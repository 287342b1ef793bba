import JSONEscaping
import Kernel
import MarkupEscaping
import Scenario
import Wire

/// A run as one self-contained HTML page: per scenario a sequence diagram of its trace (a lifeline per node and
/// actor, connections and messages as arrows, faults marked), its expectations green or red at the moment they were
/// checked, broken invariants and a step error in red; zoomable, searchable, fast on large traces. `section` headings
/// and print jobs' lives (created, held, completed…) are landmarks; a failure an expectation asked for is drawn as
/// expected, not red; the setup before the first message is folded away until asked for.
///
/// The page needs no network (its CSS and script are inline) and the same run gives the same bytes: no dates, no
/// absolute paths. Trace text is data anyone can send (file names, URLs, error texts), so it only ever reaches the
/// page as JSON inside `<script type="application/json">`, where the script reads it and writes it as text.
public struct TimelineReport {
    /// One scenario's part of the page.
    struct Section {
        var title: String
        var file: String
        var seed: UInt64
        var digest: String
        /// The canonical trace, JSON Lines (``Trace/canonicalText``).
        var trace: String
        var checks: [Check]
        var error: String?
        var virtualTime: Duration
    }

    /// An expectation or a broken invariant, placed after the `traceIndex` first events of the trace.
    struct Check {
        enum Kind: String { case expectation, invariant }
        var kind: Kind
        var line: Int
        var text: String
        /// Why it failed; nil for an expectation that held.
        var failure: String?
        var traceIndex: Int
        var nanoseconds: Int64
    }

    /// A swarm's reach: of how many seeds, and per reach point how many of them reached it (none: a plain run).
    public struct Reach: Sendable {
        public let seeds: Int
        public let points: [(point: String, seeds: Int)]
        /// Whether a point never reached failed the swarm (`--require-reach`).
        public let required: Bool
        /// With `--explore`: the runs of fresh seeds and of mutants; `seeds` and the points then count runs.
        public let explore: (fresh: Int, mutants: Int)?

        public init(seeds: Int, points: [(point: String, seeds: Int)], required: Bool, explore: (fresh: Int, mutants: Int)? = nil) {
            self.seeds = seeds
            self.points = points
            self.required = required
            self.explore = explore
        }
    }

    let sections: [Section]
    /// How to draw the systems' own events (each system brings its own).
    let systemEvents: [TimelineEvent]
    let reach: Reach?

    init(sections: [Section], systemEvents: [TimelineEvent] = [], reach: Reach? = nil) {
        self.sections = sections
        self.systemEvents = systemEvents
        self.reach = reach
    }

    /// - parameter reach: a swarm's reach table, drawn above the runs (which are then its failing seeds).
    public init(results: [ScenarioRunner.Result], systemEvents: [TimelineEvent], reach: Reach? = nil) {
        self.systemEvents = systemEvents
        self.reach = reach
        sections = results.map { result in
            let file = Self.withoutDirectories(result.file)
            let expectations = result.expectations.map {
                Check(
                    kind: .expectation, line: $0.line, text: $0.text, failure: $0.failure,
                    traceIndex: $0.traceIndex, nanoseconds: $0.nanoseconds)
            }
            let violations = result.violations.map {
                Check(
                    kind: .invariant, line: $0.line, text: $0.invariant, failure: $0.message,
                    traceIndex: $0.traceIndex, nanoseconds: $0.nanoseconds)
            }
            // The step error starts with the path the scenario was given; only its name goes into the page.
            let error = result.error.map { $0.replacingOccurrences(of: result.file, with: file) }
            return Section(
                title: result.title == result.file ? file : result.title, file: file, seed: result.seed,
                digest: result.digest, trace: result.trace, checks: expectations + violations,
                error: error, virtualTime: result.virtualTime)
        }
    }

    /// The page.
    public var html: String {
        let passed = sections.allSatisfy(\.passed)
        let title = sections.count == 1 ? sections[0].title : "\(sections.count) scenarios"
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(MarkupText.escaped("\(passed ? "PASS" : "FAIL") \(title) — workbench run", .attributeSafe))</title>
            <style>\(TimelineReportPage.css)</style>
            </head>
            <body>
            <noscript>This report draws its timeline with JavaScript; the run's data is in the script element below.</noscript>
            <script type="application/json" id="run-data">\(Self.scriptSafe(data))</script>
            <script>\(TimelineReportPage.systemEvents(systemEvents))\(TimelineReportPage.script)</script>
            </body>
            </html>

            """
    }

    /// The run as JSON: what the page's script draws.
    var data: String {
        var out = "{\"digest\":\(JSONString.quoted(Trace.combinedDigest(sections.map(\.digest)))),\"scenarios\":["
        for (index, section) in sections.enumerated() {
            if index > 0 { out += "," }
            out += "{\"title\":\(JSONString.quoted(section.title)),\"file\":\(JSONString.quoted(section.file))"
            out += ",\"seed\":\(JSONString.quoted(String(section.seed))),\"digest\":\(JSONString.quoted(section.digest))"
            out += ",\"passed\":\(section.passed),\"virtualTime\":\(JSONString.quoted(section.virtualTime.workbenchText))"
            out += ",\"error\":" + (section.error.map(JSONString.quoted) ?? "null")
            out += ",\"checks\":["
            for (number, check) in section.checks.enumerated() {
                if number > 0 { out += "," }
                out += "{\"kind\":\"\(check.kind.rawValue)\",\"line\":\(check.line),\"text\":\(JSONString.quoted(check.text))"
                out += ",\"failure\":" + (check.failure.map(JSONString.quoted) ?? "null")
                out += ",\"expectedFailure\":\(check.heldAnExpectedFailure)"
                out += ",\"at\":\(check.traceIndex),\"t\":\(check.nanoseconds)}"
            }
            // The trace stays one string of JSON Lines: the script parses it line by line, so one odd line
            // cannot lose the rest.
            out += "],\"trace\":\(JSONString.quoted(section.trace))}"
        }
        out += "]"
        if let reach {
            out += ",\"reach\":{\"seeds\":\(reach.seeds),\"required\":\(reach.required),"
            if let explore = reach.explore { out += "\"explore\":{\"fresh\":\(explore.fresh),\"mutants\":\(explore.mutants)}," }
            out += "\"points\":["
            out += reach.points.map { "{\"point\":\(JSONString.quoted($0.point)),\"seeds\":\($0.seeds)}" }.joined(separator: ",")
            out += "]}"
        }
        return out + "}"
    }

    /// JSON that cannot end its `<script>` element or open a comment in it: `<`, `>` and `&` only occur inside
    /// JSON strings, where their `\u` forms mean the same; U+2028/2029 likewise, for anyone who feeds it to `eval`.
    static func scriptSafe(_ json: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(json.unicodeScalars.count)
        for scalar in json.unicodeScalars {
            switch scalar {
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A path as the page shows it: a relative one as given, an absolute one by its name only (the page must not
    /// depend on where the checkout or a temporary directory lives).
    static func withoutDirectories(_ path: String) -> String {
        guard path.hasPrefix("/") else { return path }
        return path.split(separator: "/").last.map(String.init) ?? path
    }
}

extension TimelineReport.Section {
    var passed: Bool { error == nil && checks.allSatisfy { $0.failure == nil } }
}
