import SOCPrint
import SunfireHost
import SystemKit
import Wire

extension WorkbenchSystem {
    /// Every event the Sunfire print host, its UNIX host and spooler, MySoc and the phone's SOCPrint app record:
    /// what `expect trace` may name of Sunfire (and which keys), and all they may record in a run.
    static let sunfireTraceEvents: [TraceEventDeclaration] = [
        // Sunfire (SSH, SCP, SFTP, the directory)
        .event("started", fields: "host-key", "port", "ssh-port"),
        .event("stopped"),
        .event("whitelist", fields: "ranges"),
        .event("ssh-refused", fields: "from", values: ["reason": ["not in the whitelist"]]),
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
        .event(
            "upload", fields: "bytes", "path", "user",
            values: ["complete": ["false"], "outcome": ["done", "failed"], "via": UploadTransport.allCases.map(\.rawValue)]),
        .event("download", fields: "bytes", "path", values: ["via": ["scp"]]),
        .event("file-removed", fields: "path", "user", values: ["via": ["sftp"]]),
        .event("quota-set", fields: "user", "value", values: ["kind": QuotaKind.allCases.map(\.rawValue)]),
        .event("directory-refused", values: ["reason": ["wrong or missing token"]]),
        .event("directory-login", fields: "realm", "user", values: ["outcome": ["refused"]]),
        // SunfireHost (its commands and spooler, reported by Sunfire)
        // The converters' own names, as each of their commands passes it.
        .event("conversion", fields: "input", "output", "pages", values: ["tool": ["Impose", "docs-to-pdf", "gs", "nup_pdf", "pdftops"]]),
        .event("disk-quota-exceeded", fields: "path", "user"),
        .event("printer-state", fields: "printer", "state"),
        .event("job-queued", fields: "job", "owner", "pages", "printer", "sheets", values: ["via": ["lpr", "samba"]]),
        .event("job-removed", fields: "job", "owner", "printer"),
        .event("job-printed", fields: "job", "owner", "pages", "printer", "sheets"),
        .event("quota-charged", fields: "left", "sheets", "user"),
        .event("job-dropped", fields: "job", "owner", "printer", values: ["reason": ["print quota exhausted"]]),
        // MySoc
        .event("login-failed", fields: "user", values: ["reason": ["missing credentials", "wrong credentials"]]),
        .event("directory-unreachable", fields: "reason"),
        .event("quota-page", fields: "realm", "rows", "user"),
        // SOCPrint
        .event("ssh-login", fields: "host", "user", values: ["outcome": ["authorised", "refused", "unreachable"]]),
        .event("quota", fields: "rows", "user", values: ["outcome": ["ok", "refused", "unreachable"]]),
        .event("document-opened", fields: "bytes", "from", "name"),
        .event("open-in-refused", fields: "from", "reason", "url"),
        .event("print-step", fields: "row", values: ["state": ["done", "running"]]),
        .event("print-finished", fields: "file", "printer", "step", values: ["status": PrintOperation.Outcome.Status.allCases.map(\.rawValue)]),
        .event("converter-cached", fields: "file"),
    ]
}
