import Reports
import SystemKit

extension WorkbenchSystem {
    /// How the timeline report draws MiG's events: a job's life as landmarks, the proxy's request as a message from
    /// the client it came from, the IPP status MiG answered, and the print client's own request and answer (which
    /// carry the IPP operation and the attempt).
    static let migTimelineEvents: [TimelineEvent] = [
        .jobLandmark("job-created", phase: "created", detail: "(f.user ? ' for ' + f.user : '')"),
        .jobLandmark("job-processing", phase: "processing"),
        // "held" is Hold-Job's (or job-hold-until's) alone; a printer stopped on a device fault stops the job it was
        // printing, which resumes with the printer.
        .jobLandmark("job-held", phase: "held", detail: "(f.by ? ' by ' + f.by : '')"),
        .jobLandmark("job-released", phase: "released", detail: "(f.by ? ' by ' + f.by : '')"),
        .jobLandmark("printer-stopped", phase: "stopped", detail: "(f.reason ? ': ' + draw.clip(f.reason, 60) : '')"),
        .jobLandmark("printer-resumed", phase: "resumed"),
        .jobLandmark("job-completed", phase: "completed", detail: pages),
        .jobLandmark("job-canceled", phase: "canceled", detail: "(f.by ? ' by ' + f.by : '')"),
        .jobLandmark("job-aborted", phase: "aborted", detail: pages),
        TimelineEvent(
            event: "proxy-request", isMessage: true,
            draw: """
                function (a, f, e, draw) {
                  var line = (f.method || '') + ' ' + draw.clip(f.path || '', 70);
                  return draw.request(a, 'http', line, e.event + ' ' + line);
                }
                """),
        TimelineEvent(
            event: "ipp-response", isMessage: false,
            draw: """
                function (a, f, e, draw) { return draw.mark(a, /^successful/.test(f.status || '') ? 'http' : 'error', 'IPP ' + f.status); }
                """),
        TimelineEvent(
            event: "mig-client-request", isMessage: true,
            draw: """
                function (a, f, e, draw) {
                  return draw.mark(a, 'http', 'IPP ' + f.operation + ' (request ' + f['request-id'] + ', attempt ' + f.attempt + ')');
                }
                """),
        TimelineEvent(
            event: "mig-client-response", isMessage: false,
            draw: """
                function (a, f, e, draw) { return draw.mark(a, draw.severity(e, 'http'), 'HTTP ' + f.http + (f.ipp ? ', IPP ' + f.ipp : '')); }
                """),
    ]

    /// A finished job's pages, " (3 pages)", when its event says.
    private static let pages = "(f.pages !== undefined ? ' (' + f.pages + ' page' + (f.pages === '1' ? '' : 's') + ')' : '')"
}
