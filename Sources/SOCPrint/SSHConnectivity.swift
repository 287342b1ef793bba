import NIOCore
import NIOSSH
import Wire

/// The app's `SSHConnectivity`: one SSH connection to the print host with password authentication, then one exec
/// channel per command, one after another — over a `Node`, so it runs on the simulated wire and live.
///
/// **The host key is not checked** by default, exactly as the app (NMSSH / JSch) did: anyone who can answer on the
/// host's address sees the password. Pass ``HostKeyPolicy/pinned(_:)`` with the host's key to refuse impostors.
public final class SSHConnectivity: @unchecked Sendable {
    // @unchecked Sendable: mutable state (`channel`, `handler`) is touched only on `node.eventLoop`.

    /// Whether to trust the server's host key.
    public enum HostKeyPolicy: Sendable {
        /// Accept any key (what the app did).
        case acceptAny
        /// Accept only this key: an OpenSSH public key line (`ssh-ed25519 AAAA…`).
        case pinned(String)
    }

    /// What one exec gave back.
    public struct ExecResult: Sendable, Equatable {
        /// Everything the command wrote to standard output, as text.
        public var stdout = ""
        /// Everything the command wrote to standard error, as text.
        public var stderr = ""
        /// The exit status the server reported; 0 is success.
        public var exitStatus = 0
    }

    /// Why a login or a command could not be carried out.
    public enum ConnectivityError: Error, Equatable, CustomStringConvertible {
        /// No connection is open: ``SSHConnectivity/connect()`` was not called or failed, or the connection was closed.
        case notConnected
        /// The server refused the password of `user`, or offered no password login.
        case authenticationFailed(user: String)
        /// The server's host key is not the one pinned with ``SSHConnectivity/HostKeyPolicy/pinned(_:)``.
        case hostKeyMismatch
        /// The server refused to run the command (or subsystem) given.
        case execRefused(String)
        /// The channel of the command given closed before the server reported its exit status.
        case closedWithoutExitStatus(String)

        /// The failure in words, naming the user or command concerned.
        public var description: String {
            switch self {
            case .notConnected: "not connected to the server"
            case .authenticationFailed(let user): "the server refused the password of \(user)"
            case .hostKeyMismatch: "the server's host key is not the pinned one"
            case .execRefused(let command): "the server refused to run: \(command)"
            case .closedWithoutExitStatus(let command): "the channel closed before '\(command)' reported an exit status"
            }
        }
    }

    /// The print host's name or address, from Settings' server.
    public let host: String
    /// The SSH port: 22 unless Settings' server names another.
    public let port: Int
    /// The Unix username the password login offers.
    public let user: String
    let password: String
    /// The node the connection leaves from; its trace records logins, uploads and print steps.
    public let node: Node
    /// Which host keys the login accepts: any (as the app), or only a pinned one.
    public let hostKeyPolicy: HostKeyPolicy
    /// The app's connect timeout.
    public let connectTimeout: TimeAmount
    private var channel: (any Channel)?

    /// A connection not made yet: ``SSHConnectivity/connect()`` logs in with `password`, and the whole login must finish
    /// within `connectTimeout`.
    public init(
        host: String, port: Int = 22, user: String, password: String, node: Node,
        hostKeyPolicy: HostKeyPolicy = .acceptAny, connectTimeout: TimeAmount = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.node = node
        self.hostKeyPolicy = hostKeyPolicy
        self.connectTimeout = connectTimeout
    }

    /// How a login went: what the app reports ("Server unreachable…" when the server is not found, "Username/Password
    /// incorrect" when it is but refuses the password), and in words why it failed.
    public struct Login: Sendable, Equatable {
        /// False when no connection was made, or the login ended for any reason but a refused password (the app
        /// then shows ``Alert/serverUnreachable``).
        public let serverFound: Bool
        /// Whether the password was accepted; only then is the connection open for commands.
        public let authorised: Bool
        /// Why the login failed (nil when it did not): the refused user, the unreachable address and the network's reason.
        public let failure: String?
    }

    /// Connects and logs in. An existing connection is closed first.
    public func connect() async -> Login {
        await disconnect()
        let authenticated = node.eventLoop.makePromise(of: Void.self)
        let user = self.user
        let password = self.password
        let policy = hostKeyPolicy
        let node = self.node
        do {
            let channel = try await node.connect(host: host, port: port, timeout: connectTimeout) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let configuration = SSHClientConfiguration(
                        userAuthDelegate: OnePasswordOffer(user: user, password: password),
                        serverAuthDelegate: HostKeyCheck(policy: policy))
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSHHandler(role: .client(configuration), allocator: channel.allocator, inboundChildChannelInitializer: nil))
                    try channel.pipeline.syncOperations.addHandler(AuthenticationWatcher(promise: authenticated))
                }
            }.get()
            // The whole login shares the connect timeout, as the app's 10 s covered connect and authentication.
            let timer = node.eventLoop.scheduleTask(in: connectTimeout) { authenticated.fail(WireError(.timedOut, "\(self.host):\(self.port)")) }
            defer { timer.cancel() }
            do {
                try await authenticated.futureResult.get()
                try await node.eventLoop.submit { self.channel = channel }.get()
                node.trace("ssh-login", [("host", host), ("user", user), ("outcome", "authorised")])
                return Login(serverFound: true, authorised: true, failure: nil)
            } catch ConnectivityError.authenticationFailed {
                try? await channel.close()
                node.trace("ssh-login", [("host", host), ("user", user), ("outcome", "refused")])
                return Login(
                    serverFound: true, authorised: false,
                    failure: "\(host):\(port) refused the password of \(user) (check the user and password)")
            } catch {
                try? await channel.close()
                node.trace("ssh-login", [("host", host), ("user", user), ("outcome", "unreachable")])
                return Login(serverFound: false, authorised: false, failure: "the SSH login to \(host):\(port) did not complete: \(error)")
            }
        } catch {
            authenticated.fail(error)
            node.trace("ssh-login", [("host", host), ("user", user), ("outcome", "unreachable")])
            return Login(serverFound: false, authorised: false, failure: "cannot reach \(host):\(port): \(error)")
        }
    }

    /// Runs `command` on its own exec channel and returns stdout, stderr and the exit status.
    ///
    /// - parameters:
    ///   - command: the command line to run; with `subsystem`, the subsystem's name.
    ///   - input: bytes for the command's standard input (then end of input), like `ssh host cmd < file`.
    ///   - subsystem: run `command` as a subsystem (e.g. `sftp`) instead of a command line, like `ssh -s`.
    public func execute(_ command: String, input: [UInt8] = [], subsystem: Bool = false) async throws -> ExecResult {
        let done = node.eventLoop.makePromise(of: ExecResult.self)
        do {
            try await node.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
                guard let channel = self.channel else { return self.node.eventLoop.makeFailedFuture(ConnectivityError.notConnected) }
                return channel.pipeline.handler(type: NIOSSHHandler.self).flatMap { ssh in
                    let created = channel.eventLoop.makePromise(of: (any Channel).self)
                    ssh.createChannel(created, channelType: .session) { child, _ in
                        child.eventLoop.makeCompletedFuture {
                            try child.pipeline.syncOperations.addHandler(
                                ExecChannel(command: command, input: input, subsystem: subsystem, promise: done))
                        }
                    }
                    return created.futureResult.map { _ in }
                }
            }.get()
        } catch {
            // No exec channel took the promise (the connection was gone, or the server refused the channel): it is
            // ours to complete. If a channel did take it and fail it, this second completion is ignored.
            done.fail(error)
            throw error
        }
        return try await done.futureResult.get()
    }

    /// The app's `runCommand`: stdout only (stderr and the exit status ignored), or the literal `Nil` when the exec
    /// itself failed — the app's convention, kept because its callers compare against it.
    public func runCommand(_ command: String) async -> String {
        do { return try await execute(command).stdout } catch { return "Nil" }
    }

    /// The open connection (on the node's loop only).
    var currentChannel: (any Channel)? { channel }

    /// Closes the connection; safe without one.
    public func disconnect() async {
        let channel = try? await node.eventLoop.submit { () -> (any Channel)? in
            defer { self.channel = nil }
            return self.channel
        }.get()
        if let channel { try? await channel.close() }
    }
}

/// Offers the password once; asked again means the server refused it.
private final class OnePasswordOffer: NIOSSHClientUserAuthenticationDelegate {
    private let user: String
    private let password: String
    private var offered = false

    init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    func nextAuthenticationType(
        availableMethods: NIOSSHAvailableUserAuthenticationMethods,
        nextChallengePromise: EventLoopPromise<NIOSSHUserAuthenticationOffer?>
    ) {
        guard !offered, availableMethods.contains(.password) else {
            nextChallengePromise.fail(SSHConnectivity.ConnectivityError.authenticationFailed(user: user))
            return
        }
        offered = true
        nextChallengePromise.succeed(NIOSSHUserAuthenticationOffer(username: user, serviceName: "", offer: .password(.init(password: password))))
    }
}

private final class HostKeyCheck: NIOSSHClientServerAuthenticationDelegate {
    private let policy: SSHConnectivity.HostKeyPolicy

    init(policy: SSHConnectivity.HostKeyPolicy) { self.policy = policy }

    func validateHostKey(hostKey: NIOSSHPublicKey, validationCompletePromise: EventLoopPromise<Void>) {
        switch policy {
        case .acceptAny:
            validationCompletePromise.succeed(())
        case .pinned(let line):
            let expected = try? NIOSSHPublicKey(openSSHPublicKey: line.split(separator: " ").prefix(2).joined(separator: " "))
            if expected == hostKey {
                validationCompletePromise.succeed(())
            } else {
                validationCompletePromise.fail(SSHConnectivity.ConnectivityError.hostKeyMismatch)
            }
        }
    }
}

/// Completes the login promise: success on NIOSSH's `UserAuthSuccessEvent`, failure on the first error or close.
private final class AuthenticationWatcher: ChannelInboundHandler {
    typealias InboundIn = Any
    private let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is UserAuthSuccessEvent { promise.succeed(()) }
        if case ChannelEvent.inputClosed = event {
            // The server hung up (a whitelist drops connections before its banner): no SSH server answers here.
            promise.fail(WireError(.closed, "the server closed the connection"))
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(WireError(.closed, "the server closed the connection"))
        context.fireChannelInactive()
    }
}

/// One exec: sends the request, gathers stdout, stderr and the exit status, settles when the channel closes.
private final class ExecChannel: ChannelInboundHandler {
    typealias InboundIn = SSHChannelData

    private let command: String
    private let input: [UInt8]
    private let subsystem: Bool
    private let promise: EventLoopPromise<SSHConnectivity.ExecResult>
    private var result = SSHConnectivity.ExecResult()
    private var exitStatus: Int?

    init(command: String, input: [UInt8], subsystem: Bool, promise: EventLoopPromise<SSHConnectivity.ExecResult>) {
        self.command = command
        self.input = input
        self.subsystem = subsystem
        self.promise = promise
    }

    func handlerAdded(context: ChannelHandlerContext) {
        _ = context.channel.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
    }

    func channelActive(context: ChannelHandlerContext) {
        if subsystem {
            context.triggerUserOutboundEvent(SSHChannelRequestEvent.SubsystemRequest(subsystem: command, wantReply: true), promise: nil)
        } else {
            context.triggerUserOutboundEvent(SSHChannelRequestEvent.ExecRequest(command: command, wantReply: true), promise: nil)
        }
        if !input.isEmpty {
            context.write(NIOAny(SSHChannelData(type: .channel, data: .byteBuffer(ByteBuffer(bytes: input)))), promise: nil)
        }
        // Then end of input, so a command that reads stdin sees EOF (the app itself sends none).
        context.writeAndFlush(NIOAny(SSHChannelData(type: .channel, data: .byteBuffer(ByteBuffer()))), promise: nil)
        context.close(mode: .output, promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        guard case .byteBuffer(let bytes) = message.data else { return }
        if message.type == .channel {
            result.stdout += String(buffer: bytes)
        } else if message.type == .stdErr {
            result.stderr += String(buffer: bytes)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let status as SSHChannelRequestEvent.ExitStatus: exitStatus = status.exitStatus
        case is ChannelFailureEvent:
            promise.fail(SSHConnectivity.ConnectivityError.execRefused(command))
            context.close(promise: nil)
        default: context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let exitStatus {
            result.exitStatus = exitStatus
            promise.succeed(result)
        } else {
            promise.fail(SSHConnectivity.ConnectivityError.closedWithoutExitStatus(command))
        }
        context.fireChannelInactive()
    }
}
