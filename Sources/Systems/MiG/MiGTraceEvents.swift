import IPP
import MiGServer
import SystemKit
import Wire

extension WorkbenchSystem {
    /// Every event MiG, the TLS proxy in front of it and the phone's print client record:
    /// what `expect trace` may name of MiG (and which keys), and all they may record in a run.
    static let migTraceEvents: [TraceEventDeclaration] = [
        // MiGServer; a finished job's `job-completed` / `job-aborted` is `job-` and its IPP state keyword.
        .event("started", fields: "ipp", "ipps", "port", "upstream"),
        .event("stopped"),
        .event("spool-recovered", fields: "aborted", "orphans-removed", "requeued"),
        .event("auth-failed", fields: "user"),
        .event("certificate-refused", fields: "user"),
        .event("certificate-accepted", fields: "subject", "user", values: ["via": ["handshake", "proxy"]]),
        .event("http-request", fields: "from", "method", "path"),
        .event("http-response", fields: "from", "status"),
        .event("http-error", fields: "error"),
        .event("ipp-response", fields: "from", "operation", "status"),
        .event("upload-timeout", fields: "job"),
        .event("job-created", fields: "format", "job", "user"),
        .event("job-forgotten", fields: "job"),
        .event("document-received", fields: "bytes", "digest", "job"),
        .event("document-format-error", fields: "job", "why"),
        .event("unsupported-document-format", fields: "job", "why"),
        .event("document-refused", fields: "error", "job"),
        .event("upload-abandoned", fields: "job"),
        .event("job-canceled", fields: "by", "job"),
        .event("identify", fields: "actions", "by"),
        .event("spool-error", fields: "error"),
        .event("job-held", fields: "by", "job"),
        .event("job-released", fields: "by", "job"),
        .event("job-timed-out", fields: "after", "job"),
        .event("job-processing", fields: "job", "pages"),
        .event("printer-stopped", fields: "job", values: ["reason": MiGServer.printerStoppedReasons]),
        .event("printer-resumed", fields: "job"),
        .event("job-completed", fields: "job", "pages"),
        .event("job-aborted", fields: "job", "pages"),
        // TLSProxy
        .event("proxy-request", fields: "from", "method", "path"),
        .event("proxy-refused", fields: "path", "reason"),
        .event("proxy-upstream-failed", fields: "error"),
        .event("proxy-error", fields: "error"),
        // MiGClient
        .event("mig-client-insecure-tls", fields: "url"),
        .event("mig-client-request", fields: "attempt", "operation", "request-id"),
        .event("mig-client-response", fields: "http", "ipp"),
        .event("mig-client-retry", fields: "after-attempt", "reason", "wait"),
        .event("mig-client-not-repeated", fields: "attempt", "operation"),
        .event("mig-client-replay", fields: "bytes", "document-bytes"),
        .event("mig-client-replay-answer", fields: "http", "ipp"),
        .event("mig-client-job-submitted", fields: "attempts", "bytes", "job-id"),
        .event("mig-client-job-state", fields: "job-id", "reasons", values: ["state": IPPJobState.allCases.map(\.keyword) + ["unknown"]]),
        .event("mig-client-job-canceled", fields: "job-id"),
        .event("mig-client-job-held", fields: "job-id"),
        .event("mig-client-job-released", fields: "job-id"),
    ]
}
