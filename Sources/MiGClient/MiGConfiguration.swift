import NIOCore
import WireHTTP

extension MiGClient {
    /// How the client reaches MiG: URL, credentials, TLS trust and identity, retries and timeouts.
    public struct Configuration: Sendable {
        /// Where MiG is, read from the printer URL: host, port, path and whether TLS is used.
        public var endpoint: MiGEndpoint
        /// Sent as `Authorization: Basic` with every request (as the original app does); nil sends none.
        public var credentials: BasicCredentials?
        /// Which server certificates to trust (only used for ipps/https).
        public var trust: ServerTrust
        /// A client certificate to present (as the original deployment's nginx in front of MiG requires).
        public var clientIdentity: ClientIdentity?
        /// The name to send as SNI and to check the server certificate against; defaults to the URL's host.
        public var serverName: String?
        /// When to try again after a busy printer or a dropped connection; by default 4 attempts, 0.5 s apart and doubling.
        public var retry: RetryPolicy
        /// How long each exchange may wait to connect, while idle, for `100 Continue` and in all, on the node's clock.
        public var timeouts: Timeouts
        /// `requesting-user-name` when the print options give none; defaults to the Basic user.
        public var requestingUserName: String?
        /// The `User-Agent` header of every request; `Workbench-MiGClient/1.0` unless changed.
        public var userAgent: String
        /// How Print-Job answers and lost answers are read: ``AnswerPolicy/standard`` unless the workbench's swarm says.
        public var answers = AnswerPolicy.standard

        /// A configuration for the printer at `url`, with the default user agent and answer policy.
        ///
        /// - parameters:
        ///   - url: the printer URL, e.g. `https://safeq:8050/ipp/print` or `ipps://user:pass@host:8050/ipp/print`.
        ///   - user: the Basic user; when nil, the credentials in the URL's userinfo (if any) are used.
        ///   - password: the Basic password of `user` (empty when nil); ignored without `user`.
        ///   - trust: which server certificates to accept (only used for ipps/https).
        ///   - clientIdentity: a client certificate to present, if the server asks for one.
        ///   - retry: when to try again after a busy printer or a dropped connection.
        ///   - timeouts: how long each exchange may wait, on the node's clock.
        /// - throws: `.invalidConfiguration` for a URL that is not a printer URL.
        public init(
            url: String, user: String? = nil, password: String? = nil, trust: ServerTrust = .systemDefault,
            clientIdentity: ClientIdentity? = nil, retry: RetryPolicy = RetryPolicy(), timeouts: Timeouts = Timeouts()
        ) throws(MiGError) {
            endpoint = try MiGEndpoint(url: url)
            if let user {
                credentials = BasicCredentials(user: user, password: password ?? "")
            } else if let fromURL = endpoint.credentials {
                credentials = BasicCredentials(user: fromURL.user, password: fromURL.password)
            }
            self.trust = trust
            self.clientIdentity = clientIdentity
            self.retry = retry
            self.timeouts = timeouts
            self.userAgent = "Workbench-MiGClient/1.0"
        }
    }

    /// Which server certificates the client accepts.
    public enum ServerTrust: Sendable {
        /// The system's trust store (what a shipped app uses against a properly certified MiG).
        case systemDefault
        /// Only certificates issued by these PEM-encoded CA certificates.
        case caPEM([UInt8])
        /// Only certificates issued by the CA certificates in this PEM file.
        case caFile(String)
        /// **INSECURE — tests against self-signed servers only.** Accepts any certificate for any name, so
        /// anyone on the path can read the documents and the password. The client records a
        /// `mig-client-insecure-tls` trace event and lists a warning in `MiGClient.securityWarnings`.
        case acceptAnyCertificate
    }

    /// The client's TLS identity.
    public enum ClientIdentity: Sendable {
        /// A password-protected PKCS#12 file (certificate, key and chain), as the original app ships.
        case pkcs12(file: String, password: String)
        /// A certificate chain (DER, leaf first) and the leaf's private key (DER, PKCS#8 or the key type's own
        /// form) the app holds in memory — a derived credential it vaulted with the Ivanti client, say; `source`
        /// names where they came from in errors.
        case der(certificateChain: [[UInt8]], privateKey: [UInt8], source: String)
    }

    /// When and how often to try again after a busy printer or a dropped connection.
    public struct RetryPolicy: Sendable, Equatable {
        /// Total attempts including the first (1 = no retries).
        public var maxAttempts: Int
        /// Wait before the second attempt; each later wait doubles, up to `maxDelay`.
        public var baseDelay: TimeAmount
        /// The longest wait between attempts, before jitter: the doubling stops here.
        public var maxDelay: TimeAmount
        /// Up to this fraction of each wait is added at random (from the node's random stream), so many phones
        /// retrying a restarted MiG do not all come back at once. 0 makes the waits exact.
        public var jitter: Double

        /// Up to `maxAttempts` attempts (at least 1), waiting `baseDelay` then doubling up to `maxDelay`, with up to
        /// `jitter` (clamped to 0...1) of each wait added at random.
        public init(
            maxAttempts: Int = 4, baseDelay: TimeAmount = .milliseconds(500),
            maxDelay: TimeAmount = .seconds(8), jitter: Double = 0
        ) {
            self.maxAttempts = max(1, maxAttempts)
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
            self.jitter = min(max(jitter, 0), 1)
        }

        /// One attempt, no retries.
        public static let none = RetryPolicy(maxAttempts: 1)

        /// The wait after failed attempt `attempt` (1-based), before jitter.
        public func delay(afterAttempt attempt: Int) -> TimeAmount {
            let doubled = baseDelay.nanoseconds << Int64(min(attempt - 1, 30))
            return .nanoseconds(min(doubled, maxDelay.nanoseconds))
        }
    }

    /// Limits on waiting, all measured on the node's clock.
    public struct Timeouts: Sendable, Equatable {
        /// Establishing the TCP connection.
        public var connect: TimeAmount
        /// No byte moving in either direction (and no TLS handshake progress) for this long fails the exchange;
        /// a large upload that keeps moving is never cut off.
        public var idle: TimeAmount
        /// How long to wait for `100 Continue` before sending the body anyway (servers may never send it).
        public var expectContinue: TimeAmount
        /// The most one exchange may take from connecting to the end of the answer, however the bytes trickle
        /// (nil: no limit beyond `connect` and `idle`). `waitForCompletion` sets it to what is left of its timeout.
        public var total: TimeAmount?

        /// Limits for each exchange; by default 10 s to connect, 30 s idle, 1 s for `100 Continue` and no total limit.
        public init(
            connect: TimeAmount = .seconds(10), idle: TimeAmount = .seconds(30),
            expectContinue: TimeAmount = .seconds(1), total: TimeAmount? = nil
        ) {
            self.connect = connect
            self.idle = idle
            self.expectContinue = expectContinue
            self.total = total
        }
    }
}
