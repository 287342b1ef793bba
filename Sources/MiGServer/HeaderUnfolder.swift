import NIOCore

/// Unfolds obsolete line folding (RFC 9112 §5.2 `obs-fold`, and nginx's bare-LF variant) in the first request's header section before
/// NIO's HTTP parser, which rejects it. nginx sends folded headers when configured as in the original
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
        let isText = HeaderUnfolding.isHeaderText(chunk.readableBytesView)
        buffered.writeBuffer(&chunk)
        let bytes = buffered.readableBytesView
        guard let end = HeaderUnfolding.endOfHeaders(bytes) else {
            // Without the blank line every byte so far is header section: binary means not HTTP at all.
            if !isText || buffered.readableBytes > Self.limit { release(context: context, buffered) }
            return
        }
        let unfolded = ByteBuffer(bytes: HeaderUnfolding.unfold(bytes, end: end))
        release(context: context, unfolded)
    }

    private func release(context: ChannelHandlerContext, _ bytes: ByteBuffer) {
        buffered = ByteBuffer()
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
