import NIOCore
import NIOSSH
import SunfireHost
import Wire
import WireHTTP

/// Sunfire, the School of Computing's Unix host that the NUS SOC Print app prints through, as an actor: an SSH
/// server (password logins against the host's Unix accounts, only from whitelisted networks) whose exec requests run
/// in the host's shell, with SCP and an SFTP subsystem over the users' home directories, the lpd print spooler, and
/// the SoC account directory that the mysoc site asks for quotas.
///
/// Runs on either wiring: port 22 on the simulated wire, an unprivileged port live (`workbench serve`).
public final class Sunfire: Sendable {
    public struct Configuration: Sendable {
        /// SSH port.
        public var port = 22
        /// The host key (a fixed ed25519 key from `Fixtures/sunfire/`, so traces and known_hosts stay the same).
        public var hostKey: OpenSSHHostKey
        /// Networks allowed to connect; anything else is dropped before the SSH banner, like the real host's
        /// whitelist (the app then says "Server unreachable"). Default: the school's 10.0.0.0/8 and loopback.
        public var whitelist: [AddressRange]
        /// Password failures before the connection is dropped (sshd's MaxAuthTries).
        public var maximumAuthenticationTries = 6
        /// How long a connection may take to log in before it is dropped (sshd's LoginGraceTime).
        public var loginGraceTime: TimeAmount = .seconds(120)
        /// The host's accounts, print quotas and print queues.
        public var host: HostConfiguration
        /// Where homes live: nil keeps them in memory (simulation); a directory keeps real files (live).
        public var homesDirectory: String?
        /// Makes a user's home instead (tests: a file system that behaves in a particular way); called with the user,
        /// the home's path, its quota in bytes and the disk-full fault check, where the host's file work runs (the
        /// blocking threads live). Overrides `homesDirectory`.
        public var makeHome: HomeMaker?
        public typealias HomeMaker =
            @Sendable (
                _ user: String, _ homePath: String, _ quotaBytes: Int64, _ diskFull: @escaping @Sendable () -> Bool
            ) throws -> any HomeFileSystem
        /// Port of the account directory that mysoc asks (plain HTTP inside the school), and the token it must bring.
        public var directoryPort: Int? = 8389
        public var directoryToken = Configuration.defaultDirectoryToken
        /// The token of the demo deployment (mysoc uses the same by default).
        public static let defaultDirectoryToken = "mysoc-directory-demo"

        public init(
            hostKey: OpenSSHHostKey, host: HostConfiguration = HostConfiguration(),
            whitelist: [AddressRange] = Sunfire.defaultWhitelist
        ) {
            self.hostKey = hostKey
            self.host = host
            self.whitelist = whitelist
        }
    }

    /// The school's network and loopback.
    public static let defaultWhitelist: [AddressRange] = ["10.0.0.0/8", "127.0.0.0/8", "::1/128"].compactMap { try? AddressRange($0) }

    public let node: Node
    let core: SunfireCore
    private let listener: any Listener
    private let directory: HTTPServer?

    private init(node: Node, core: SunfireCore, listener: any Listener, directory: HTTPServer?) {
        self.node = node
        self.core = core
        self.listener = listener
        self.directory = directory
    }

    /// Starts the host on `node`.
    public static func start(on node: Node, configuration: Configuration) async throws -> Sunfire {
        let core = try SunfireCore(node: node, configuration: configuration)
        let listener = try await SSHListener.start(core: core).get()
        var directory: HTTPServer?
        if let port = configuration.directoryPort {
            directory = try await HTTPServer.start(on: node, port: port, limits: HTTPServer.Limits(maxBodyBytes: 4096)) { request in
                await core.answerDirectory(request)
            }.get()
        }
        node.trace("started", [("ssh-port", String(listener.port)), ("host-key", configuration.hostKey.fingerprint)])
        return Sunfire(node: node, core: core, listener: listener, directory: directory)
    }

    /// `ssh://USER:PASSWORD@HOST:PORT` for the first (demo) account — works as-is with curl, and its parts with
    /// `ssh -p`, `sftp -P` and `scp -P`.
    public var sshURL: String {
        let account = core.configuration.host.accounts.first
        let credentials = account.map { "\($0.user):\($0.password)@" } ?? ""
        return "ssh://\(credentials)\(listener.host):\(listener.port)"
    }

    public var sshHost: String { listener.host }
    public var sshPort: Int { listener.port }

    /// The account directory's base URL (for mysoc).
    public var directoryURL: String? { directory?.baseURL }

    public var hostKey: OpenSSHHostKey { core.configuration.hostKey }

    public func stop() async throws {
        try await node.eventLoop.submit { self.core.stop() }.get()
        try await listener.close().get()
        try await directory?.stop().get()
        node.trace("stopped")
    }

    // MARK: Administration (what the host's operators can do)

    /// Runs `body` on the host's loop, where its state lives. Its file work (`files`, `run`) runs there too, inline:
    /// administration is the operators', not the clients'.
    public func administer<T: Sendable>(_ body: @escaping @Sendable (SunfireAdministration) throws -> T) async throws -> T {
        try await node.eventLoop.submit { try body(SunfireAdministration(core: self.core)) }.get()
    }
}
