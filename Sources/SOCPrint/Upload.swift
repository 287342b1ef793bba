import NIOCore
import NIOSSH
import SFTP
import Wire

/// How a file travels to the host: SCP like the iOS app (NMSSH/libssh2), SFTP like the Android app (JSch).
public enum UploadTransport: String, Sendable, CaseIterable {
    /// Legacy SCP (`scp -t`), as the iOS app through libssh2.
    case scp
    /// The SFTP subsystem, 32 KiB writes with up to 64 in flight, as the Android app through JSch.
    case sftp
}

/// A file to upload, read in order a chunk at a time so a 46.6 MB converter is never held twice.
public struct UploadSource: Sendable {
    /// The file's length in bytes; an upload sends exactly this many.
    public let size: Int64
    /// Bytes `[offset, offset + count)`; fewer only at the end.
    public let read: @Sendable (_ offset: Int64, _ count: Int) throws -> [UInt8]

    /// A file of `size` bytes read through `read` (from disk, or generated), so it need never be whole in memory.
    public init(size: Int64, read: @escaping @Sendable (_ offset: Int64, _ count: Int) throws -> [UInt8]) {
        self.size = size
        self.read = read
    }

    /// Bytes already in memory.
    public static func bytes(_ bytes: [UInt8]) -> UploadSource {
        UploadSource(size: Int64(bytes.count)) { offset, count in
            let start = Int(clamping: offset)
            return Array(bytes[min(start, bytes.count)..<min(bytes.count, start + count)])
        }
    }
}

extension SSHConnectivity {
    /// Uploads `source` to `remotePath` (relative to the home) over `transport`. `progress` receives the bytes sent so
    /// far after each chunk; returning false cancels, leaving what arrived on the host (as an interrupted upload does).
    ///
    /// - returns: whether the whole file arrived and the host confirmed it.
    public func upload(
        _ source: UploadSource, to remotePath: String, transport: UploadTransport,
        progress: @escaping @Sendable (UInt64) -> Bool = { _ in true }
    ) async -> Bool {
        let done = node.eventLoop.makePromise(of: Bool.self)
        let node = self.node
        do {
            try await node.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
                guard let channel = self.currentChannel else { return node.eventLoop.makeFailedFuture(ConnectivityError.notConnected) }
                return channel.pipeline.handler(type: NIOSSHHandler.self).flatMap { ssh in
                    let created = channel.eventLoop.makePromise(of: (any Channel).self)
                    ssh.createChannel(created, channelType: .session) { child, _ in
                        child.eventLoop.makeCompletedFuture {
                            let handler: any ChannelHandler =
                                switch transport {
                                case .scp: SCPUploadChannel(source: source, path: remotePath, progress: progress, done: done)
                                case .sftp: SFTPUploadChannel(source: source, path: remotePath, progress: progress, done: done)
                                }
                            try child.pipeline.syncOperations.addHandler(handler)
                        }
                    }
                    return created.futureResult.map { _ in }
                }
            }.get()
        } catch {
            done.fail(error)
        }
        let succeeded = (try? await done.futureResult.get()) ?? false
        node.trace(
            "upload",
            [
                ("path", remotePath), ("bytes", String(source.size)), ("via", transport.rawValue),
                ("outcome", succeeded ? "done" : "failed"),
            ])
        return succeeded
    }
}

/// Legacy SCP, the sending side: `scp -t 'PATH'`, then `C0644 SIZE NAME`, the bytes, a zero byte, each acknowledged.
private final class SCPUploadChannel: ChannelInboundHandler {
    typealias InboundIn = SSHChannelData
    static let chunk = 32_768

    private enum State { case awaitingReady, awaitingHeaderAck, streaming, awaitingDataAck, finishing, done }

    private let source: UploadSource
    private let path: String
    private let progress: @Sendable (UInt64) -> Bool
    private let done: EventLoopPromise<Bool>
    private var state = State.awaitingReady
    private var sent: Int64 = 0
    private var confirmed = false

    init(source: UploadSource, path: String, progress: @escaping @Sendable (UInt64) -> Bool, done: EventLoopPromise<Bool>) {
        self.source = source
        self.path = path
        self.progress = progress
        self.done = done
    }

    func handlerAdded(context: ChannelHandlerContext) {
        _ = context.channel.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
    }

    func channelActive(context: ChannelHandlerContext) {
        // The path in single quotes with ' as '\'' — how libssh2 quotes it for the host's shell.
        let quoted = "'" + path.unicodeScalars.map { $0 == "'" ? #"'\''"# : String($0) }.joined() + "'"
        context.triggerUserOutboundEvent(SSHChannelRequestEvent.ExecRequest(command: "scp -t \(quoted)", wantReply: true), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        guard message.type == .channel, case .byteBuffer(let bytes) = message.data, let first = bytes.readableBytesView.first else { return }
        guard first == 0 else { return finish(context, false) }  // \x01 or \x02: the host refused
        switch state {
        case .awaitingReady:
            let name = path.split(separator: "/").last.map(String.init) ?? path
            state = .awaitingHeaderAck
            write(context, Array("C0644 \(source.size) \(name)\n".utf8))
        case .awaitingHeaderAck:
            state = .streaming
            stream(context)
        case .awaitingDataAck:
            confirmed = true
            state = .finishing
            context.close(mode: .output, promise: nil)
        default:
            break
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if state == .streaming { stream(context) }
        context.fireChannelWritabilityChanged()
    }

    private func stream(_ context: ChannelHandlerContext) {
        while state == .streaming, context.channel.isWritable {
            guard sent < source.size else {
                state = .awaitingDataAck
                write(context, [0])
                return
            }
            guard let bytes = try? source.read(sent, Int(min(Int64(Self.chunk), source.size - sent))), !bytes.isEmpty else {
                return finish(context, false)
            }
            sent += Int64(bytes.count)
            write(context, bytes)
            if !progress(UInt64(sent)) { return finish(context, false) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let status = event as? SSHChannelRequestEvent.ExitStatus { confirmed = confirmed && status.exitStatus == 0 }
        if event is ChannelFailureEvent { finish(context, false) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { finish(context, false) }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context, confirmed)
        context.fireChannelInactive()
    }

    private func write(_ context: ChannelHandlerContext, _ bytes: [UInt8]) {
        context.writeAndFlush(NIOAny(SSHChannelData(type: .channel, data: .byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
    }

    private func finish(_ context: ChannelHandlerContext, _ outcome: Bool) {
        guard state != .done else { return }
        state = .done
        done.succeed(outcome)
        context.close(promise: nil)
    }
}

/// SFTP, the sending side as JSch does it: INIT, OPEN(WRITE|CREAT|TRUNC), WRITEs of 32 KiB with up to 64 in flight,
/// CLOSE — each answered by a STATUS that must say OK.
private final class SFTPUploadChannel: ChannelInboundHandler {
    typealias InboundIn = SSHChannelData
    static let chunk = 32_768
    static let window = 64

    private let source: UploadSource
    private let path: String
    private let progress: @Sendable (UInt64) -> Bool
    private let done: EventLoopPromise<Bool>
    private var decoder = SFTPPacketDecoder()
    private var handle: [UInt8]?
    private var nextID: UInt32 = 1
    private var offset: Int64 = 0
    private var acknowledged: UInt64 = 0
    private var outstanding = 0
    private var closing = false
    private var finished = false

    init(source: UploadSource, path: String, progress: @escaping @Sendable (UInt64) -> Bool, done: EventLoopPromise<Bool>) {
        self.source = source
        self.path = path
        self.progress = progress
        self.done = done
    }

    func handlerAdded(context: ChannelHandlerContext) {
        _ = context.channel.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
    }

    func channelActive(context: ChannelHandlerContext) {
        context.triggerUserOutboundEvent(SSHChannelRequestEvent.SubsystemRequest(subsystem: "sftp", wantReply: true), promise: nil)
        send(context, .initialize(version: 3, extensions: []))
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        guard message.type == .channel, case .byteBuffer(let bytes) = message.data else { return }
        decoder.append(bytes.readableBytesView)
        do {
            while let answer = try decoder.next() { handle(context, answer) }
        } catch {
            finish(context, false)
        }
    }

    private func handle(_ context: ChannelHandlerContext, _ answer: SFTPMessage) {
        switch answer {
        case .version:
            send(context, .open(id: takeID(), path: path, flags: [.write, .create, .truncate], attributes: SFTPFileAttributes(permissions: 0o644)))
        case .handle(_, let value):
            handle = value
            pump(context)
        case .status(_, let code, _, _) where code == .ok:
            if closing { return finish(context, true) }
            outstanding -= 1
            acknowledged = UInt64(min(source.size, Int64(acknowledged) + Int64(Self.chunk)))
            if !progress(min(acknowledged, UInt64(offset))) { return finish(context, false) }
            pump(context)
        default:
            finish(context, false)
        }
    }

    /// Keeps up to `window` WRITEs in flight; when all are sent and answered, CLOSE.
    private func pump(_ context: ChannelHandlerContext) {
        guard let handle, !closing else { return }
        while outstanding < Self.window, offset < source.size {
            guard let bytes = try? source.read(offset, Int(min(Int64(Self.chunk), source.size - offset))), !bytes.isEmpty else {
                return finish(context, false)
            }
            send(context, .write(id: takeID(), handle: handle, offset: UInt64(offset), data: bytes))
            offset += Int64(bytes.count)
            outstanding += 1
        }
        if offset >= source.size && outstanding == 0 {
            closing = true
            send(context, .close(id: takeID(), handle: handle))
        }
    }

    private func takeID() -> UInt32 {
        defer { nextID &+= 1 }
        return nextID
    }

    private func send(_ context: ChannelHandlerContext, _ message: SFTPMessage) {
        context.writeAndFlush(NIOAny(SSHChannelData(type: .channel, data: .byteBuffer(ByteBuffer(bytes: message.encoded)))), promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelFailureEvent { finish(context, false) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { finish(context, false) }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context, false)
        context.fireChannelInactive()
    }

    private func finish(_ context: ChannelHandlerContext, _ outcome: Bool) {
        guard !finished else { return }
        finished = true
        done.succeed(outcome)
        context.close(promise: nil)
    }
}
