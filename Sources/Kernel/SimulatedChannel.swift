import NIOCore
import Wire

#if canImport(Glibc)
    import Glibc
#endif

/// One end of a simulated TCP connection, as a real NIO `Channel`.
///
/// Handlers written for sockets (HTTP/1.1, TLS, SSH…) run on it unchanged. It behaves like a stream socket:
/// writes are queued until flushed; flushed bytes leave in segments of at most ``segmentSize`` while the
/// peer's receive window has room (so a peer that stops reading stalls the sender and its `isWritable`
/// turns false past the high water mark); bytes arrive in order; half-close sends FIN after pending data;
/// a reset fails the channel with `ECONNRESET`. Reads follow NIO's `read()`/`autoRead` contract, which is
/// what lets a server stream a large upload without holding it in memory.
///
/// Confined to the simulation loop: every method runs on it.
final class SimulatedChannel: Channel, ChannelCore, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is touched only on the simulation loop (NIO's usual contract).

    /// Largest payload carried by one delivery.
    static let segmentSize = 65_536
    /// How many unread bytes the receiver accepts before the sender must wait.
    static let receiveWindow = 262_144

    enum Role: String { case client, server }

    let network: SimulatedNetwork
    let connectionID: Int
    let role: Role
    let local: SocketAddress
    let remote: SocketAddress
    let localHost: String
    let remoteHost: String
    weak var peer: SimulatedChannel?

    private(set) var isOpen = true
    private(set) var isActive = false
    private var isRegistered = false
    private var inputClosed = false
    private var outputClosed = false
    private var finSent = false
    private var finPending = false

    private var unflushed: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    private var flushed: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    private var queuedBytes = 0
    /// Bytes sent to the peer that its pipeline has not read yet.
    private var unreadByPeer = 0

    private var inbound: [ByteBuffer] = []
    private var pendingEOF = false
    private var readRequested = false

    private var autoRead = true
    private var allowRemoteHalfClosure = false
    private var waterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 32 * 1024, high: 64 * 1024)
    private(set) var isWritable = true

    /// Totals for the trace.
    private(set) var bytesSent = 0
    private(set) var bytesReceived = 0

    /// Link timing of the direction this end sends in (owned by the network).
    var outbound = SimulatedNetwork.Direction()

    private let closePromise: EventLoopPromise<Void>
    private var _pipeline: ChannelPipeline!

    init(
        network: SimulatedNetwork, connectionID: Int, role: Role, localHost: String, localPort: Int,
        remoteHost: String, remotePort: Int
    ) {
        self.network = network
        self.connectionID = connectionID
        self.role = role
        self.localHost = localHost
        self.remoteHost = remoteHost
        // Simulated hosts have no IP addresses; NIO wants socket addresses, so each end gets a stable one.
        self.local = network.socketAddress(of: localHost, port: localPort)
        self.remote = network.socketAddress(of: remoteHost, port: remotePort)
        self.closePromise = network.loop.makePromise()
        self._pipeline = ChannelPipeline(channel: self)
    }

    // MARK: Channel

    var allocator: ByteBufferAllocator { ByteBufferAllocator() }
    var closeFuture: EventLoopFuture<Void> { closePromise.futureResult }
    var pipeline: ChannelPipeline { _pipeline }
    var localAddress: SocketAddress? { local }
    var remoteAddress: SocketAddress? { remote }
    var parent: (any Channel)? { nil }
    var eventLoop: any EventLoop { network.loop }
    var _channelCore: any ChannelCore { self }
    var syncOptions: (any NIOSynchronousChannelOptions)? { SyncOptions(channel: self) }

    func setOption<Option: ChannelOption>(_ option: Option, value: Option.Value) -> EventLoopFuture<Void> {
        if eventLoop.inEventLoop {
            setOption0(option, value: value)
            return eventLoop.makeSucceededVoidFuture()
        }
        return eventLoop.submit { self.setOption0(option, value: value) }
    }

    func getOption<Option: ChannelOption>(_ option: Option) -> EventLoopFuture<Option.Value> {
        if eventLoop.inEventLoop {
            return eventLoop.makeCompletedFuture { try self.getOption0(option) }
        }
        return eventLoop.submit { try self.getOption0(option) }.map { $0 }
    }

    fileprivate func setOption0<Option: ChannelOption>(_ option: Option, value: Option.Value) {
        switch option {
        case is ChannelOptions.Types.AutoReadOption:
            autoRead = value as! Bool
            if autoRead, isActive { pipeline.read() }
        case is ChannelOptions.Types.AllowRemoteHalfClosureOption:
            allowRemoteHalfClosure = value as! Bool
        case is ChannelOptions.Types.WriteBufferWaterMarkOption:
            waterMark = value as! ChannelOptions.Types.WriteBufferWaterMark
        default:
            break  // socket-level tuning has no meaning on the simulated wire
        }
    }

    fileprivate func getOption0<Option: ChannelOption>(_ option: Option) throws -> Option.Value {
        switch option {
        case is ChannelOptions.Types.AutoReadOption: return autoRead as! Option.Value
        case is ChannelOptions.Types.AllowRemoteHalfClosureOption: return allowRemoteHalfClosure as! Option.Value
        case is ChannelOptions.Types.WriteBufferWaterMarkOption: return waterMark as! Option.Value
        case is ChannelOptions.Types.MaxMessagesPerReadOption: return UInt(1) as! Option.Value
        default: throw ChannelError.operationUnsupported
        }
    }

    private struct SyncOptions: NIOSynchronousChannelOptions {
        let channel: SimulatedChannel
        func setOption<Option: ChannelOption>(_ option: Option, value: Option.Value) throws {
            channel.setOption0(option, value: value)
        }
        func getOption<Option: ChannelOption>(_ option: Option) throws -> Option.Value {
            try channel.getOption0(option)
        }
    }

    // MARK: Life cycle driven by the network

    /// Registers the channel and runs its initializer (handlers are in place before any event).
    func register(initializer: @Sendable (any Channel) -> EventLoopFuture<Void>) -> EventLoopFuture<Void> {
        isRegistered = true
        pipeline.syncOperations.fireChannelRegistered()
        return initializer(self)
    }

    /// The handshake completed: the connection is established.
    func activate() {
        guard isOpen, !isActive else { return }
        isActive = true
        pipeline.syncOperations.fireChannelActive()
        if autoRead { pipeline.read() }
    }

    /// A segment arrived from the peer.
    func receive(_ segment: SimulatedNetwork.Segment) {
        switch segment {
        case .data(let bytes):
            guard isOpen else {
                // Data for a socket that is gone: the host answers with RST.
                network.abort(peer, error: IOError(errnoCode: ECONNRESET, reason: "write"), reason: "data after close")
                return
            }
            bytesReceived += bytes.readableBytes
            if inputClosed {
                peer?.acknowledge(bytes.readableBytes)
                return
            }
            inbound.append(bytes)
        case .fin:
            guard isOpen else { return }
            pendingEOF = true
        }
        deliverIfRequested()
    }

    /// The peer's pipeline consumed bytes: the window opens again.
    func acknowledge(_ count: Int) {
        unreadByPeer -= count
        transmit()
    }

    /// Fails and closes the channel as a reset or timed-out socket would.
    func abort(error: any Error) {
        guard isOpen else { return }
        let pending = unflushed + flushed
        unflushed.removeAll()
        flushed.removeAll()
        queuedBytes = 0
        for (_, promise) in pending { promise?.fail(error) }
        pipeline.syncOperations.fireErrorCaught(error)
        guard isOpen else { return }  // a handler closed it in errorCaught (the usual NIO pattern): close only once
        finishClose(promise: nil)
    }

    // MARK: ChannelCore

    func localAddress0() throws -> SocketAddress { local }
    func remoteAddress0() throws -> SocketAddress { remote }

    func register0(promise: EventLoopPromise<Void>?) {
        isRegistered = true
        promise?.succeed(())
    }

    func registerAlreadyConfigured0(promise: EventLoopPromise<Void>?) {
        register0(promise: promise)
    }

    func bind0(to: SocketAddress, promise: EventLoopPromise<Void>?) {
        promise?.fail(ChannelError.operationUnsupported)
    }

    func connect0(to: SocketAddress, promise: EventLoopPromise<Void>?) {
        // Connections are made by the network (`Node.connect`), not by connecting an existing channel.
        promise?.fail(ChannelError.operationUnsupported)
    }

    func write0(_ data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard isOpen else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        guard !outputClosed else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        guard let buffer = tryUnwrapData(data, as: ByteBuffer.self) else {
            promise?.fail(ChannelError.operationUnsupported)  // file regions have no meaning without files
            return
        }
        unflushed.append((buffer, promise))
        queuedBytes += buffer.readableBytes
        updateWritability()
    }

    func flush0() {
        guard isOpen else { return }
        flushed.append(contentsOf: unflushed)
        unflushed.removeAll()
        transmit()
    }

    func read0() {
        guard isOpen else { return }
        readRequested = true
        deliverIfRequested()
    }

    func close0(error: any Error, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard isOpen else {
            promise?.fail(ChannelError.alreadyClosed)
            return
        }
        switch mode {
        case .output:
            guard !outputClosed else {
                promise?.fail(ChannelError.outputClosed)
                return
            }
            if inputClosed { return close0(error: error, mode: .all, promise: promise) }
            outputClosed = true
            for (_, p) in unflushed { p?.fail(ChannelError.outputClosed) }
            unflushed.removeAll()
            recountQueuedBytes()
            finPending = true
            transmit()
            promise?.succeed(())
            pipeline.syncOperations.fireUserInboundEventTriggered(ChannelEvent.outputClosed)
        case .input:
            guard !inputClosed else {
                promise?.fail(ChannelError.inputClosed)
                return
            }
            if outputClosed { return close0(error: error, mode: .all, promise: promise) }
            closeInput()
            promise?.succeed(())
        case .all:
            // Bytes already flushed are in the "kernel": they still go out, then FIN, as with close(2).
            for (_, p) in unflushed { p?.fail(ChannelError.ioOnClosedChannel) }
            unflushed.removeAll()
            recountQueuedBytes()
            finPending = true
            transmit(ignoringWindow: true)
            finishClose(promise: promise)
        }
    }

    func triggerUserOutboundEvent0(_ event: Any, promise: EventLoopPromise<Void>?) {
        promise?.fail(ChannelError.operationUnsupported)
    }

    func channelRead0(_ data: NIOAny) {
        // Reached the tail of the pipeline unhandled: dropped, as on a socket channel.
    }

    func errorCaught0(error: any Error) {
        // Unhandled errors at the tail are dropped, as on a socket channel.
    }

    // MARK: Internals

    private func transmit(ignoringWindow: Bool = false) {
        while !flushed.isEmpty {
            let window = ignoringWindow ? Int.max : Self.receiveWindow - unreadByPeer
            guard window > 0 else { break }
            var (buffer, promise) = flushed[0]
            let count = min(buffer.readableBytes, Self.segmentSize, window)
            if count > 0, let slice = buffer.readSlice(length: count) {
                unreadByPeer += count
                bytesSent += count
                queuedBytes -= count
                network.send(.data(slice), from: self)
            }
            if buffer.readableBytes == 0 {
                flushed.removeFirst()
                promise?.succeed(())
            } else {
                flushed[0] = (buffer, promise)
            }
        }
        updateWritability()
        if finPending, flushed.isEmpty, !finSent {
            finSent = true
            finPending = false
            network.send(.fin, from: self)
        }
    }

    private func deliverIfRequested() {
        guard isOpen, readRequested || autoRead else { return }
        guard !inbound.isEmpty || pendingEOF else { return }
        if !inbound.isEmpty {
            readRequested = false
            let batch = inbound
            inbound.removeAll()
            for bytes in batch {
                pipeline.syncOperations.fireChannelRead(NIOAny(bytes))
                peer?.acknowledge(bytes.readableBytes)
                guard isOpen else { return }
            }
            pipeline.syncOperations.fireChannelReadComplete()
            guard isOpen else { return }
            if autoRead { pipeline.read() }
        }
        if pendingEOF, inbound.isEmpty, isOpen, !inputClosed {
            pendingEOF = false
            if allowRemoteHalfClosure {
                if outputClosed { close0(error: ChannelError.eof, mode: .all, promise: nil) } else { closeInput() }
            } else {
                close0(error: ChannelError.eof, mode: .all, promise: nil)
            }
        }
    }

    private func closeInput() {
        inputClosed = true
        let dropped = inbound.reduce(0) { $0 + $1.readableBytes }
        inbound.removeAll()
        if dropped > 0 { peer?.acknowledge(dropped) }
        pipeline.syncOperations.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    }

    private func finishClose(promise: EventLoopPromise<Void>?) {
        let wasActive = isActive
        isOpen = false
        isActive = false
        network.closed(self)
        promise?.succeed(())
        if wasActive { pipeline.syncOperations.fireChannelInactive() }
        if isRegistered { pipeline.syncOperations.fireChannelUnregistered() }
        eventLoop.execute {
            // Later, as NIO does: user code may still be walking the pipeline.
            self.removeHandlers(pipeline: self.pipeline)
            self.closePromise.succeed(())
        }
    }

    private func recountQueuedBytes() {
        queuedBytes = (unflushed + flushed).reduce(0) { $0 + $1.0.readableBytes }
    }

    private func updateWritability() {
        let total = queuedBytes
        if isWritable, total > waterMark.high {
            isWritable = false
            pipeline.syncOperations.fireChannelWritabilityChanged()
        } else if !isWritable, total < waterMark.low {
            isWritable = true
            pipeline.syncOperations.fireChannelWritabilityChanged()
        }
    }
}
