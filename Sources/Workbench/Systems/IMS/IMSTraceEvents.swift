extension WorkbenchSystem {
    /// Every event the IMS verifier, the host's signing back end and the phone's IMS SDK record:
    /// what `expect trace` may name of IMS, and all they may record in a run.
    static let imsTraceEvents: [String] = [
        // IMSVerifier
        "started", "stopped", "certificate-registered", "user-enrolled", "token-rejected", "session-started", "session-expired",
        // IMSSigningBackend
        "sign-refused", "token-signed",
        // IMSSDK
        "token-received", "signing-retry", "signing-failed", "token-refreshed", "session-ready",
    ]
}
