import NIOCore
import NIOSSH
import SFTP
import SunfireHost

/// Carries one SFTP session over an SSH session channel: bytes in through the packet decoder, each request to the
/// ``SFTPServerSession``, each answer back out. A malformed packet ends the session (as OpenSSH's sftp-server exits),
/// with the reason in the trace; the other sessions of the host carry on.
final class SFTPChannel {
    private let core: SunfireCore
    private let session: SFTPServerSession
    private var decoder = SFTPPacketDecoder()
    private var ended = false
    private var outbound: [UInt8] = []

    init(core: SunfireCore, user: String, fileSystem: any HomeFileSystem) {
        self.core = core
        let clock = core.node.clock
        self.session = SFTPServerSession(fileSystem: fileSystem, user: user, now: { clock.unixSeconds })
    }

    func receive(_ context: ChannelHandlerContext, _ bytes: some Collection<UInt8>) {
        guard !ended else { return }
        decoder.append(bytes)
        do {
            while let request = try decoder.next() {
                let (reply, events) = session.handle(request)
                for event in events { core.node.trace(event.name, event.fields) }
                reply?.encode(into: &outbound)
                // Answer in batches: pipelined writes arrive many to a read, and one flush serves them all.
                if outbound.count >= 65_536 { flush(context) }
            }
            flush(context)
        } catch {
            flush(context)
            core.node.trace("sftp-error", [("reason", error.description)])
            end(context, status: 1)
        }
    }

    func inputClosed(_ context: ChannelHandlerContext) {
        end(context, status: 0)
    }

    func connectionLost() {
        guard !ended else { return }
        ended = true
        for event in session.closeAll() { core.node.trace(event.name, event.fields) }
    }

    private func flush(_ context: ChannelHandlerContext) {
        guard !outbound.isEmpty else { return }
        context.writeAndFlush(NIOAny(SSHChannelData(type: .channel, data: .byteBuffer(ByteBuffer(bytes: outbound)))), promise: nil)
        outbound.removeAll(keepingCapacity: true)
    }

    private func end(_ context: ChannelHandlerContext, status: Int) {
        guard !ended else { return }
        ended = true
        for event in session.closeAll() { core.node.trace(event.name, event.fields) }
        context.triggerUserOutboundEvent(SSHChannelRequestEvent.ExitStatus(exitStatus: status), promise: nil)
        context.close(promise: nil)
    }
}
