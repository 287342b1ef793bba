import JSONEscaping

/// The style and script of ``TimelineReport``'s page: `timeline.css` and `timeline.js` beside this file, embedded in
/// the binary at build time and written inline, so the page opens anywhere without a network and the command needs no
/// resource files at run time.
///
/// The script reads the run from `<script id="run-data">` and builds the page with `textContent` only: trace values
/// are never parsed as HTML. It draws only the rows near the visible part of the timeline (a few hundred elements
/// whatever the trace's length), so a 10,000-event trace scrolls, zooms and searches at once.
enum TimelineReportPage {
    static let css = inline(PackageResources.timeline_css)
    static let script = inline(PackageResources.timeline_js)

    /// The systems' own trace events, for the page's script (`SYSTEM_EVENTS`): event name -> how to draw it.
    static func systemEvents(_ events: [TimelineEvent]) -> String {
        let entries = events.map { "\(JSONString.quoted($0.event)): { message: \($0.isMessage), draw: \($0.draw) }" }
        return "var SYSTEM_EVENTS = Object.assign(Object.create(null), {" + entries.joined(separator: ", ") + "});\n"
    }

    /// A file's text as it goes between its tags: without the line break that ends the file, which the page has
    /// never had before `</style>` or `</script>`.
    private static func inline(_ file: [UInt8]) -> String {
        let text = String(decoding: file, as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}

/// How the timeline report draws one of a system's trace events. The page itself draws only what the libraries under
/// every system record: connections, HTTP, the bus, faults and the scenario's own events.
public struct TimelineEvent: Sendable {
    /// The trace event's name.
    public let event: String
    /// Whether it is a message (a request), which ends the set-up the page folds away.
    public let isMessage: Bool
    /// A JavaScript function `(actor, fields, event, draw)` that returns the row, or null to draw the event as any
    /// other. `draw` holds the page's own tools: `mark(actor, cls, label)`, `severity(event, cls)` (`error` for an
    /// event that reads as a failure), `clip(text, limit)`, `request(actor, cls, label, alone)` (an arrow from the
    /// client whose connection the actor read it on; `alone`, by default `label`, marks it on the actor when none is
    /// known), `answer(actor, cls, label, alone)` (an arrow back to that client) and `landmark(actor, job, phase,
    /// label)` (see ``jobLandmark(_:phase:detail:)``). For example
    /// `function (a, f, e, draw) { return draw.mark(a, 'http', 'IPP ' + f.operation); }`.
    public let draw: String

    public init(event: String, isMessage: Bool, draw: String) {
        self.event = event
        self.isMessage = isMessage
        self.draw = draw
    }

    /// A step in a job's life, for an event that carries the job's number as `job`: a landmark reading "job N PHASE"
    /// and then `detail` (a JavaScript expression of the fields `f`, such as `(f.user ? ' for ' + f.user : '')`),
    /// listed with the job's other steps above the timeline. `phase` also picks its colour (held, completed,
    /// canceled, removed, aborted and dropped have their own). Without a `job` the event is drawn as any other.
    public static func jobLandmark(_ event: String, phase: String, detail: String? = nil) -> TimelineEvent {
        let label = "'job ' + f.job + ' \(phase)'" + (detail.map { " + " + $0 } ?? "")
        return TimelineEvent(
            event: event, isMessage: false,
            draw: "function (a, f, e, draw) { return f.job === undefined ? null : draw.landmark(a, f.job, '\(phase)', \(label)); }")
    }
}
