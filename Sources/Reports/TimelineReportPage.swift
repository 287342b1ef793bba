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

    /// A file's text as it goes between its tags: without the line break that ends the file, which the page has
    /// never had before `</style>` or `</script>`.
    private static func inline(_ file: [UInt8]) -> String {
        let text = String(decoding: file, as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}
