import Wire

extension WorkbenchSystem {
    /// Every event the Ivanti client, AppConnect in the phone's apps and the system's directives record:
    /// what `expect trace` may name of Ivanti, and all they may record in a run.
    static let ivantiTraceEvents: [String] =
        [
            // IvantiClient
            "started", "stopped", "url-rejected", "app-registered", "credential-stored", "credential-rejected", "certificate-denied",
            "certificate-granted", "installation-changed", "state-changed", "renewal-requested",
            // AppConnect
            "console", "appconnect-error", "appconnect-state", "secure-services-changed", "credential-sent", "credential-send-failed",
            "new-credential-requested",
        ]
        // The directives' apps trace what the bus tells them of their place on screen.
        + URLBus.LifecycleEvent.allCases.map(\.rawValue)
}
