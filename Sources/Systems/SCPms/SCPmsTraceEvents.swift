import SCPms
import SystemKit
import Wire

extension WorkbenchSystem {
    /// Every event the SCPms server, the session manager of the phone's apps and the system's directives record:
    /// what `expect trace` may name of SCPms (and which keys), and all they may record in a run.
    static let scpmsTraceEvents: [TraceEventDeclaration] = [
        // SCPmsServer
        .event("started", fields: "application", "https-port", "port"),
        .event("stopped"),
        .event("store-error", fields: "error"),
        .event("store-write-failed", fields: "attempt", "id", values: ["operation": ["delete"]]),
        .event("auth-malformed", fields: "reason"),
        .event("auth-refused", fields: "user"),
        .event("registered", fields: "application", "body-bytes", "device-type", "id", "user", "user-name"),
        .event("registration-updated", fields: "id"),
        .event("registration-deleted", fields: "by", "id", values: ["found": ["false", "true"]]),
        .event("registration-delete-failed", fields: "by", "id"),
        .event("odata", fields: "method", "resource", "status"),
        .event("appcid-refused", values: ["reason": ["missing", "other-user", "too-long", "unknown"]]),
        .event("appcid-accepted", fields: "id"),
        .event("logs-stored", fields: "id", "lines"),
        .event("user-added", fields: "user"),
        .event("application-added", fields: "application", values: ["log-upload": ["off", "on"]]),
        // SCPmsClient
        .event("scpms-check", fields: "status"),
        .event("scpms-register-failed", fields: "status", values: ["reason": ["no-id"]]),
        .event("scpms-registered", fields: "id"),
        .event("scpms-logs-uploaded", fields: "lines", "status"),
        .event("scpms-challenge-answered"),
        .event("scpms-network-error", fields: "error"),
        .event("scpms-retry", fields: "attempt", "status"),
        .event("scpms-warning", fields: "why", values: ["server-trust": ["any"]]),
        .event("scpms-odata", fields: "resource", "status"),
        .event("scpms-logger-attached", values: ["level": ClientLogLine.Severity.allCases.map(\.rawValue)]),
        .event("scpms-no-registration"),
        .event("scpms-register-again", fields: "refused"),
        .event("scpms-session-ended", fields: "pending-log-lines"),
        // The directives' app and delegate
        .event("app-launched", fields: "app", "launch", "stored-id"),
        .event("scpms-delegate-asked", fields: "headers", "session"),
    ]
}
