import Base64URLEncoding

/// `ACAuthState`.
public enum AuthState: Int, Sendable, CaseIterable {
    case unauthorized = 0
    case authorized = 1
    case retired = 2
    public var word: String { ["unauthorized", "authorized", "retired"][rawValue] }
    public init?(word: String) {
        guard let value = Self.allCases.first(where: { $0.word == word }) else { return nil }
        self = value
    }
}

/// `ACManagedPolicy`.
public enum ManagedPolicy: Int, Sendable, CaseIterable {
    case unknown = 0
    case unmanaged = 1
    case managed = 2
    public var word: String { ["unknown", "unmanaged", "managed"][rawValue] }
    public init?(word: String) {
        guard let value = Self.allCases.first(where: { $0.word == word }) else { return nil }
        self = value
    }
}

/// `ACSecureServicesAvailability`.
public enum SecureServicesAvailability: Int, Sendable, CaseIterable {
    case unavailable = 0
    case available = 1
    public var word: String { ["unavailable", "available"][rawValue] }
    public init?(word: String) {
        guard let value = Self.allCases.first(where: { $0.word == word }) else { return nil }
        self = value
    }
}

/// What the Ivanti client tells an AppConnect app about its state, on the app's AppConnect scheme:
/// `<app-scheme>://state?auth=authorized&policy=managed&secure=available&ready=true&key=<base64url>`.
public struct AppConnectStatus: Sendable, Equatable {
    public var authState: AuthState
    public var managedPolicy: ManagedPolicy
    public var secureServices: SecureServicesAvailability
    public var ready: Bool
    /// The Ivanti client's X25519 public key that credential payloads are sealed for (see ``PayloadSeal``).
    public var clientKey: [UInt8]

    public init(authState: AuthState, managedPolicy: ManagedPolicy, secureServices: SecureServicesAvailability, ready: Bool, clientKey: [UInt8]) {
        self.authState = authState
        self.managedPolicy = managedPolicy
        self.secureServices = secureServices
        self.ready = ready
        self.clientKey = clientKey
    }

    public func url(appScheme: String) -> BusURL {
        BusURL(
            scheme: appScheme, command: "state",
            query: [
                ("auth", authState.word), ("policy", managedPolicy.word), ("secure", secureServices.word),
                ("ready", String(ready)), ("key", Base64URL.encode(clientKey)),
            ])
    }

    /// - throws: ``CredentialProblem`` `malformed-url` naming the item that is missing or wrong.
    public init(url: BusURL) throws(CredentialProblem) {
        func word<T>(_ name: String, _ parse: (String) -> T?, _ expected: String) throws(CredentialProblem) -> T {
            let text = try url.required(name)
            guard let value = parse(text) else { throw CredentialProblem(.malformedURL, "\(name)=\(BusURL.excerpt(text)); expected \(expected)") }
            return value
        }
        authState = try word("auth", AuthState.init(word:), "unauthorized, authorized or retired")
        managedPolicy = try word("policy", ManagedPolicy.init(word:), "unknown, unmanaged or managed")
        secureServices = try word("secure", SecureServicesAvailability.init(word:), "unavailable or available")
        ready = try word("ready", Bool.init, "true or false")
        clientKey = try word(
            "key", { Base64URL.decode($0, padding: .optional).flatMap { $0.count == 32 ? $0 : nil } }, "a base64url X25519 public key (32 bytes)")
    }
}
