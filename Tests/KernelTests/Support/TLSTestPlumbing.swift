import NIOCore
import NIOSSL
import NIOTLS
import Wire

// TLS over the simulated wire: the committed test certificates, an upper-casing line server and a one-line client.

/// The test-only certificates under `Fixtures/tls` (made by `tools/make-test-certs.sh`), read from the repository.
enum TLSFixtures {
    /// `Fixtures/tls` of this checkout, found from this file's path so tests need no SwiftPM resources.
    static let directory: String = {
        // …/Tests/KernelTests/Support/TLSTestPlumbing.swift → drop the file and three folders → repository root.
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/") + "/Fixtures/tls"
    }()

    static func path(_ name: String) -> String { directory + "/" + name }

    /// The certificates of a PEM file (each fixture holds exactly one).
    static func certificates(_ name: String) throws -> [NIOSSLCertificate] {
        try NIOSSLCertificate.fromPEMFile(path(name))
    }

    static func privateKey(_ name: String) throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(file: path(name), format: .pem)
    }

    /// The server side: `server.pem` (SANs include every simulated TLS host) and its key; TLS 1.2 and 1.3.
    static func serverContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try certificates("server.pem").map { .certificate($0) },
            privateKey: .privateKey(try privateKey("server.key")))
        configuration.minimumTLSVersion = .tlsv12
        return try NIOSSLContext(configuration: configuration)
    }

    /// A client that trusts only `trustRoots` (by default the test CA) and verifies the host name.
    static func clientContext(
        maximumVersion: TLSVersion = .tlsv13, trustRoots: [NIOSSLCertificate]? = nil
    ) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.maximumTLSVersion = maximumVersion
        configuration.trustRoots = .certificates(try trustRoots ?? certificates("ca.pem"))
        configuration.certificateVerification = .fullVerification
        return try NIOSSLContext(configuration: configuration)
    }
}

extension TLSVersion {
    /// How the trace names a protocol version.
    var traceName: String {
        switch self {
        case .tlsv1: "TLS 1.0"
        case .tlsv11: "TLS 1.1"
        case .tlsv12: "TLS 1.2"
        case .tlsv13: "TLS 1.3"
        }
    }
}

/// Why a TLS exchange failed, beyond what the network and NIOSSL report.
enum TLSTestError: Error, Equatable {
    /// The handshake did not finish within the client's handshake timeout.
    case handshakeTimedOut
}

/// A TLS server that answers every line with the same line upper-cased.
enum UpperCaseTLSServer {
    static func start(on node: Node, port: Int = 443, context: NIOSSLContext) -> EventLoopFuture<any Listener> {
        node.listen(port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                let pipeline = channel.pipeline.syncOperations
                try pipeline.addHandler(NIOSSLServerHandler(context: context))
                try pipeline.addHandler(UpperCaseLineHandler(node: node))
                try pipeline.addHandler(ConnectionErrorHandler<Never>(node: node, role: "server"))
            }
        }
    }
}

/// Server side, above TLS: traces the handshake and each line, answers in upper case.
private final class UpperCaseLineHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let node: Node
    private var pending = ByteBuffer()

    init(node: Node) { self.node = node }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tlsEvent = event as? TLSUserEvent, case .handshakeCompleted(let alpn) = tlsEvent {
            let version = (try? context.pipeline.syncOperations.nioSSL_tlsVersion()) ?? nil
            node.trace(
                "tls-handshake-completed",
                [
                    ("role", "server"), ("version", version?.traceName ?? "unknown"), ("alpn", alpn ?? "none"),
                ])
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        pending.writeBuffer(&bytes)
        while let line = pending.readLine() {
            node.trace("tls-line-received", [("line", line)])
            context.write(wrapOutboundOut(ByteBuffer(string: line.uppercased() + "\n")), promise: nil)
        }
        context.flush()
    }
}

/// What a TLS client exchange gives back. Times are virtual, measured from the start of the connect.
struct TLSExchangeResult: Sendable {
    let reply: String
    /// The negotiated protocol version, as NIOSSL reports it after the handshake.
    let version: TLSVersion?
    let handshakeTime: Duration
    let replyTime: Duration
}

/// A TLS client that sends one line after the handshake and waits for one line back.
enum TLSLineClient {
    /// Connects from `node` to `host:port`, handshakes (verifying `serverHostname`), sends `line`, reads the answer,
    /// then closes with close_notify and waits for the connection to be closed.
    ///
    /// - throws: the connect's `WireError`, the first error of the connection (NIOSSL, reset…), or
    ///   ``TLSTestError/handshakeTimedOut`` when the handshake takes longer than `handshakeTimeout`.
    static func exchange(
        _ line: String, host: String, port: Int = 443, serverHostname: String? = nil, context: NIOSSLContext,
        on node: Node, connectTimeout: TimeAmount = .seconds(10), handshakeTimeout: TimeAmount = .seconds(10)
    ) async throws -> TLSExchangeResult {
        let promise = node.eventLoop.makePromise(of: TLSExchangeResult.self)
        let start = node.clock.now
        let channel = try await node.connect(host: host, port: port, timeout: connectTimeout) { channel in
            channel.eventLoop.makeCompletedFuture {
                let outcome = ExchangeOutcome(promise)
                let pipeline = channel.pipeline.syncOperations
                try pipeline.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverHostname ?? host))
                try pipeline.addHandler(
                    LineClientHandler(
                        line: line, node: node, start: start, handshakeTimeout: handshakeTimeout, outcome: outcome))
                try pipeline.addHandler(ConnectionErrorHandler(node: node, role: "client", outcome: outcome))
            }
        }.get()
        let result = try await promise.futureResult.get()
        // The handler closed the connection after the reply; wait until both ends are down so the trace is complete.
        try? await channel.closeFuture.get()
        return result
    }
}

/// Client side, above TLS: waits for the handshake (with a timeout), sends the line, settles on the first answer.
private final class LineClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let line: String
    private let node: Node
    private let start: NodeClock.Instant
    private let handshakeTimeout: TimeAmount
    private let outcome: ExchangeOutcome<TLSExchangeResult>
    private var timer: Scheduled<Void>?
    private var version: TLSVersion?
    private var handshakeTime: Duration = .zero
    private var pending = ByteBuffer()

    init(
        line: String, node: Node, start: NodeClock.Instant, handshakeTimeout: TimeAmount,
        outcome: ExchangeOutcome<TLSExchangeResult>
    ) {
        self.line = line
        self.node = node
        self.start = start
        self.handshakeTimeout = handshakeTimeout
        self.outcome = outcome
    }

    func channelActive(context: ChannelHandlerContext) {
        // The TCP connection is up and NIOSSL has sent its ClientHello; from now the handshake has a deadline.
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: handshakeTimeout) { [self] in
            node.trace("tls-handshake-timeout", [("role", "client")])
            outcome.fail(TLSTestError.handshakeTimedOut)
            context.close(promise: nil)
        }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tlsEvent = event as? TLSUserEvent, case .handshakeCompleted(let alpn) = tlsEvent {
            timer?.cancel()
            timer = nil
            version = (try? context.pipeline.syncOperations.nioSSL_tlsVersion()) ?? nil
            handshakeTime = node.clock.now.uptime - start.uptime
            node.trace(
                "tls-handshake-completed",
                [
                    ("role", "client"), ("version", version?.traceName ?? "unknown"), ("alpn", alpn ?? "none"),
                ])
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: line + "\n")), promise: nil)
            node.trace("tls-line-sent", [("line", line)])
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        pending.writeBuffer(&bytes)
        guard let reply = pending.readLine(), !outcome.isSettled else { return }
        node.trace("tls-reply-received", [("line", reply)])
        outcome.succeed(
            TLSExchangeResult(
                reply: reply, version: version, handshakeTime: handshakeTime,
                replyTime: node.clock.now.uptime - start.uptime))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }
}

extension ByteBuffer {
    /// Reads one `\n`-terminated line (without the terminator), or nothing when no whole line is buffered.
    mutating func readLine() -> String? {
        guard let newline = readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = readString(length: newline - readerIndex) ?? ""
        moveReaderIndex(forwardBy: 1)
        return line
    }
}
