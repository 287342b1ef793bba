import NIOCore
import NIOSSH
import SunfireHost
import Wire

/// One SSH session channel on Sunfire: an exec request runs one command of the host's shell (or an SCP copy), a
/// subsystem request starts SFTP. Output goes out as the real sshd sends it — stdout, then stderr, then the exit
/// status, then close — or clients report exit 255 (see sunfire.md).
///
/// Runs on the connection's loop. Everything that touches a home — a command's files, SCP, SFTP — runs on the node's
/// blocking threads live, one step at a time per channel so requests keep their order, its answer back here; under
/// simulation each step runs at once, inline, in the same order. While a channel's steps lag behind its input by more
/// than ``backlogLimit`` bytes, the handler stops reading, so the client's SSH window closes instead of our memory
/// filling.
final class SessionChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = SSHChannelData
    typealias InboundOut = SSHChannelData
    typealias OutboundIn = SSHChannelData
    typealias OutboundOut = SSHChannelData

    /// Bytes a channel may have waiting for its blocking steps before reading stops (what arrives meanwhile waits in
    /// swift-nio-ssh's channel buffer, within the SSH window, without being copied again).
    static let backlogLimit = 256 << 10

    private enum Mode {
        case idle
        /// The user's home is being opened (on the blocking threads) for SCP or SFTP; input waits in `early`.
        case opening
        case command
        case scpSink(SCPSinkChannel)
        case scpSource(SCPSourceChannel)
        case sftp(SFTPChannel)
        case finished
    }

    private let core: SunfireCore
    private let connection: SSHConnectionState
    private var mode = Mode.idle
    /// Bytes that arrived before the request that says what they are for (a client may send them right away).
    private var early: [UInt8] = []
    /// The exec request's command, for the exit's trace event (a shell or SFTP session has none).
    private var command: String?
    /// A read NIO asked for while the channel's steps were backlogged (see ``backlogLimit``).
    private var readWithheld = false

    init(core: SunfireCore, connection: SSHConnectionState) {
        self.core = core
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // A client may half-close (EOF on stdin) before it reads our output; that must not close the channel.
        _ = context.channel.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let exec as SSHChannelRequestEvent.ExecRequest:
            guard case .idle = mode else { return refuse(context, wantReply: exec.wantReply) }
            if exec.wantReply { context.triggerUserOutboundEvent(ChannelSuccessEvent(), promise: nil) }
            startExec(context, exec.command)
        case let subsystem as SSHChannelRequestEvent.SubsystemRequest:
            guard case .idle = mode, subsystem.subsystem == "sftp", let user = connection.user else {
                return refuse(context, wantReply: subsystem.wantReply)
            }
            if subsystem.wantReply { context.triggerUserOutboundEvent(ChannelSuccessEvent(), promise: nil) }
            openHome(context, user: user) { handler, context, opened in
                switch opened {
                case .success(let fileSystem):
                    let channel = SFTPChannel(core: handler.core, user: user, fileSystem: fileSystem)
                    channel.drained = { [weak handler] in handler?.resumeReading(context) }
                    handler.mode = .sftp(channel)
                    handler.core.node.trace("sftp-session", [("user", user)])
                    handler.feed(context, handler.early)
                case .failure(let error):
                    handler.finish(context, stdout: [], stderr: Array("\(error)\n".utf8), exitStatus: 1)
                }
            }
        case let shell as SSHChannelRequestEvent.ShellRequest:
            // The app only ever runs commands; an interactive login is not part of this host.
            if shell.wantReply { context.triggerUserOutboundEvent(ChannelSuccessEvent(), promise: nil) }
            mode = .command
            finish(
                context, stdout: [],
                stderr: Array("Sunfire (workbench): interactive shells are not available; run a command, e.g. ssh HOST ls\n".utf8),
                exitStatus: 1)
        case let request as SSHChannelRequestEvent.EnvironmentRequest:
            // sshd accepts only the variables its AcceptEnv names; this host accepts none (nothing here reads them).
            if request.wantReply { context.triggerUserOutboundEvent(ChannelFailureEvent(), promise: nil) }
        case let request as SSHChannelRequestEvent.PseudoTerminalRequest:
            if request.wantReply { context.triggerUserOutboundEvent(ChannelSuccessEvent(), promise: nil) }
        case ChannelEvent.inputClosed:
            inputClosed(context)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        guard message.type == .channel, case .byteBuffer(let buffer) = message.data else { return }
        feed(context, buffer.readableBytesView)
    }

    func read(context: ChannelHandlerContext) {
        guard backlog < Self.backlogLimit else {
            readWithheld = true
            return
        }
        context.read()
    }

    /// Bytes received that the channel's blocking steps have not taken yet.
    private var backlog: Int {
        switch mode {
        case .scpSink(let sink): sink.backlog
        case .sftp(let channel): channel.backlog
        default: 0
        }
    }

    /// Called when a channel's steps caught up: reads again if a read was withheld.
    private func resumeReading(_ context: ChannelHandlerContext) {
        guard readWithheld, backlog < Self.backlogLimit else { return }
        readWithheld = false
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, case .scpSource(let source) = mode { source.resume(context) }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        switch mode {
        case .scpSink(let sink):
            // The connection went away mid-copy: what arrived stays on disk, as on the real host.
            sink.connectionLost()
        case .sftp(let channel):
            channel.connectionLost()
        default:
            break
        }
        mode = .finished
        context.fireChannelInactive()
    }

    // MARK: Exec

    private func startExec(_ context: ChannelHandlerContext, _ command: String) {
        guard let user = connection.user else { return refuse(context, wantReply: false) }
        core.node.trace("ssh-exec", [("user", user), ("command", command), ("from", connection.peer)])
        self.command = command
        if let scp = SCPCommand(command, words: { try self.core.words(of: $0, user: user) }) {
            startSCP(context, scp, user: user)
            return
        }
        mode = .command
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        core.run(command, as: user, answerOn: context.eventLoop).whenComplete { result in
            let (handler, context) = loopBound.value
            guard case .success(let outcome) = result else {
                // The host is shutting down under the command.
                return handler.finish(context, stdout: [], stderr: [], exitStatus: 255)
            }
            guard outcome.duration > .zero else {
                return handler.finish(context, stdout: outcome.stdout, stderr: outcome.stderr, exitStatus: Int(outcome.exitStatus))
            }
            // The command takes virtual (or, live, real) time: the converters' "This could take a while...".
            context.eventLoop.scheduleTask(in: .nanoseconds(outcome.duration.nanosecondsClamped)) {
                let (handler, context) = loopBound.value
                handler.finish(context, stdout: outcome.stdout, stderr: outcome.stderr, exitStatus: Int(outcome.exitStatus))
            }
        }
    }

    private func startSCP(_ context: ChannelHandlerContext, _ scp: SCPCommand, user: String) {
        openHome(context, user: user) { handler, context, opened in
            let fileSystem: any HomeFileSystem
            switch opened {
            case .success(let home): fileSystem = home
            case .failure(let error): return handler.finish(context, stdout: [], stderr: Array("scp: \(error)\n".utf8), exitStatus: 1)
            }
            switch scp {
            case .invalid(let message):
                handler.finish(context, stdout: [], stderr: Array("scp: \(message)\n".utf8), exitStatus: 1)
            case .sink(let options):
                let sink = SCPSinkChannel(
                    core: handler.core, sink: SCPSink(fileSystem: fileSystem, options: options), user: handler.connection.user,
                    eventLoop: context.eventLoop)
                handler.mode = .scpSink(sink)
                sink.onReply = { [weak handler] reply in handler?.apply(context, reply) }
                sink.drained = { [weak handler] in handler?.resumeReading(context) }
                sink.start(context)
                if case .scpSink = handler.mode { handler.feed(context, handler.early) }
            case .source(let paths):
                let source = SCPSourceChannel(
                    core: handler.core, source: SCPSource(fileSystem: fileSystem, paths: paths), fileSystem: fileSystem)
                handler.mode = .scpSource(source)
                source.onFinish = { [weak handler] status in handler?.finish(context, stdout: [], stderr: [], exitStatus: status) }
                handler.feed(context, handler.early)
            }
        }
    }

    /// Opens the user's home on the blocking threads (the first time, that makes its folder and counts its usage),
    /// then goes on here; input that arrives meanwhile waits in `early`.
    private func openHome(
        _ context: ChannelHandlerContext, user: String,
        then next: @escaping (SessionChannelHandler, ChannelHandlerContext, Result<any HomeFileSystem, any Error>) -> Void
    ) {
        mode = .opening
        let core = self.core
        let loopBound = NIOLoopBound((self, context, next), eventLoop: context.eventLoop)
        core.blocking(answerOn: context.eventLoop) { try core.fileSystem(for: user) }.whenComplete { result in
            let (handler, context, next) = loopBound.value
            guard case .opening = handler.mode else { return }  // the channel closed meanwhile
            next(handler, context, result)
        }
    }

    private func feed(_ context: ChannelHandlerContext, _ bytes: some Collection<UInt8>) {
        guard !bytes.isEmpty else { return }
        switch mode {
        case .idle, .opening:
            early.append(contentsOf: bytes)
            return
        case .scpSink(let sink):
            sink.receive(context, bytes)
        case .scpSource(let source):
            source.receive(context, bytes)
        case .sftp(let channel):
            channel.receive(context, bytes)
        case .command, .finished:
            break  // commands here read no input
        }
        early = []
    }

    private func inputClosed(_ context: ChannelHandlerContext) {
        switch mode {
        case .scpSink(let sink): sink.end(context)
        case .sftp(let channel): channel.inputClosed(context)
        default: break
        }
    }

    private func apply(_ context: ChannelHandlerContext, _ reply: SCPSink.Reply) {
        guard case .scpSink = mode else { return }
        if !reply.bytes.isEmpty {
            context.write(wrapOutboundOut(SSHChannelData(type: .channel, data: .byteBuffer(ByteBuffer(bytes: reply.bytes)))), promise: nil)
            context.flush()
        }
        if let status = reply.exitStatus { finish(context, stdout: [], stderr: [], exitStatus: status) }
    }

    // MARK: Ending

    private func refuse(_ context: ChannelHandlerContext, wantReply: Bool) {
        if wantReply { context.triggerUserOutboundEvent(ChannelFailureEvent(), promise: nil) }
    }

    /// stdout, then stderr, then the exit status, then close.
    func finish(_ context: ChannelHandlerContext, stdout: [UInt8], stderr: [UInt8], exitStatus: Int) {
        if case .finished = mode { return }
        mode = .finished
        if !stdout.isEmpty {
            context.write(wrapOutboundOut(SSHChannelData(type: .channel, data: .byteBuffer(ByteBuffer(bytes: stdout)))), promise: nil)
        }
        if !stderr.isEmpty {
            // stderr must be SSHChannelData of type .stdErr: a plain ByteBuffer write crashes NIOSSH (see sunfire.md).
            context.write(wrapOutboundOut(SSHChannelData(type: .stdErr, data: .byteBuffer(ByteBuffer(bytes: stderr)))), promise: nil)
        }
        context.flush()
        context.triggerUserOutboundEvent(SSHChannelRequestEvent.ExitStatus(exitStatus: exitStatus), promise: nil)
        if let command {
            core.node.trace(
                "ssh-exit",
                [
                    ("command", command), ("from", connection.peer), ("status", String(exitStatus)),
                    ("stdout-bytes", String(stdout.count)), ("stderr-bytes", String(stderr.count)),
                ])
        }
        context.close(promise: nil)
    }
}

extension Duration {
    /// Nanoseconds, saturating instead of trapping on durations beyond Int64.
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled.addingReportingOverflow(attoseconds / 1_000_000_000).overflow ? .max : scaled + attoseconds / 1_000_000_000
    }
}
