import Wire

extension WorkbenchSystem {
    /// Every event the Sunfire print host, its UNIX host and spooler, MySoc and the phone's SOCPrint app record:
    /// what `expect trace` may name of Sunfire (and which keys), and all they may record in a run.
    static let sunfireTraceEvents: [TraceEventDeclaration] = [
        // Sunfire (SSH, SCP, SFTP, the directory)
        .event("started", fields: "host-key", "port", "ssh-port"),
        .event("stopped"),
        .event("whitelist", fields: "ranges"),
        .event("ssh-refused", fields: "from", "reason"),
        .event("ssh-connected", fields: "from"),
        .event("ssh-closed", fields: "from", "user"),
        .event("ssh-disconnected", fields: "from", "reason", "user"),
        .event("ssh-error", fields: "error", "from"),
        .event("ssh-authenticated", fields: "from", "user"),
        .event("ssh-auth-failed", fields: "try", "user"),
        .event("ssh-exec", fields: "command", "from", "user"),
        .event("ssh-exit", fields: "command", "from", "status", "stderr-bytes", "stdout-bytes"),
        .event("sftp-session", fields: "user"),
        .event("sftp-error", fields: "reason"),
        .event("upload", fields: "bytes", "complete", "outcome", "path", "user", "via"),
        .event("download", fields: "bytes", "path", "via"),
        .event("file-removed", fields: "path", "user", "via"),
        .event("quota-set", fields: "kind", "user", "value"),
        .event("directory-refused", fields: "reason"),
        .event("directory-login", fields: "outcome", "realm", "user"),
        // SunfireHost (its commands and spooler, reported by Sunfire)
        .event("conversion", fields: "input", "output", "pages", "tool"),
        .event("disk-quota-exceeded", fields: "path", "user"),
        .event("printer-state", fields: "printer", "state"),
        .event("job-queued", fields: "job", "owner", "pages", "printer", "sheets", "via"),
        .event("job-removed", fields: "job", "owner", "printer"),
        .event("job-printed", fields: "job", "owner", "pages", "printer", "sheets"),
        .event("quota-charged", fields: "left", "sheets", "user"),
        .event("job-dropped", fields: "job", "owner", "printer", "reason"),
        // MySoc
        .event("login-failed", fields: "reason", "user"),
        .event("directory-unreachable", fields: "reason"),
        .event("quota-page", fields: "realm", "rows", "user"),
        // SOCPrint
        .event("ssh-login", fields: "host", "outcome", "user"),
        .event("quota", fields: "outcome", "rows", "user"),
        .event("document-opened", fields: "bytes", "from", "name"),
        .event("open-in-refused", fields: "from", "reason", "url"),
        .event("print-step", fields: "row", "state"),
        .event("print-finished", fields: "file", "printer", "status", "step"),
        .event("converter-cached", fields: "file"),
    ]
}
