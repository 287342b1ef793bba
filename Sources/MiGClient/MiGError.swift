import IPP

/// Everything that can go wrong talking to MiG, in the terms an app shows its user.
///
/// HTTP answers (401 wrong password, 404 wrong URL) and IPP status codes are separate cases because the
/// original MiG documentation gives them as the contract; connection and TLS failures say which side to look at.
public enum MiGError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration cannot work (bad URL, client certificate over plain HTTP…); the text says what.
    case invalidConfiguration(String)
    /// The PKCS#12 client identity could not be loaded.
    case clientCertificate(file: String, problem: ClientCertificateProblem)
    /// The document to print could not be read.
    case documentUnreadable(String)

    /// The host name does not resolve (or, simulated, no such node).
    case unknownHost(String)
    /// Nothing listens on `host:port`.
    case connectionRefused(String)
    /// Connecting, or the exchange, made no progress for too long; the text says which.
    case timedOut(String)
    /// The connection was reset or closed before a complete response: retried by the retry policy.
    case connectionDropped(String)
    /// The whole request was sent, then the connection ended without an answer: MiG may have acted on it. A
    /// request that creates something (Print-Job, Create-Job, Send-Document) is not sent again — that could print
    /// twice; the caller checks the jobs (Get-Jobs) before printing again. Read-only requests are retried.
    case answerLost(operation: String, detail: String)

    /// The server's certificate is not trusted (unknown CA, expired, wrong host name).
    case tlsUntrustedServer(String)
    /// The server refused the client certificate (or required one and none was configured).
    case tlsClientCertificateRejected(String)
    /// Another TLS failure.
    case tls(String)

    /// HTTP 401: no or wrong credentials. `realm` is from the server's `WWW-Authenticate: Basic realm=…`.
    case unauthorized(realm: String?)
    /// HTTP 404: the URL does not point at MiG's `/ipp/print`.
    case notFound(path: String)
    /// Any other non-200 HTTP answer; `body` is the start of what the server said.
    case httpStatus(code: Int, reason: String, body: String)
    /// A 200 answer that is not a usable IPP response.
    case malformedResponse(String)

    /// The IPP operation failed with this status (e.g. `client-error-document-format-not-supported`).
    case ipp(status: IPPStatus, message: String?)
    /// `waitForCompletion` gave up before the job reached a final state; the last state seen is attached.
    case jobNotFinished(jobID: Int32, state: IPPJobState?, reasons: [String])

    /// The retry policy ran out; `last` is the failure of the final attempt.
    indirect case retriesExhausted(attempts: Int, last: MiGError)

    /// Why a PKCS#12 file (or an in-memory identity) could not be used.
    public enum ClientCertificateProblem: Sendable, Equatable, CustomStringConvertible {
        /// The file is missing or unreadable.
        case unreadable(String)
        /// The password does not open the file.
        case wrongPassword
        /// The file is not a usable PKCS#12 bundle (or holds no key and certificate).
        case invalid(String)
        /// An in-memory identity's certificate or key is not DER, or the key is not the certificate's.
        case unusable(String)

        /// The problem as the end of a sentence that starts with the file, e.g. `the password is wrong (…)`.
        public var description: String {
            switch self {
            case .unreadable(let reason): "cannot be read: \(reason)"
            case .wrongPassword: "the password is wrong (PKCS#12 decryption failed)"
            case .invalid(let reason): "is not a usable PKCS#12 bundle: \(reason)"
            case .unusable(let reason): "is unusable: \(reason)"
            }
        }
    }

    /// Operations that change the spool: repeating one whose answer was lost could make a second job.
    static let unsafeToRepeat: Set<String> = ["\(IPPOperation.printJob)", "\(IPPOperation.createJob)", "\(IPPOperation.sendDocument)"]

    /// Whether the retry policy tries again after this failure: a busy printer, a connection that broke before the
    /// whole request was sent (the upload is repeated from the start), or a lost answer to a read-only request.
    public var isRetryable: Bool {
        switch self {
        case .connectionDropped: true
        case .answerLost(let operation, _): !Self.unsafeToRepeat.contains(operation)
        case .ipp(let status, _): status == .busy
        default: false
        }
    }

    /// The error as a message for people, saying what failed and, where it helps, what to check.
    public var description: String {
        switch self {
        case .invalidConfiguration(let text): "invalid MiG client configuration: \(text)"
        case .clientCertificate(let file, let problem): "client certificate \(file) \(problem)"
        case .documentUnreadable(let text): "cannot read the document: \(text)"
        case .unknownHost(let host): "unknown host \(host)"
        case .connectionRefused(let target): "connection refused by \(target): is MiG running on that port?"
        case .timedOut(let text): "timed out: \(text)"
        case .connectionDropped(let text): "connection dropped before a response: \(text)"
        case .answerLost(let operation, let detail):
            "the whole \(operation) request was sent but its answer was lost (\(detail)); MiG may have acted on it, so it was not "
                + "sent again (that could print twice): check the jobs (Get-Jobs) before printing again"
        case .tlsUntrustedServer(let text): "the server's TLS certificate is not trusted: \(text)"
        case .tlsClientCertificateRejected(let text): "the server rejected the client certificate: \(text)"
        case .tls(let text): "TLS failure: \(text)"
        case .unauthorized(let realm):
            "HTTP 401 Unauthorized: the user name or password is wrong or missing" + (realm.map { " (realm \"\($0)\")" } ?? "")
        case .notFound(let path): "HTTP 404 Not Found: \(path) is not MiG's print URL (expected …/ipp/print)"
        case .httpStatus(let code, let reason, let body):
            "HTTP \(code) \(reason)" + (body.isEmpty ? "" : ": \(body)")
        case .malformedResponse(let text): "malformed response: \(text)"
        case .ipp(let status, let message): "IPP \(status)" + (message.map { ": \($0)" } ?? "")
        case .jobNotFinished(let id, let state, let reasons):
            "job \(id) did not finish in time (last state: \(state?.description ?? "unknown")"
                + (reasons.isEmpty ? ")" : "; reasons: " + reasons.joined(separator: ",") + ")")
        case .retriesExhausted(let attempts, let last): "gave up after \(attempts) attempts: \(last)"
        }
    }
}
