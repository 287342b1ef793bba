import Crypto
import DerivedCredential
import NIOCore
import Synchronization
import Wire
import WireHTTP

/// The simulated Ivanti client app (Mobile@Work / Ivanti Go) as far as AppConnect derived credentials go.
///
/// On the bus it handles `appconnect` (apps start AppConnect: `appconnect://register?scheme=S`) and
/// `appconnectdc` (derived credentials: `appconnectdc://credential?…`, `appconnectdc://certificate?…`). An
/// old client handles only `appconnect`; a missing one neither — which is how apps tell them apart.
///
/// - AppConnect state (auth state, managed policy, passcode entered, ready) is device-wide and set with
///   ``setState(_:)``; secure services are available when the passcode is entered, the app is authorized and
///   AppConnect is ready. Every change is sent to each registered app as `<app-scheme>://state?…`, which
///   also carries the client's X25519 public key.
/// - A credential payload is sealed by the app for that key (see ``DerivedCredential/PayloadSeal``: X25519,
///   HKDF-SHA256, AES-256-GCM bound to the sending app), opened here, checked (``CredentialValidator``) and
///   stored whole in the ``CredentialVault`` (AES-256-GCM at rest), owned by the app that sent it. It is
///   refused while secure services are unavailable, or when the fault point
///   ``secureServicesFault`` fires.
/// - An app may ask for the certificate (never the private key) of a credential it owns; asking for another
///   app's is denied exactly like asking for one that does not exist.
/// - ``requestNewCredential(app:)`` asks an app for a new credential by opening `<callback-scheme>://new`.
/// - Optionally, an HTTP gateway (``WireHTTP/URLBusGateway``) makes the bus reachable from outside.
///
/// Bad input never stops it: each refusal is traced as `credential-rejected` with a stable `problem` code and
/// kept as ``lastOutcome`` with a detail saying what was wrong and what was expected.
public final class IvantiClient: Sendable {
    /// Which Ivanti client is installed on the phone.
    public enum Installation: String, Sendable, CaseIterable {
        /// Supports derived credentials: handles `appconnect` and `appconnectdc`.
        case current
        /// Predates derived credentials: handles `appconnect` only.
        case old
        /// Not installed: handles nothing.
        case missing
    }

    /// The device-wide AppConnect knobs.
    public struct State: Sendable, Equatable {
        public var authState: AuthState = .authorized
        public var managedPolicy: ManagedPolicy = .managed
        public var passcodeEntered = true
        public var ready = true

        public init() {}

        /// Secure services need the passcode entered, the app authorized and AppConnect ready.
        public var secureServices: SecureServicesAvailability {
            passcodeEntered && authState == .authorized && ready ? .available : .unavailable
        }
    }

    public struct Configuration: Sendable {
        public var installation: Installation = .current
        /// The vault's SQLite file; `nil` keeps it in memory.
        public var databasePath: String?
        /// The port of the bus gateway; `nil` for none.
        public var gatewayPort: Int?
        /// Whose credential a certificate request reads: ``CredentialLookup/askersOwn`` unless the workbench's swarm says.
        public var credentialLookup = CredentialLookup.askersOwn

        public init(installation: Installation = .current, databasePath: String? = nil, gatewayPort: Int? = nil) {
            self.installation = installation
            self.databasePath = databasePath
            self.gatewayPort = gatewayPort
        }
    }

    /// Whose credential a certificate request from an app reads.
    ///
    /// An app may read only its own: ``askersOwn``, what ships. The value is a seam for the workbench's swarm, which
    /// gives the client a realistic wrong lookup through it to prove that its invariant catches one; the client's own
    /// code has no such branch.
    public struct CredentialLookup: Sendable {
        /// The owner of the credential that answers `asker`'s request for serial number `serial`; `client` lists
        /// what its vault holds.
        public var owner: @Sendable (_ serial: String, _ asker: String, _ client: IvantiClient) throws -> String

        public init(owner: @escaping @Sendable (_ serial: String, _ asker: String, _ client: IvantiClient) throws -> String) {
            self.owner = owner
        }

        /// The asking app's own credential.
        public static let askersOwn = CredentialLookup { _, asker, _ in asker }
    }

    /// What became of the last credential received.
    public struct Outcome: Sendable, Equatable {
        public let app: String
        /// `stored` or `rejected`.
        public let result: String
        /// The serial number, when the payload opened far enough to tell it.
        public let serialNumber: String
        /// The ``DerivedCredential/CredentialProblem`` code, empty when stored.
        public let problem: String
        public let detail: String
    }

    /// The fault point that makes secure services unavailable for the credential being received.
    public static let secureServicesFault = "ivanti.secure-services-unavailable"

    public let node: Node
    let vault: CredentialVault
    let identity: Curve25519.KeyAgreement.PrivateKey
    let gateway: HTTPServer?
    let credentialLookup: CredentialLookup
    let mutable: Mutex<Mutable>

    struct Mutable {
        var installation: Installation
        var state = State()
        /// App name → the scheme it receives AppConnect messages on.
        var registeredApps: [String: String] = [:]
        var lastOutcome: Outcome?
    }

    private init(
        node: Node, vault: CredentialVault, identity: Curve25519.KeyAgreement.PrivateKey, gateway: HTTPServer?,
        credentialLookup: CredentialLookup, installation: Installation
    ) {
        self.node = node
        self.vault = vault
        self.identity = identity
        self.gateway = gateway
        self.credentialLookup = credentialLookup
        self.mutable = Mutex(Mutable(installation: installation))
    }

    /// Starts the client on `node`: opens the vault, starts the gateway if asked, registers its schemes.
    public static func start(on node: Node, configuration: Configuration = Configuration()) async throws -> IvantiClient {
        node.faults.declare(secureServicesFault)
        let vault = try CredentialVault(path: configuration.databasePath, secrets: node.secrets)
        // From the node's secrets: the seed under simulation (the public key, shown in state URLs, replays), the CSPRNG live.
        let identity = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: node.secrets.bytes(32))
        var gateway: HTTPServer?
        if let port = configuration.gatewayPort {
            gateway = try await URLBusGateway.start(on: node, port: port, maxURLBytes: CredentialLimits.maxURLBytes).get()
        }
        let client = IvantiClient(
            node: node, vault: vault, identity: identity, gateway: gateway, credentialLookup: configuration.credentialLookup,
            installation: configuration.installation)
        client.registerSchemes(for: configuration.installation)
        node.trace("started", [("installation", configuration.installation.rawValue)])
        return client
    }

    /// URLs a client can use as-is.
    public var endpoints: [(label: String, url: String)] {
        (gateway.map { [("bus", $0.baseURL + "/open")] } ?? []) + [("scheme", IvantiScheme.derivedCredential + "://")]
    }

    /// Leaves the bus and stops the gateway.
    public func stop() async throws {
        registerSchemes(for: .missing)
        try await gateway?.stop().get()
        node.trace("stopped")
    }

    // MARK: - Knobs

    /// The X25519 public key apps seal credentials for (also sent in every state message).
    public var publicKey: [UInt8] { Array(identity.publicKey.rawRepresentation) }

    public var installation: Installation { mutable.withLock { $0.installation } }
    public var state: State { mutable.withLock { $0.state } }
    public var lastOutcome: Outcome? { mutable.withLock { $0.lastOutcome } }

    /// Installs, upgrades, downgrades or removes the client (apps see it through the bus's schemes).
    public func setInstallation(_ installation: Installation) {
        let previous = mutable.withLock { all in
            defer { all.installation = installation }
            return all.installation
        }
        guard previous != installation else { return }
        registerSchemes(for: installation)
        node.trace("installation-changed", [("from", previous.rawValue), ("to", installation.rawValue)])
    }

    /// Changes the AppConnect state and tells every registered app, in app-name order.
    public func setState(_ change: (inout State) -> Void) {
        let (state, apps) = mutable.withLock { all in
            change(&all.state)
            return (all.state, all.registeredApps.sorted { $0.key < $1.key })
        }
        node.trace(
            "state-changed",
            [
                ("auth", state.authState.word), ("policy", state.managedPolicy.word), ("ready", String(state.ready)),
                ("passcode", state.passcodeEntered ? "entered" : "missing"), ("secure", state.secureServices.word),
            ])
        for (_, scheme) in apps { sendState(state, to: scheme) }
    }

    /// Stored credentials (of `app`, or all), without key material.
    public func credentials(of app: String? = nil) throws -> [StoredCredential] {
        try vault.summaries(owner: app)
    }

    /// Asks `app` for a new derived credential by opening `<callback-scheme>://new`, with the callback scheme of
    /// its latest credential; like any `open`, this brings the app to the front.
    ///
    /// - returns: whether an app handles that scheme.
    /// - throws: ``IvantiClientError`` when the app never sent a credential (its callback scheme is unknown).
    @discardableResult
    public func requestNewCredential(app: String) throws -> Bool {
        guard let latest = try vault.summaries(owner: app).max(by: { ($0.receivedAt, $0.serialNumber) < ($1.receivedAt, $1.serialNumber) }) else {
            throw IvantiClientError("app '\(app)' has sent no derived credential, so its callback scheme is unknown")
        }
        let url = AppConnectReply.newCredential.url(scheme: latest.callbackScheme).description
        node.trace("renewal-requested", [("app", app), ("serial", latest.serialNumber)])
        return node.bus.open(url, from: node.name)
    }

    // MARK: - Bus

    private func registerSchemes(for installation: Installation) {
        let handled: [String] =
            switch installation {
            case .current: [IvantiScheme.appConnect, IvantiScheme.derivedCredential]
            case .old: [IvantiScheme.appConnect]
            case .missing: []
            }
        // The installed version's Info.plist: its URL types; it asks canOpenURL about nothing.
        node.bus.declare(app: node.name, installation == .missing ? nil : URLBus.AppDeclaration(urlSchemes: handled, queriesSchemes: []))
        for scheme in [IvantiScheme.appConnect, IvantiScheme.derivedCredential] {
            if handled.contains(scheme) {
                if node.bus.owner(of: scheme) != node.name {
                    node.bus.register(
                        scheme: scheme, owner: node.name, on: node.eventLoop,
                        answering: { [self] url, sender in receive(url, from: sender) })
                }
            } else if node.bus.owner(of: scheme) == node.name {
                node.bus.unregister(scheme: scheme, owner: node.name)
            }
        }
    }

    func sendState(_ state: State, to appScheme: String) {
        let status = AppConnectStatus(
            authState: state.authState, managedPolicy: state.managedPolicy, secureServices: state.secureServices,
            ready: state.ready, clientKey: publicKey)
        // AppConnect's background exchange: the app is told without an app switch.
        node.bus.open(AppConnectReply.state(status).url(scheme: appScheme).description, from: node.name, activating: false)
    }
}

/// A request the Ivanti client cannot carry out.
public struct IvantiClientError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
