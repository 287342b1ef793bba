import NIOCore
import NIOSSH
import SFTP
import SunfireHost

/// Carries one SFTP session over an SSH session channel: bytes in through the packet decoder, each request to the
/// ``SFTPServerSession``, each answer back out. A malformed packet ends the session (as OpenSSH's sftp-server exits),
/// with the reason in the trace; the other sessions of the host carry on.
///
/// Requests are answered one at a time, in arrival order, so pipelined WRITEs land in sequence and replies keep the
/// order of their requests. Live, each request's file work runs on the node's blocking threads and its answer comes
/// back here; requests that arrive meanwhile wait in the decoder. Under simulation each request is answered at once,
/// inline.
final class SFTPChannel {
    private let core: SunfireCore
    private let session: Handoff<SFTPServerSession>
    private var decoder = SFTPPacketDecoder()
    private var ended = false
    private var outbound: [UInt8] = []
    /// A request is with the blocking threads.
    private var answering = false
    /// `pump` is on the stack: a request answered inline lets its loop go on instead of calling it again.
    private var pumping = false
    /// The client closed its side: end once the requests it sent are answered.
    private var inputDone = false
    /// The connection went away while a request was being answered: close the session once it is.
    private var lost = false
    /// Bytes received and not yet taken by the decoder.
    private(set) var backlog = 0
    /// Called when every request received has been answered (the handler may read again).
    var drained: (() -> Void)?

    init(core: SunfireCore, user: String, fileSystem: any HomeFileSystem) {
        self.core = core
        let clock = core.node.clock
        self.session = Handoff(SFTPServerSession(fileSystem: fileSystem, user: user, now: { clock.unixSeconds }))
    }

    func receive(_ context: ChannelHandlerContext, _ bytes: some Collection<UInt8>) {
        guard !ended else { return }
        decoder.append(bytes)
        backlog += bytes.count
        pump(context)
    }

    func inputClosed(_ context: ChannelHandlerContext) {
        inputDone = true
        pump(context)
    }

    func connectionLost() {
        guard !ended else { return }
        ended = true
        if answering {
            lost = true
        } else {
            closeAll()
        }
    }

    /// Answers the requests decoded so far, one after another.
    private func pump(_ context: ChannelHandlerContext) {
        guard !pumping else { return }
        pumping = true
        var caughtUp = false
        requests: while !answering, !ended {
            let request: SFTPMessage
            do {
                guard let next = try decoder.next() else {
                    flush(context)
                    backlog = 0
                    if inputDone { end(context, status: 0) } else { caughtUp = true }
                    break requests
                }
                request = next
            } catch {
                flush(context)
                core.node.trace("sftp-error", [("reason", error.description)])
                end(context, status: 1)
                break requests
            }
            guard SFTPServerSession.touchesFiles(request) else {
                // INIT, CLOSE, READDIR…: no file work, no hop (the session is this loop's while nothing is in flight).
                answered(context, .success(session.value.handle(request)))
                continue
            }
            answering = true
            let session = self.session
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            core.blocking(answerOn: context.eventLoop) { session.value.handle(request) }.whenComplete { result in
                let (channel, context) = loopBound.value
                channel.answering = false
                channel.answered(context, result)
                if !channel.pumping { channel.pump(context) }
            }
        }
        pumping = false
        // After `pumping` is down: the handler's next read may deliver bytes at once, and they must pump again.
        if caughtUp { drained?() }
    }

    private func answered(_ context: ChannelHandlerContext, _ result: Result<SFTPServerSession.Answer, any Error>) {
        guard case .success(let (reply, events)) = result else {
            // The blocking threads are gone: the host is shutting down.
            ended = true
            closeAll()
            return context.close(promise: nil)
        }
        for event in events { core.node.trace(event.name, event.fields) }
        if lost { return closeAll() }
        reply?.encode(into: &outbound)
        // Answer in batches: pipelined writes arrive many to a read, and one flush serves them all.
        if outbound.count >= 65_536 { flush(context) }
    }

    private func closeAll() {
        for event in session.value.closeAll() { core.node.trace(event.name, event.fields) }
    }

    private func flush(_ context: ChannelHandlerContext) {
        guard !outbound.isEmpty else { return }
        context.writeAndFlush(NIOAny(SSHChannelData(type: .channel, data: .byteBuffer(ByteBuffer(bytes: outbound)))), promise: nil)
        outbound.removeAll(keepingCapacity: true)
    }

    private func end(_ context: ChannelHandlerContext, status: Int) {
        guard !ended else { return }
        ended = true
        closeAll()
        context.triggerUserOutboundEvent(SSHChannelRequestEvent.ExitStatus(exitStatus: status), promise: nil)
        context.close(promise: nil)
    }
}
