extension WorkbenchSystem {
    /// Every event MiG, the TLS proxy in front of it and the phone's print client record:
    /// what `expect trace` may name of MiG, and all they may record in a run.
    static let migTraceEvents: [String] = [
        // MiGServer; a finished job's `job-completed` / `job-aborted` is `job-` and its IPP state keyword.
        "started", "stopped", "spool-recovered", "auth-failed", "certificate-refused", "certificate-accepted", "http-request",
        "http-response", "http-error", "ipp-response", "upload-timeout", "job-created", "job-forgotten", "document-received",
        "document-format-error", "document-refused", "upload-abandoned", "job-canceled", "identify", "spool-error", "job-held",
        "job-released", "job-timed-out", "job-processing", "printer-stopped", "printer-resumed", "job-completed", "job-aborted",
        // TLSProxy
        "proxy-request", "proxy-refused", "proxy-upstream-failed", "proxy-error",
        // MiGClient
        "mig-client-insecure-tls", "mig-client-request", "mig-client-response", "mig-client-retry", "mig-client-replay",
        "mig-client-replay-answer", "mig-client-job-submitted", "mig-client-job-state", "mig-client-job-canceled", "mig-client-job-held",
        "mig-client-job-released",
    ]
}
