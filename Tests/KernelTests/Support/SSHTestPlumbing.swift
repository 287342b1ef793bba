import Crypto
import NIOCore
import NIOSSH
import Wire

// SSH over the simulated wire: a tiny exec-only server (the shape Sunfire's will have) and an exec client.

/// Fixed test credentials and host key.
enum SSHFixtures {
    static let user = "demo"
    static let password = "demo-password"

    /// An ed25519 host key made from 32 fixed bytes, so every run (and every test) sees the same host key.
    /// Ed25519 signatures are deterministic and always 64 bytes, which keeps handshake sizes fixed.
    static let hostKey: NIOSSHPrivateKey = {
        let seed = (0..<32).map { UInt8($0 &* 7 &+ 1) }
        // Cannot fail: any 32 bytes are a valid Ed25519 private key.
        return NIOSSHPrivateKey(ed25519Key: try! Curve25519.Signing.PrivateKey(rawRepresentation: seed))
    }()

    /// A different key, for a client that expects another host.
    static let otherHostKey: NIOSSHPrivateKey = {
        NIOSSHPrivateKey(ed25519Key: try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32)))
    }()
}

/// Why an SSH exec failed, beyond what the network and NIOSSH report.
enum SSHTestError: Error, Equatable {
    /// The server rejected every credential the client had (here: the one password).
    case authenticationFailed(user: String)
    /// The server's host key is not the one the client knows.
    case unknownHostKey
    /// The server refused the exec request.
    case execRejected
    /// The session channel closed before an exit status arrived.
    case closedWithoutExitStatus
}

/// What an exec gives back.
struct SSHExecResult: Sendable, Equatable {
    var stdout = ""
    var stderr = ""
    var exitStatus = 0
}

// MARK: - Server

/// An SSH server that accepts password logins from a fixed table and runs a toy shell for exec requests:
/// `echo ARGS` prints ARGS and exits 0; anything else prints `sh: 1: CMD: not found` on stderr and exits 127.
enum ExecSSHServer {
    static func start(
        on node: Node, port: Int = 22, hostKey: NIOSSHPrivateKey = SSHFixtures.hostKey,
        users: [String: String] = [SSHFixtures.user: SSHFixtures.password]
    ) -> EventLoopFuture<any Listener> {
        node.listen(port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                let configuration = SSHServerConfiguration(
                    hostKeys: [hostKey], userAuthDelegate: PasswordTableDelegate(node: node, users: users))
                let ssh = NIOSSHHandler(
                    role: .server(configuration), allocator: channel.allocator,
                    inboundChildChannelInitializer: { child, type in
                        guard case .session = type else {
                            return child.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
                        }
                        return child.eventLoop.makeCompletedFuture {
                            try child.pipeline.syncOperations.addHandler(ToyShellExecHandler(node: node))
                        }
                    })
                try channel.pipeline.syncOperations.addHandler(ssh)
                try channel.pipeline.syncOperations.addHandler(ConnectionErrorHandler<Never>(node: node, role: "server"))
            }
        }
    }
}

/// Server-side password check against a table. Traces the outcome (never the password).
private final class PasswordTableDelegate: NIOSSHServerUserAuthenticationDelegate {
    private let node: Node
    private let users: [String: String]

    init(node: Node, users: [String: String]) {
        self.node = node
        self.users = users
    }

    var supportedAuthenticationMethods: NIOSSHAvailableUserAuthenticationMethods { .password }

    func requestReceived(
        request: NIOSSHUserAuthenticationRequest, responsePromise: EventLoopPromise<NIOSSHUserAuthenticationOutcome>
    ) {
        var accepted = false
        if case .password(let offer) = request.request, let expected = users[request.username] {
            accepted = offer.password == expected
        }
        node.trace("ssh-auth", [("user", request.username), ("outcome", accepted ? "success" : "failure")])
        responsePromise.succeed(accepted ? .success : .failure)
    }
}

/// Server side of one session channel: answers one exec request with stdout, stderr, exit status, then close —
/// in that order, or clients report exit 255 (see sunfire.md).
private final class ToyShellExecHandler: ChannelInboundHandler {
    typealias InboundIn = SSHChannelData
    typealias OutboundOut = SSHChannelData

    private let node: Node

    init(node: Node) { self.node = node }

    func handlerAdded(context: ChannelHandlerContext) {
        // A client may half-close (send EOF on stdin) before reading our output; that must not close the channel.
        _ = context.channel.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let exec = event as? SSHChannelRequestEvent.ExecRequest else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        node.trace("ssh-exec", [("command", exec.command)])
        if exec.wantReply { context.triggerUserOutboundEvent(ChannelSuccessEvent(), promise: nil) }
        let result = Self.run(exec.command)
        // stderr must be SSHChannelData of type .stdErr: a plain ByteBuffer write crashes NIOSSH (see sunfire.md).
        if !result.stdout.isEmpty {
            context.write(
                wrapOutboundOut(SSHChannelData(type: .channel, data: .byteBuffer(ByteBuffer(string: result.stdout)))),
                promise: nil)
        }
        if !result.stderr.isEmpty {
            context.write(
                wrapOutboundOut(SSHChannelData(type: .stdErr, data: .byteBuffer(ByteBuffer(string: result.stderr)))),
                promise: nil)
        }
        context.flush()
        context.triggerUserOutboundEvent(SSHChannelRequestEvent.ExitStatus(exitStatus: result.exitStatus), promise: nil)
        node.trace("ssh-exit", [("command", exec.command), ("status", String(result.exitStatus))])
        context.close(promise: nil)
    }

    /// The toy shell.
    static func run(_ command: String) -> SSHExecResult {
        let words = command.split(separator: " ", omittingEmptySubsequences: true)
        guard let name = words.first else { return SSHExecResult() }
        if name == "echo" {
            return SSHExecResult(stdout: words.dropFirst().joined(separator: " ") + "\n", exitStatus: 0)
        }
        return SSHExecResult(stderr: "sh: 1: \(name): not found\n", exitStatus: 127)
    }
}

// MARK: - Client

/// An SSH client that logs in with a password, runs one command and collects its output and exit status.
enum SSHExecClient {
    /// Connects from `node` to `host:port`, checks the host key, authenticates, execs `command` on a session
    /// channel, and closes the connection once the command's channel has closed.
    ///
    /// - throws: the connect's `WireError`; the first error of the connection (a reset, NIOSSH errors);
    ///   ``SSHTestError/authenticationFailed(user:)`` when the password is rejected;
    ///   ``SSHTestError/unknownHostKey`` when the server's key is not `expectedHostKey`.
    static func exec(
        _ command: String, host: String, port: Int = 22, user: String = SSHFixtures.user,
        password: String = SSHFixtures.password, expectedHostKey: NIOSSHPublicKey = SSHFixtures.hostKey.publicKey,
        on node: Node, connectTimeout: TimeAmount = .seconds(10)
    ) async throws -> SSHExecResult {
        let promise = node.eventLoop.makePromise(of: SSHExecResult.self)
        let channel = try await node.connect(host: host, port: port, timeout: connectTimeout) { channel in
            channel.eventLoop.makeCompletedFuture {
                let outcome = ExchangeOutcome(promise)
                let configuration = SSHClientConfiguration(
                    userAuthDelegate: OnePasswordDelegate(node: node, user: user, password: password),
                    serverAuthDelegate: KnownHostKeyDelegate(node: node, expected: expectedHostKey))
                let ssh = NIOSSHHandler(
                    role: .client(configuration), allocator: channel.allocator,
                    inboundChildChannelInitializer: nil)
                try channel.pipeline.syncOperations.addHandler(ssh)
                try channel.pipeline.syncOperations.addHandler(ConnectionErrorHandler(node: node, role: "client", outcome: outcome))
                // NIOSSH holds this until user authentication has succeeded, then opens the session channel.
                ssh.createChannel(nil, channelType: .session) { child, _ in
                    child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(ExecClientHandler(command: command, node: node, outcome: outcome))
                    }
                }
            }
        }.get()
        do {
            let result = try await promise.futureResult.get()
            try? await channel.close()
            return result
        } catch {
            try? await channel.close()
            throw error
        }
    }
}

/// Offers one password; when the server asks again (it rejected it) or does not take passwords, gives up.
///
/// NIOSSH asks the delegate for the next method after every failure; failing that promise is how a client
/// gives up — NIOSSH fires the error down the pipeline, where ``ConnectionErrorHandler`` ends the exchange.
private final class OnePasswordDelegate: NIOSSHClientUserAuthenticationDelegate {
    private let node: Node
    private let user: String
    private let password: String
    private var offered = false

    init(node: Node, user: String, password: String) {
        self.node = node
        self.user = user
        self.password = password
    }

    func nextAuthenticationType(
        availableMethods: NIOSSHAvailableUserAuthenticationMethods,
        nextChallengePromise: EventLoopPromise<NIOSSHUserAuthenticationOffer?>
    ) {
        guard !offered, availableMethods.contains(.password) else {
            node.trace("ssh-auth-gave-up", [("user", user)])
            nextChallengePromise.fail(SSHTestError.authenticationFailed(user: user))
            return
        }
        offered = true
        nextChallengePromise.succeed(
            NIOSSHUserAuthenticationOffer(username: user, serviceName: "", offer: .password(.init(password: password))))
    }
}

/// Accepts exactly one host key (a known_hosts with one line).
private final class KnownHostKeyDelegate: NIOSSHClientServerAuthenticationDelegate {
    private let node: Node
    private let expected: NIOSSHPublicKey

    init(node: Node, expected: NIOSSHPublicKey) {
        self.node = node
        self.expected = expected
    }

    func validateHostKey(hostKey: NIOSSHPublicKey, validationCompletePromise: EventLoopPromise<Void>) {
        let known = hostKey == expected
        node.trace("ssh-host-key", [("known", String(known))])
        if known { validationCompletePromise.succeed(()) } else { validationCompletePromise.fail(SSHTestError.unknownHostKey) }
    }
}

/// Client side of the session channel: sends the exec request, collects stdout, stderr and the exit status, and
/// settles when the channel closes.
private final class ExecClientHandler: ChannelInboundHandler {
    typealias InboundIn = SSHChannelData

    private let command: String
    private let node: Node
    private let outcome: ExchangeOutcome<SSHExecResult>
    private var result = SSHExecResult()
    private var exitStatus: Int?

    init(command: String, node: Node, outcome: ExchangeOutcome<SSHExecResult>) {
        self.command = command
        self.node = node
        self.outcome = outcome
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // The server's EOF comes before its CLOSE; keep the channel open until CLOSE so nothing is cut short.
        _ = context.channel.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
    }

    func channelActive(context: ChannelHandlerContext) {
        node.trace("ssh-exec-request", [("command", command)])
        context.triggerUserOutboundEvent(SSHChannelRequestEvent.ExecRequest(command: command, wantReply: true), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        guard case .byteBuffer(let bytes) = message.data else { return }
        switch message.type {
        case .channel: result.stdout += String(buffer: bytes)
        case .stdErr: result.stderr += String(buffer: bytes)
        default: break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let status as SSHChannelRequestEvent.ExitStatus:
            exitStatus = status.exitStatus
            node.trace("ssh-exit-status", [("command", command), ("status", String(status.exitStatus))])
        case is ChannelFailureEvent:
            outcome.fail(SSHTestError.execRejected)
            context.close(promise: nil)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        outcome.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let exitStatus {
            result.exitStatus = exitStatus
            outcome.succeed(result)
        } else {
            // A connection error, if there was one, has already settled the outcome with itself.
            outcome.fail(SSHTestError.closedWithoutExitStatus)
        }
        context.fireChannelInactive()
    }
}
