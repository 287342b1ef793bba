extension WorkbenchSystem {
    /// Every event the SCPms server, the session manager of the phone's apps and the system's directives record:
    /// what `expect trace` may name of SCPms, and all they may record in a run.
    static let scpmsTraceEvents: [String] = [
        // SCPmsServer
        "started", "stopped", "store-error", "store-write-failed", "auth-malformed", "auth-refused", "registered", "registration-updated",
        "registration-deleted", "registration-delete-failed", "odata", "appcid-refused", "appcid-accepted", "logs-stored", "user-added",
        "application-added",
        // SCPmsClient
        "scpms-check", "scpms-register-failed", "scpms-registered", "scpms-logs-uploaded", "scpms-challenge-answered",
        "scpms-network-error", "scpms-retry", "scpms-warning", "scpms-odata", "scpms-logger-attached", "scpms-no-registration",
        "scpms-register-again", "scpms-session-ended",
        // The directives' app and delegate
        "app-launched", "scpms-delegate-asked",
    ]
}
