import AppConnect
import DerivedCredential
import IvantiClient
import SystemKit
import Wire

extension WorkbenchSystem {
    /// Every event the Ivanti client, AppConnect in the phone's apps and the system's directives record:
    /// what `expect trace` may name of Ivanti (and which keys), and all they may record in a run.
    static let ivantiTraceEvents: [TraceEventDeclaration] =
        [
            // IvantiClient
            .event("started", values: ["installation": installations]),
            .event("stopped"),
            .event("url-rejected", fields: "from", values: ["problem": problems]),
            .event("app-registered", fields: "app", "scheme"),
            .event("credential-stored", fields: "app", "serial", "tags"),
            .event("credential-rejected", fields: "app", "serial", values: ["problem": problems + [IvantiClient.vaultFailure.rawValue]]),
            .event("certificate-denied", fields: "app", "serial", values: ["reason": ["unregistered"], "tag": tags]),
            .event("certificate-granted", fields: "app", "serial", values: ["tag": tags]),
            .event("installation-changed", values: ["from": installations, "to": installations]),
            .event("state-changed", values: appConnectState.merging(["passcode": ["entered", "missing"]]) { $1 }),
            .event("renewal-requested", fields: "app", "serial"),
            // AppConnect
            .event("console", fields: "message", values: ["level": ["error"]]),
            .event(
                "appconnect-error",
                values: [
                    "problem": problems + [
                        "new arrived on the AppConnect scheme, not a callback scheme", "unexpected URL on the callback scheme",
                    ]
                ]),
            .event("appconnect-state", values: appConnectState),
            .event("secure-services-changed", values: ["availability": SecureServicesAvailability.allCases.map(\.word)]),
            .event("credential-sent", fields: "serial"),
            .event(
                "credential-send-failed", fields: "serial",
                values: ["code": DerivedCredentialServiceError.Code.allCases.map { String($0.rawValue) }]),
            .event("new-credential-requested", fields: "scheme"),
        ]
        // The directives' apps trace what the bus tells them of their place on screen.
        + URLBus.LifecycleEvent.allCases.map { TraceEventDeclaration($0.rawValue) }

    /// The client's AppConnect state as it and the apps' AppConnect trace it.
    private static let appConnectState: [String: [String]] = [
        "auth": AuthState.allCases.map(\.word), "policy": ManagedPolicy.allCases.map(\.word), "ready": ["false", "true"],
        "secure": SecureServicesAvailability.allCases.map(\.word),
    ]
    private static let installations = IvantiClient.Installation.allCases.map(\.rawValue)
    private static let tags = CredentialTag.allCases.map(\.rawValue)
    /// Why a URL or a credential was refused.
    private static let problems = CredentialProblem.Code.all.map(\.rawValue)
}
