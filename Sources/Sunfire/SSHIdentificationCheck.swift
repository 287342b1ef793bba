import NIOCore
import Wire

/// What OpenSSH's sshd decides about the first line a client sends, its identification string (RFC 4253 §4.2,
/// `kex_exchange_identification` in OpenSSH's kex.c): `SSH-<major>.<minor>-<software>`, at most 255 bytes with
/// its CR LF (swift-nio-ssh's limit; sshd's is larger). Pure: bytes in, verdict out.
enum SSHIdentification: Equatable {
    case needMoreBytes
    case accepted
    /// Refused with the line sshd sends before closing.
    case refused(String)

    static let maximumLength = 255
    static let invalid = SSHIdentification.refused("Invalid SSH identification string.")

    /// The verdict on what the client has sent so far.
    init(_ bytes: ByteBufferView) {
        guard let lineFeed = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
            self = bytes.count < Self.maximumLength ? .needMoreBytes : Self.invalid
            return
        }
        var line = bytes[bytes.startIndex..<lineFeed]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        // sshd: "banner line contains invalid characters" for a NUL or a CR inside the line.
        guard line.count + 2 <= Self.maximumLength, !line.contains(0), !line.contains(UInt8(ascii: "\r")) else {
            self = Self.invalid
            return
        }
        // A client may not send other lines before its identification (sshd: "client sent invalid protocol identifier").
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("SSH-") else {
            self = Self.invalid
            return
        }
        let parts = text.dropFirst(4).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let version = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty, version.count == 2, let major = Int(version[0]), Int(version[1]) != nil else {
            self = Self.invalid
            return
        }
        // As sshd: protocol 2, or 1.99 (a client that speaks both).
        self = major == 2 || text.hasPrefix("SSH-1.99-") ? .accepted : .refused("Protocol major versions differ.")
    }
}

/// Sits in front of swift-nio-ssh until the client's identification string is in. swift-nio-ssh drops a
/// connection whose first line is not one without a word; sshd first tells the client why (the client shows
/// "Invalid SSH identification string."), so this does too, then closes. A good line passes on with whatever
/// followed it, and the handler removes itself.
final class SSHIdentificationCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let node: Node
    private var received: ByteBuffer?
    private var refused = false

    init(node: Node) { self.node = node }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        var bytes = unwrapInboundIn(data)
        if var earlier = received {
            earlier.writeBuffer(&bytes)
            bytes = earlier
        }
        switch SSHIdentification(bytes.readableBytesView) {
        case .needMoreBytes:
            received = bytes
        case .accepted:
            received = nil
            context.fireChannelRead(wrapInboundOut(bytes))
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        case .refused(let message):
            refused = true
            received = nil
            node.trace("ssh-disconnected", [("from", context.channel.peerText), ("reason", message)])
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: message + "\r\n"))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
