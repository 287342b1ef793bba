import NIOCore
import NIOSSH
import SunfireHost

/// Drives an ``SCPSource`` on a session channel: reads the client's answers and streams each file in chunks while the
/// channel is writable, so a large download never sits whole in memory. The file work (the next file's attributes, each
/// chunk) runs on the node's blocking threads live, one step at a time, and goes on here; inline under simulation.
final class SCPSourceChannel {
    private enum State {
        case awaitingStart
        /// The next file is being looked up.
        case announcing
        case awaitingHeaderAnswer(path: String, size: Int64)
        case streaming(path: String, size: Int64, offset: Int64)
        case awaitingDataAnswer(path: String, size: Int64)
        case done
    }

    static let chunkSize = 32_768

    private let core: SunfireCore
    private var source: SCPSource
    private let fileSystem: any HomeFileSystem
    private var state = State.awaitingStart
    private var answer: [UInt8] = []
    /// A chunk is being read; `resume` waits for it.
    private var reading = false
    /// `resume` is on the stack: a chunk read inline lets its loop go on instead of calling it again.
    private var streaming = false
    var onFinish: ((Int) -> Void)?

    init(core: SunfireCore, source: SCPSource, fileSystem: any HomeFileSystem) {
        self.core = core
        self.source = source
        self.fileSystem = fileSystem
    }

    func receive(_ context: ChannelHandlerContext, _ bytes: some Collection<UInt8>) {
        answer.append(contentsOf: bytes)
        // An answer is one zero byte, or 1/2 and a message up to a newline.
        while let first = answer.first {
            let ok: Bool
            let fatal: Bool
            if first == 0 {
                answer.removeFirst()
                ok = true
                fatal = false
            } else {
                guard let newline = answer.firstIndex(of: UInt8(ascii: "\n")) else { return }
                answer.removeSubrange(...newline)
                ok = false
                fatal = first != 1
            }
            answered(context, ok: ok, fatal: fatal)
        }
    }

    private func answered(_ context: ChannelHandlerContext, ok: Bool, fatal: Bool) {
        if fatal { return finish(1) }
        switch state {
        case .awaitingStart:
            announceNext(context)
        case .awaitingHeaderAnswer(let path, let size):
            if ok {
                state = .streaming(path: path, size: size, offset: 0)
                resume(context)
            } else {
                source.recordClientError()
                announceNext(context)
            }
        case .awaitingDataAnswer(let path, let size):
            if ok {
                core.node.trace("download", [("path", path), ("bytes", String(size)), ("via", "scp")])
            } else {
                source.recordClientError()
            }
            announceNext(context)
        case .announcing, .streaming, .done:
            break
        }
    }

    /// Sends file bytes while the channel takes them.
    func resume(_ context: ChannelHandlerContext) {
        guard !streaming else { return }
        streaming = true
        defer { streaming = false }
        while !reading, case .streaming(let path, let size, let offset) = state {
            if offset >= size {
                write(context, [0])
                state = .awaitingDataAnswer(path: path, size: size)
                return
            }
            guard context.channel.isWritable else { return }
            let count = Int(min(Int64(Self.chunkSize), size - offset))
            let fileSystem = self.fileSystem
            reading = true
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            core.blocking(answerOn: context.eventLoop) { try fileSystem.read(path, at: offset, count: count) }.whenComplete { result in
                let (channel, context) = loopBound.value
                channel.reading = false
                guard case .streaming = channel.state else { return }
                // The file shrank or vanished under us: the client learns it from a short copy.
                guard case .success(let bytes) = result, !bytes.isEmpty else { return channel.finish(1) }
                channel.state = .streaming(path: path, size: size, offset: offset + Int64(bytes.count))
                channel.write(context, bytes)
                if !channel.streaming { channel.resume(context) }
            }
        }
    }

    private func announceNext(_ context: ChannelHandlerContext) {
        state = .announcing
        let source = self.source
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        core.blocking(answerOn: context.eventLoop) { () -> (SCPSource, SCPSource.Announcement) in
            var source = source
            let next = source.next()
            return (source, next)
        }.whenComplete { result in
            let (channel, context) = loopBound.value
            guard case .announcing = channel.state else { return }
            guard case .success(let (source, next)) = result else { return channel.finish(1) }
            channel.source = source
            if !next.bytes.isEmpty { channel.write(context, next.bytes) }
            if let file = next.file {
                channel.state = .awaitingHeaderAnswer(path: file.path, size: file.size)
            } else {
                channel.finish(source.errors == 0 ? 0 : 1)
            }
        }
    }

    private func write(_ context: ChannelHandlerContext, _ bytes: [UInt8]) {
        context.writeAndFlush(NIOAny(SSHChannelData(type: .channel, data: .byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
    }

    private func finish(_ status: Int) {
        if case .done = state { return }
        state = .done
        onFinish?(status)
    }
}
