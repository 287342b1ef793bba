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

/// How the timeline report draws one of a system's trace events; the page draws connections, HTTP, SSH, the bus,
/// faults and job landmarks itself.
public struct TimelineEvent: Sendable {
    /// The trace event's name.
    public let event: String
    /// Whether it is a message (a request), which ends the set-up the page folds away.
    public let isMessage: Bool
    /// A JavaScript function `(actor, fields, event, mark, severity)` that returns the row, as the page's own
    /// drawing does (e.g. `return mark(a, 'http', 'IPP ' + f.operation);`).
    public let draw: String

    public init(event: String, isMessage: Bool, draw: String) {
        self.event = event
        self.isMessage = isMessage
        self.draw = draw
    }
}
