import NIOCore
import NIOSSH
import Wire

/// What one SSH connection knows about itself: who logged in, and how often they got the password wrong.
///
/// Confined to the connection's event loop (NIOSSH calls its delegates there).
final class SSHConnectionState: @unchecked Sendable {
    // @unchecked Sendable: touched only on the connection's event loop.
    var user: String?
    var failures = 0
    let remote: String
    /// Address and port, as `serve`'s request log names the connection.
    let peer: String

    init(remote: String, peer: String) {
        self.remote = remote
        self.peer = peer
    }
}

/// Password authentication against the host's Unix accounts, the way sshd answers: a wrong password may be retried,
/// and after `maximumTries` failures the connection is dropped (sshd's MaxAuthTries, "Too many authentication
/// failures"). The password itself never reaches the trace.
final class PasswordAuthentication: NIOSSHServerUserAuthenticationDelegate {
    private let core: SunfireCore
    private let state: SSHConnectionState
    private let connection: any Channel

    init(core: SunfireCore, state: SSHConnectionState, connection: any Channel) {
        self.core = core
        self.state = state
        self.connection = connection
    }

    var supportedAuthenticationMethods: NIOSSHAvailableUserAuthenticationMethods { .password }

    func requestReceived(
        request: NIOSSHUserAuthenticationRequest, responsePromise: EventLoopPromise<NIOSSHUserAuthenticationOutcome>
    ) {
        // OpenSSH clients first ask with method "none" to learn the methods; sshd does not count that as a try.
        guard case .password(let offer) = request.request else {
            responsePromise.succeed(.failure)
            return
        }
        // The accounts live on the host's loop; the verdict comes back to the connection's.
        let core = self.core
        let user = request.username
        let password = offer.password
        let connection = self.connection
        let state = self.state
        core.node.onHome { core.authenticate(user: user, password: password) }.hop(to: connection.eventLoop).whenComplete { result in
            guard case .success(let accepted) = result else {
                // The host is shutting down.
                responsePromise.succeed(.failure)
                connection.close(promise: nil)
                return
            }
            if accepted {
                state.user = user
                core.node.trace("ssh-authenticated", [("user", user), ("from", state.remote)])
                responsePromise.succeed(.success)
                return
            }
            state.failures += 1
            core.node.trace("ssh-auth-failed", [("user", user), ("try", String(state.failures))])
            responsePromise.succeed(.failure)
            if state.failures >= core.configuration.maximumAuthenticationTries {
                core.node.trace("ssh-disconnected", [("user", user), ("reason", "Too many authentication failures")])
                // Let the failure message go out first, as sshd does before it disconnects.
                connection.eventLoop.execute { connection.close(promise: nil) }
            }
        }
    }
}
