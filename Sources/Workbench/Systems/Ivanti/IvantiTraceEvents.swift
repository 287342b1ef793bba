import Wire

extension WorkbenchSystem {
    /// Every event the Ivanti client, AppConnect in the phone's apps and the system's directives record:
    /// what `expect trace` may name of Ivanti (and which keys), and all they may record in a run.
    static let ivantiTraceEvents: [TraceEventDeclaration] =
        [
            // IvantiClient
            .event("started", fields: "installation"),
            .event("stopped"),
            .event("url-rejected", fields: "from", "problem"),
            .event("app-registered", fields: "app", "scheme"),
            .event("credential-stored", fields: "app", "serial", "tags"),
            .event("credential-rejected", fields: "app", "problem", "serial"),
            .event("certificate-denied", fields: "app", "reason", "serial", "tag"),
            .event("certificate-granted", fields: "app", "serial", "tag"),
            .event("installation-changed", fields: "from", "to"),
            .event("state-changed", fields: "auth", "passcode", "policy", "ready", "secure"),
            .event("renewal-requested", fields: "app", "serial"),
            // AppConnect
            .event("console", fields: "level", "message"),
            .event("appconnect-error", fields: "problem"),
            .event("appconnect-state", fields: "auth", "policy", "ready", "secure"),
            .event("secure-services-changed", fields: "availability"),
            .event("credential-sent", fields: "serial"),
            .event("credential-send-failed", fields: "code", "serial"),
            .event("new-credential-requested", fields: "scheme"),
        ]
        // The directives' apps trace what the bus tells them of their place on screen.
        + URLBus.LifecycleEvent.allCases.map { TraceEventDeclaration($0.rawValue) }
}
