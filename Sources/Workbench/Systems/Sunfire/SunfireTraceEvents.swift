extension WorkbenchSystem {
    /// Every event the Sunfire print host, its UNIX host and spooler, MySoc and the phone's SOCPrint app record:
    /// what `expect trace` may name of Sunfire, and all they may record in a run.
    static let sunfireTraceEvents: [String] = [
        // Sunfire (SSH, SCP, SFTP, the directory)
        "started", "stopped", "whitelist", "ssh-refused", "ssh-connected", "ssh-closed", "ssh-disconnected", "ssh-error",
        "ssh-authenticated", "ssh-auth-failed", "ssh-exec", "ssh-exit", "sftp-session", "sftp-error", "upload", "download",
        "file-removed", "quota-set", "directory-refused", "directory-login",
        // SunfireHost (its commands and spooler, reported by Sunfire)
        "conversion", "disk-quota-exceeded", "printer-state", "job-queued", "job-removed", "job-printed", "quota-charged", "job-dropped",
        // MySoc
        "login-failed", "directory-unreachable", "quota-page",
        // SOCPrint
        "ssh-login", "quota", "document-opened", "open-in-refused", "print-step", "print-finished", "converter-cached",
    ]
}
