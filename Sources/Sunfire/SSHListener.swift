import NIOCore
import NIOSSH
import Wire

/// Accepts SSH connections for Sunfire: drops addresses outside the whitelist before a byte is sent (no banner, so
/// the client sees the connection closed — "Server unreachable" to the app), answers a first line that is no SSH
/// identification as sshd does, then runs swift-nio-ssh with password authentication and session channels.
///
/// Connections run on every loop of the live wire (one loop under simulation): key exchange, encryption and channel
/// framing use every core; the host's state is reached on its home loop and the homes' files on the blocking threads.
enum SSHListener {
    static func start(core: SunfireCore) -> EventLoopFuture<any Listener> {
        let node = core.node
        return node.listen(port: core.configuration.port, connections: .every) { channel in
            let remote = channel.remoteAddress
            let address = remote?.ipAddress ?? "unknown"
            guard let remote, core.currentWhitelist.contains(where: { $0.contains(remote) }) else {
                node.trace("ssh-refused", [("from", address), ("reason", "not in the whitelist")])
                // Failing the initializer drops the connection at once (a reset, as TCP wrappers give OpenSSH:
                // "kex_exchange_identification: read: Connection reset by peer"), before any byte of the banner.
                return channel.eventLoop.makeFailedFuture(WhitelistRefusal(address: address))
            }
            node.trace("ssh-connected", [("from", address)])
            return channel.eventLoop.makeCompletedFuture {
                let state = SSHConnectionState(remote: address, peer: channel.peerText)
                var configuration = SSHServerConfiguration(
                    hostKeys: [core.configuration.hostKey.privateKey],
                    userAuthDelegate: PasswordAuthentication(core: core, state: state, connection: channel),
                    globalRequestDelegate: nil, banner: nil)
                // libssh2 clients (curl, NMSSH) offer only AES-CTR: add it after swift-nio-ssh's AES-GCM.
                configuration.transportProtectionSchemes += [AES128CTRTransportProtection.self, AES256CTRTransportProtection.self]
                // A backstop only: PasswordAuthentication drops the connection at MaxAuthTries, counting as sshd does.
                configuration.maxAuthAttempts = core.configuration.maximumAuthenticationTries * 4
                let ssh = NIOSSHHandler(role: .server(configuration), allocator: channel.allocator) { child, type in
                    guard case .session = type, state.user != nil else {
                        // Port forwarding and other channel types are not part of this host.
                        return child.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
                    }
                    return child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(SessionChannelHandler(core: core, connection: state))
                    }
                }
                try channel.pipeline.syncOperations.addHandler(SSHIdentificationCheck(node: node))
                try channel.pipeline.syncOperations.addHandler(ssh)
                try channel.pipeline.syncOperations.addHandler(SSHConnectionGuard(core: core, state: state))
                // NIOSSHHandler does not pass channelInactive on; the close future tells when the connection ended.
                channel.closeFuture.whenComplete { _ in node.trace("ssh-closed", [("from", address), ("user", state.user ?? "")]) }
            }
        }
    }
}

/// Why a connection was dropped before the banner.
struct WhitelistRefusal: Error, CustomStringConvertible {
    let address: String
    var description: String { "\(address) is not in the host's whitelist" }
}

/// Ends connections that stay unauthenticated too long (sshd's LoginGraceTime) and those that break the protocol.
final class SSHConnectionGuard: ChannelInboundHandler {
    typealias InboundIn = Any

    private let core: SunfireCore
    private let state: SSHConnectionState
    private var graceTimer: Scheduled<Void>?
    private var reported = false

    init(core: SunfireCore, state: SSHConnectionState) {
        self.core = core
        self.state = state
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        graceTimer = context.eventLoop.scheduleTask(in: core.configuration.loginGraceTime) {
            let (handler, context) = loopBound.value
            guard handler.state.user == nil else { return }
            handler.core.node.trace("ssh-disconnected", [("from", handler.state.remote), ("reason", "login grace time over")])
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) { graceTimer?.cancel() }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A client that speaks garbage or breaks the protocol loses its connection, never the host.
        if !reported {
            reported = true
            core.node.trace("ssh-error", [("from", state.remote), ("error", Self.describe(error))])
        }
        context.close(promise: nil)
    }

    /// Error texts without source paths or addresses, so the trace depends on seed and build only.
    static func describe(_ error: any Error) -> String {
        if let ssh = error as? NIOSSHError { return "\(ssh.type)" }
        if let channel = error as? ChannelError { return "\(channel)" }
        return String(describing: type(of: error))
    }
}
