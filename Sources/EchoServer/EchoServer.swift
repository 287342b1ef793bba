import NIOCore
import NIOHTTP1
import Synchronization
import Wire
import WireHTTP

/// A tiny actor that shows the kernel at work before the real actors exist, and that tests lean on:
/// a TCP echo service (RFC 862), an HTTP echo service, and an `echo:` URL-scheme handler on the bus.
///
/// - TCP: every byte received is sent back; a half-close is answered with a half-close.
/// - HTTP: `GET /` answers `200 echo hello`; any other request is answered with a summary of itself
///   (method, path, body size). `?delay=250ms` delays the answer on the node's clock; the fault point
///   `echo.unavailable` turns answers into `503 Service Unavailable`.
/// - Bus: `echo://…` URLs are traced; `echo://ping?reply=<url>` opens `<url>` back.
/// - A planted bug, for testing the swarm and `shrink` (off unless configured): once `echo.planted-arm` has fired,
///   a firing of `echo.planted-miscount` makes the next summary miscount the body by one byte. Only those two
///   faults, in that order, break the invariant that echo reports what it received.
public final class EchoServer: Sendable {
    /// Where the services listen.
    public struct Configuration: Sendable {
        public var tcpPort: Int
        public var httpPort: Int
        public var scheme: String?
        /// Declares the planted bug's fault points (see the type's comment).
        public var plantedBug: Bool

        public init(tcpPort: Int = 7, httpPort: Int = 80, scheme: String? = "echo", plantedBug: Bool = false) {
            self.tcpPort = tcpPort
            self.httpPort = httpPort
            self.scheme = scheme
            self.plantedBug = plantedBug
        }
    }

    /// The fault point that makes HTTP answers 503.
    public static let unavailableFault = "echo.unavailable"
    /// The planted bug's two fault points, in the order they must fire.
    public static let plantedArmFault = "echo.planted-arm"
    public static let plantedMiscountFault = "echo.planted-miscount"

    public let node: Node
    public let tcp: any Listener
    public let http: any Listener
    public let scheme: String?

    private init(node: Node, tcp: any Listener, http: any Listener, scheme: String?) {
        self.node = node
        self.tcp = tcp
        self.http = http
        self.scheme = scheme
    }

    /// Starts the services on `node`.
    public static func start(on node: Node, configuration: Configuration = Configuration()) -> EventLoopFuture<EchoServer> {
        node.faults.declare(unavailableFault)
        let planted = configuration.plantedBug ? PlantedBug() : nil
        if planted != nil {
            node.faults.declare(plantedArmFault)
            node.faults.declare(plantedMiscountFault)
        }
        // Connections run on every loop: the handlers keep per-connection state only, and the planted bug's is locked.
        let tcp = node.listen(port: configuration.tcpPort, connections: .every) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.syncOptions?.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
                try channel.pipeline.syncOperations.addHandler(TCPEchoHandler(node: node))
            }
        }
        let http = node.listen(port: configuration.httpPort, connections: .every) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(answeringBadRequestsOf: node)
                try channel.pipeline.syncOperations.addHandler(HTTPEchoHandler(node: node, planted: planted))
            }
        }
        return tcp.and(http).map { tcp, http in
            if let scheme = configuration.scheme {
                node.bus.register(
                    scheme: scheme, owner: node.name, on: node.eventLoop,
                    answering: { url, sender in Self.handle(url: url, from: sender, node: node) })
            }
            node.trace("started", [("http", "\(http.port)"), ("tcp", "\(tcp.port)")])
            return EchoServer(node: node, tcp: tcp, http: http, scheme: configuration.scheme)
        }
    }

    /// URLs a client can use as-is.
    public var endpoints: [(label: String, url: String)] {
        [("tcp", "tcp://\(tcp.host):\(tcp.port)"), ("http", "http://\(http.host):\(http.port)/")]
            + (scheme.map { [("bus", "\($0)://")] } ?? [])
    }

    /// Stops listening and leaves the bus.
    public func stop() -> EventLoopFuture<Void> {
        if let scheme { node.bus.unregister(scheme: scheme, owner: node.name) }
        node.trace("stopped")
        return tcp.close().and(http.close()).map { _ in }
    }

    /// Records the URL and opens each `reply=URL` of its query; says which replies reached an app.
    private static func handle(url: String, from sender: String, node: Node) -> URLBus.Receipt {
        node.trace("url-received", [("from", sender), ("url", url)])
        var replies: [String] = []
        let query = url.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, parts[0] == "reply" {
                let target = parts[1].removingPercentEncoding
                replies.append(node.bus.open(target, from: node.name) ? "replied to \(target)" : "no app handles the reply \(target)")
            }
        }
        return .accepted((["received the URL"] + replies).joined(separator: "; "))
    }
}

private final class TCPEchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let node: Node
    init(node: Node) { self.node = node }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            context.close(mode: .output, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        node.trace("tcp-error", [("error", "\(error)")])
        context.close(promise: nil)
    }
}

private final class HTTPEchoHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let node: Node
    let planted: PlantedBug?
    private var head: HTTPRequestHead?
    private var bodyBytes = 0

    init(node: Node, planted: PlantedBug?) {
        self.node = node
        self.planted = planted
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            bodyBytes = 0
        case .body(let chunk):
            bodyBytes += chunk.readableBytes
        case .end:
            guard let head else { return }
            respond(context: context, to: head)
            self.head = nil
        }
    }

    private func respond(context: ChannelHandlerContext, to head: HTTPRequestHead) {
        let (path, query) = Self.split(head.uri)
        let peer = context.channel.peerText
        node.trace("http-request", [("bytes", "\(bodyBytes)"), ("from", peer), ("method", "\(head.method)"), ("path", path)])
        let status: HTTPResponseStatus
        let body: String
        var reported: Int?
        if node.fault(EchoServer.unavailableFault) {
            status = .serviceUnavailable
            body = "echo is unavailable (fault \(EchoServer.unavailableFault) is on)\n"
        } else if path == "/" && head.method == .GET {
            status = .ok
            body = "echo hello\n"
        } else {
            status = .ok
            let count = bodyBytes + (planted?.miscounts(node) == true ? 1 : 0)
            reported = count
            body = "\(head.method) \(path) \(count) bytes\n"
        }
        let summary = reported.map { [("received", "\(bodyBytes)"), ("reported", "\($0)")] } ?? []
        let delay = query["delay"].flatMap(parseDelay) ?? .zero
        let keepAlive = head.isKeepAlive
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let node = self.node
        let send = { @Sendable in
            let context = loopBound.value
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: "\(body.utf8.count)")
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            context.write(
                NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
            let done = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
            node.trace("http-response", [("from", peer), ("status", "\(status.code)")] + summary)
            if !keepAlive { done.whenComplete { _ in loopBound.value.close(promise: nil) } }
        }
        if delay == .zero {
            send()
        } else {
            context.eventLoop.scheduleTask(in: .nanoseconds(delay.nanosecondsValue)) { send() }
        }
    }

    private static func split(_ uri: String) -> (String, [String: String]) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                if kv.count == 2 { query[kv[0]] = kv[1] }
            }
        }
        return (String(parts[0]), query)
    }

    private func parseDelay(_ text: String) -> Duration? {
        let units: [(String, Int64)] = [("ms", 1_000_000), ("us", 1_000), ("s", 1_000_000_000)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            if let value = Int64(text.dropLast(suffix.count)) { return .nanoseconds(value * scale) }
        }
        return nil
    }
}

/// The planted bug's state: armed by one fault point, fired by the other. Live, connections on several loops share
/// it, so it is locked; checking both points and reading the state is one step.
final class PlantedBug: Sendable {
    private let armed = Mutex(false)

    /// Whether this answer miscounts: checks both points in order on every summary.
    func miscounts(_ node: Node) -> Bool {
        armed.withLock { armed in
            if node.fault(EchoServer.plantedArmFault) { armed = true }
            return node.fault(EchoServer.plantedMiscountFault) && armed
        }
    }
}

extension String {
    /// Percent-decoding without Foundation (`%2F` → `/`); invalid escapes are kept as they are.
    fileprivate var removingPercentEncoding: String {
        var bytes: [UInt8] = []
        var iterator = Array(utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
