import Reports
import SystemKit

extension WorkbenchSystem {
    /// How the timeline report draws Sunfire's events: a command as a message from the SSH client that sent it and its
    /// exit as the answer, and a print job's life in the spooler's queue as landmarks.
    static let sunfireTimelineEvents: [TimelineEvent] = [
        TimelineEvent(
            event: "ssh-exec", isMessage: true,
            draw: """
                function (a, f, e, draw) { return draw.request(a, 'ssh', '$ ' + draw.clip(f.command || '', 70)); }
                """),
        TimelineEvent(
            event: "ssh-exit", isMessage: false,
            draw: """
                function (a, f, e, draw) {
                  return draw.answer(a, f.status === '0' ? 'ssh' : 'error', 'exit ' + f.status + ' (' + draw.clip(f.command || '', 40) + ')');
                }
                """),
        .jobLandmark("job-queued", phase: "queued", detail: "(f.printer ? ' on ' + f.printer : '')"),
        .jobLandmark("job-removed", phase: "removed"),
        .jobLandmark("job-dropped", phase: "dropped"),
    ]
}
