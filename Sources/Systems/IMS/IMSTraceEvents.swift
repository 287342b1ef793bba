import IMSVerifier
import JWT
import SystemKit
import Wire

extension WorkbenchSystem {
    /// Every event the IMS verifier, the host's signing back end and the phone's IMS SDK record:
    /// what `expect trace` may name of IMS (and which keys), and all they may record in a run.
    static let imsTraceEvents: [TraceEventDeclaration] = [
        // IMSVerifier
        .event("started", fields: "certificates", "leeway", "port", "scheme"),
        .event("stopped"),
        .event("certificate-registered", fields: "fingerprint", "iss", "kid"),
        .event("user-enrolled", fields: "iss", "sub", "user"),
        .event("token-rejected", values: ["reason": ["bearer", IMSVerifier.replayed.rawValue] + JWTError.Code.all.map(\.rawValue)]),
        .event("session-started", fields: "exp", "jti", "nbf", "sub"),
        .event("session-expired", fields: "sub"),
        .event("session-checked", fields: "sub", values: ["margin": IMSVerifier.margins]),
        // IMSSigningBackend
        .event(
            "sign-refused", fields: "status", values: ["reason": ["bearer", "content-type", "issuer", "subject"] + JWTError.Code.all.map(\.rawValue)]),
        .event("token-signed", fields: "exp", "jti", "sub"),
        // IMSSDK
        .event("token-received", fields: "attempt", "exp", "jti"),
        .event("signing-retry", fields: "attempt", "error", "wait"),
        .event("signing-failed", fields: "attempt", "error"),
        .event("token-refreshed", fields: "exp", "jti"),
        .event("session-ready", fields: "exp", "jti"),
    ]
}
