import NIOCore

/// Unfolds obsolete line folding (RFC 9112 §5.2 `obs-fold`, and nginx's bare-LF variant) in the first request's header section before
/// NIO's HTTP parser, which rejects it. nginx sends folded headers when configured as in the seed
/// (`proxy_set_header SSL_CLIENT_CERT $ssl_client_cert` puts the multi-line PEM in a header); RFC 9112
/// lets a server replace each obs-fold with a space. nginx's proxy speaks HTTP/1.0, one request per
/// connection, so only the first header section is unfolded; the handler then steps aside.
final class HeaderUnfolder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Beyond this, the bytes go to the parser as they are (it enforces its own header limit).
    static let limit = 64 * 1024
    private var buffered = ByteBuffer()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        buffered.writeBuffer(&chunk)
        let bytes = buffered.readableBytesView
        guard let end = Self.endOfHeaders(bytes) else {
            if buffered.readableBytes > Self.limit { release(context: context, buffered) }
            return
        }
        var unfolded = ByteBuffer()
        unfolded.reserveCapacity(buffered.readableBytes)
        var index = bytes.startIndex
        while index < end {
            let byte = bytes[index]
            // (CR) LF followed by SP or HTAB is a fold (nginx folds with a bare LF): one space replaces it and
            // the indentation.
            let lineBreak = byte == 0x0D && index + 1 < end && bytes[index + 1] == 0x0A ? 2 : byte == 0x0A ? 1 : 0
            if lineBreak > 0, index + lineBreak < end, bytes[index + lineBreak] == 0x20 || bytes[index + lineBreak] == 0x09 {
                unfolded.writeInteger(UInt8(0x20))
                index += lineBreak
                while index < end, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
                continue
            }
            unfolded.writeInteger(byte)
            index += 1
        }
        unfolded.writeBytes(bytes[end...])
        release(context: context, unfolded)
    }

    private func release(context: ChannelHandlerContext, _ bytes: ByteBuffer) {
        buffered = ByteBuffer()
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// The index just past the header section's final CR LF (start of the body), if it has arrived.
    static func endOfHeaders(_ bytes: ByteBufferView) -> Int? {
        var index = bytes.startIndex
        while index + 3 < bytes.endIndex {
            if bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D, bytes[index + 3] == 0x0A { return index + 4 }
            index += 1
        }
        return nil
    }
}
