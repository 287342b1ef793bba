import NIOCore
import Wire

/// Bytes to an actor on a fresh connection, on either wire, with no protocol in between: what a hostile or
/// mistaken client sends (plain HTTP to a TLS port, garbage to an SSH port) and exactly what comes back.
public enum RawExchange {
    /// Connects from `node` to `host:port`, sends `bytes`, and returns everything received until the server closes
    /// its side (or, with `until`, as soon as what arrived satisfies it; the connection is then closed).
    public static func send(
        _ bytes: [UInt8], to host: String, port: Int, from node: Node,
        until enough: @escaping @Sendable ([UInt8]) -> Bool = { _ in false }
    ) async throws -> [UInt8] {
        let promise = node.eventLoop.makePromise(of: [UInt8].self)
        _ = try await node.connect(host: host, port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(Collector(sending: bytes, promise: promise, enough: enough))
            }
        }.get()
        return try await promise.futureResult.get()
    }
}

private final class Collector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let bytes: [UInt8]
    private let promise: EventLoopPromise<[UInt8]>
    private let enough: @Sendable ([UInt8]) -> Bool
    private var received: [UInt8] = []
    private var completed = false

    init(sending bytes: [UInt8], promise: EventLoopPromise<[UInt8]>, enough: @escaping @Sendable ([UInt8]) -> Bool) {
        self.bytes = bytes
        self.promise = promise
        self.enough = enough
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytesView
        if enough(received) { finish(context) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The server closed its side (clients' connections allow half-closure).
        if case ChannelEvent.inputClosed = event { finish(context) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete(.success(received))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        complete(.failure(error))
        context.close(promise: nil)
    }

    private func finish(_ context: ChannelHandlerContext) {
        complete(.success(received))
        context.close(promise: nil)
    }

    /// The first outcome counts: closing after it raises further events.
    private func complete(_ result: Result<[UInt8], any Error>) {
        guard !completed else { return }
        completed = true
        promise.completeWith(result)
    }
}
