import NIOCore
import Wire

/// A raw TCP connection a scenario opened with `connect`: bytes sent with `send`, bytes gathered for
/// `receive`. Loop-confined, like every simulated channel.
final class TCPConnection: @unchecked Sendable {
    // @unchecked Sendable: touched only on the simulation loop's thread.
    let name: String
    var channel: (any Channel)?
    var received: [UInt8] = []
    var ended = false
    var error: String?

    init(name: String) { self.name = name }

    var handler: Gatherer { Gatherer(connection: self) }

    final class Gatherer: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let connection: TCPConnection
        init(connection: TCPConnection) { self.connection = connection }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            connection.received += buffer.readBytes(length: buffer.readableBytes) ?? []
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case ChannelEvent.inputClosed = event { connection.ended = true }
        }

        func channelInactive(context: ChannelHandlerContext) {
            connection.ended = true
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            connection.error = "\(error)"
            context.close(promise: nil)
        }
    }
}
