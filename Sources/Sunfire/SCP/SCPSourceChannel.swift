import NIOCore
import NIOSSH
import SunfireHost

/// Drives an ``SCPSource`` on a session channel: reads the client's answers and streams each file in chunks while the
/// channel is writable, so a large download never sits whole in memory.
final class SCPSourceChannel {
    private enum State {
        case awaitingStart
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
        case .streaming, .done:
            break
        }
    }

    /// Sends file bytes while the channel takes them.
    func resume(_ context: ChannelHandlerContext) {
        guard case .streaming(let path, let size, var offset) = state else { return }
        while offset < size, context.channel.isWritable {
            let count = Int(min(Int64(Self.chunkSize), size - offset))
            let bytes: [UInt8]
            do {
                bytes = try fileSystem.read(path, at: offset, count: count)
            } catch {
                // The file shrank or vanished under us: the client learns it from a short copy.
                return finish(1)
            }
            guard !bytes.isEmpty else { return finish(1) }
            offset += Int64(bytes.count)
            write(context, bytes)
        }
        if offset >= size {
            write(context, [0])
            state = .awaitingDataAnswer(path: path, size: size)
        } else {
            state = .streaming(path: path, size: size, offset: offset)
        }
    }

    private func announceNext(_ context: ChannelHandlerContext) {
        let next = source.next()
        if !next.bytes.isEmpty { write(context, next.bytes) }
        if let file = next.file {
            state = .awaitingHeaderAnswer(path: file.path, size: file.size)
        } else {
            finish(source.errors == 0 ? 0 : 1)
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
