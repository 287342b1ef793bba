import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Recordings
import Synchronization
import SystemKit
import Wire
import WireHTTP

/// `workbench record`'s proxy: answers each request with what the upstream answered, and keeps both in a recording
/// folder (``Recording``), secrets redacted (``Redaction``). The listening side is WireHTTP's server (its 400s for bytes
/// that are no request, 413 past the body limit, keep-alive) on the live wire; each request goes upstream on a
/// connection of its own. Bodies are held whole in memory, each bounded by ``Configuration/maxBodyBytes``; the files
/// are written on the wire's thread pool, never on an event loop.
final class RecordingProxy: Sendable {
    struct Configuration: Sendable {
        /// `http` or `https`.
        var upstreamScheme: String
        var upstreamHost: String
        var upstreamPort: Int
        /// A path the upstream URL had, put before every request's target (`https://host/base` → `/base/…`).
        var upstreamPathPrefix: String
        /// Extra roots the upstream's certificate may chain to, beside the system's.
        var upstreamCAPath: String?
        var listenPort: Int
        /// The certificate and key to listen with HTTPS, nil for plain HTTP.
        var tls: (certificate: String, key: String)?
        var folder: String
        var redaction: Redaction
        /// Largest request or response body the proxy holds (a larger request gets 413, a larger answer 502).
        var maxBodyBytes: Int
        /// How long the upstream may take for one whole answer (then 504).
        var upstreamTimeout: TimeAmount

        var upstreamURL: String {
            let defaultPort = upstreamScheme == "https" ? 443 : 80
            let host = upstreamHost.contains(":") ? "[\(upstreamHost)]" : upstreamHost
            return "\(upstreamScheme)://\(host)\(upstreamPort == defaultPort ? "" : ":\(upstreamPort)")\(upstreamPathPrefix)"
        }
    }

    let configuration: Configuration
    let server: HTTPServer
    private let wire: LiveWire
    private let book: RecordingBook
    private let startedAt: Date

    private init(configuration: Configuration, server: HTTPServer, wire: LiveWire, book: RecordingBook, startedAt: Date) {
        self.configuration = configuration
        self.server = server
        self.wire = wire
        self.book = book
        self.startedAt = startedAt
    }

    /// Listens on `configuration.listenPort` (0: a free port) of the wire's bind address.
    ///
    /// - parameter log: takes one line per exchange once it is written (`0001.json POST /path 201 12.3ms`).
    static func start(_ configuration: Configuration, on wire: LiveWire, log: @escaping @Sendable (String) -> Void) async throws -> RecordingProxy {
        let node = wire.node("record")
        let serverTLS = try configuration.tls.map { tls in
            try NIOSSLContext(
                configuration: TLSConfiguration.makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile(tls.certificate).map { .certificate($0) },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: tls.key, format: .pem))))
        }
        var clientTLS: NIOSSLContext?
        if configuration.upstreamScheme == "https" {
            var tls = TLSConfiguration.makeClientConfiguration()
            if let ca = configuration.upstreamCAPath { tls.additionalTrustRoots = [.file(ca)] }
            clientTLS = try NIOSSLContext(configuration: tls)
        }
        let book = RecordingBook()
        let limits = HTTPServer.Limits(maxBodyBytes: configuration.maxBodyBytes, requestTimeout: .minutes(10), idleTimeout: .minutes(2))
        let exchange = Exchanger(configuration: configuration, node: node, clientTLS: clientTLS, book: book, threadPool: wire.threadPool, log: log)
        let server = try await HTTPServer.start(
            on: node, port: configuration.listenPort, limits: limits,
            setup: { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let serverTLS { try channel.pipeline.syncOperations.addTLSServerHandler(NIOSSLServerHandler(context: serverTLS), node: node) }
                }
            },
            handlerLoop: .connection, handler: { await exchange.answer($0) }
        ).get()
        try FileManager.default.createDirectory(atPath: configuration.folder, withIntermediateDirectories: true)
        return RecordingProxy(configuration: configuration, server: server, wire: wire, book: book, startedAt: Date())
    }

    /// The URL clients send to.
    var url: String { "\(configuration.tls == nil ? "http" : "https")://\(server.listener.host):\(server.listener.port)" }

    /// What `finish` found.
    struct Summary {
        let exchanges: Int
        let proxyErrors: Int
        let failedWrites: [String]
    }

    /// Stops listening, waits (at most `grace`) for the exchanges under way to be answered and written, then writes
    /// `index.json`.
    func finish(grace: Duration = .seconds(10)) async throws -> Summary {
        try await server.stop().get()
        let deadline = ContinuousClock.now + grace
        while book.inFlight > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let (entries, failed) = book.written
        let index = RecordingIndex(
            upstream: configuration.upstreamURL, startedAt: Self.timestamp(startedAt), endedAt: Self.timestamp(Date()),
            redaction: configuration.redaction.enabled,
            redactedHeaders: configuration.redaction.enabled ? configuration.redaction.headers.sorted() : [], exchanges: entries)
        let data = try Recording.encoder.encode(index)
        let path = "\(configuration.folder)/index.json"
        try await wire.threadPool.runIfActive { try data.write(to: URL(fileURLWithPath: path), options: Data.WritingOptions.atomic) }
        return Summary(exchanges: entries.count, proxyErrors: entries.filter { $0.proxyError != nil }.count, failedWrites: failed)
    }

    /// UTC, ISO 8601 with milliseconds.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// One request: sent upstream, answered, recorded. Its state is the proxy's (behind the lock); the rest is immutable.
private struct Exchanger: Sendable {
    let configuration: RecordingProxy.Configuration
    let node: Node
    let clientTLS: NIOSSLContext?
    let book: RecordingBook
    let threadPool: NIOThreadPool
    let log: @Sendable (String) -> Void

    func answer(_ request: HTTPServerRequest) async -> HTTPResponse {
        let number = book.begin()
        let startedAt = Date()
        let started = ContinuousClock.now
        var headers = HTTPHeaders()
        for (name, value) in request.headers where !RecordedHeader.hopByHop.contains(name.lowercased()) && name.lowercased() != "host" {
            headers.add(name: name, value: value)
        }
        let defaultPort = configuration.upstreamScheme == "https" ? 443 : 80
        headers.add(
            name: "Host",
            value: configuration.upstreamPort == defaultPort
                ? configuration.upstreamHost : "\(configuration.upstreamHost):\(configuration.upstreamPort)")
        let forwarded = HTTPRequest(
            method: request.method, target: configuration.upstreamPathPrefix + request.target, headers: headers,
            body: request.body.readableBytes > 0 ? request.body : nil)
        var proxyError: String?
        var response: HTTPResponse
        do {
            let tls = clientTLS
            let host = configuration.upstreamHost
            response = try await HTTPClient.send(
                forwarded, host: host, port: configuration.upstreamPort, on: node, timeout: configuration.upstreamTimeout,
                maxBodyBytes: configuration.maxBodyBytes
            ) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // An address is no server name (SNI takes names only).
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: tls, serverHostname: Self.isAddress(host) ? nil : host))
                    }
                }
            }
            var answer = HTTPHeaders()
            for (name, value) in response.headers where !RecordedHeader.hopByHop.contains(name.lowercased()) { answer.add(name: name, value: value) }
            response.headers = answer
        } catch {
            let timedOut = "\(error)".contains("no complete response within")
            let reason =
                timedOut
                ? "the upstream \(configuration.upstreamURL) gave no complete answer within \(configuration.upstreamTimeout.nanoseconds / 1_000_000_000)s"
                : "the upstream \(configuration.upstreamURL) could not be reached or answered badly: \(error)"
            proxyError = reason
            response = .text(timedOut ? .gatewayTimeout : .badGateway, reason)
        }
        let elapsed = (ContinuousClock.now - started).components
        let durationMs = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        await record(number: number, startedAt: startedAt, durationMs: durationMs, request: request, response: response, proxyError: proxyError)
        return response
    }

    /// Redacts and writes the exchange (on the thread pool), then lists it for the index.
    private func record(
        number: Int, startedAt: Date, durationMs: Double, request: HTTPServerRequest, response: HTTPResponse, proxyError: String?
    ) async {
        let redaction = configuration.redaction
        var notes: [String] = []
        let requestType = request.headers.first(name: "Content-Type")
        let responseType = response.headers.first(name: "Content-Type")
        let requestBody = redaction.body(Array(buffer: request.body), contentType: requestType, side: "request", notes: &notes)
        let responseBody = redaction.body(Array(buffer: response.body), contentType: responseType, side: "response", notes: &notes)
        let exchange = RecordedExchange(
            number: number, startedAt: RecordingProxy.timestamp(startedAt), durationMs: (durationMs * 1000).rounded() / 1000,
            upstream: configuration.upstreamURL,
            request: RecordedExchange.Request(
                method: request.method.rawValue, target: redaction.target(request.target, notes: &notes),
                headers: redaction.headers(request.headers, side: "request", notes: &notes),
                body: requestBody.isEmpty ? nil : RecordedBody(requestBody, ipp: Self.isIPP(requestType) ? .request : nil)),
            response: RecordedExchange.Response(
                status: Int(response.status.code), reason: response.status.reasonPhrase,
                headers: redaction.headers(response.headers, side: "response", notes: &notes),
                body: responseBody.isEmpty ? nil : RecordedBody(responseBody, ipp: Self.isIPP(responseType) ? .response : nil)),
            proxyError: proxyError, redacted: notes)
        let path = "\(configuration.folder)/\(Recording.fileName(of: number))"
        do {
            let data = try Recording.encoder.encode(exchange)
            try await threadPool.runIfActive { try data.write(to: URL(fileURLWithPath: path), options: Data.WritingOptions.atomic) }
        } catch {
            book.failed("\(path): \(error)")
        }
        let entry = RecordingIndex.Entry(
            number: number, file: Recording.fileName(of: number), method: exchange.request.method, target: exchange.request.target,
            status: exchange.response.status, durationMs: exchange.durationMs, proxyError: proxyError)
        log("\(entry.file) \(entry.method) \(entry.target) \(entry.status) \(entry.durationMs)ms" + (proxyError.map { " (\($0))" } ?? ""))
        book.end(entry)
    }

    static func isIPP(_ contentType: String?) -> Bool {
        contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/ipp"
    }

    static func isAddress(_ host: String) -> Bool {
        host.contains(":") || host.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }
}

/// The exchanges a recording has numbered, those under way and those written: what its index lists.
private final class RecordingBook: Sendable {
    private struct State {
        var next = 0
        var inFlight = 0
        var entries: [RecordingIndex.Entry] = []
        var failedWrites: [String] = []
    }

    private let state = Mutex(State())

    /// The next exchange's number (1, 2, … in the order requests arrive whole).
    func begin() -> Int {
        state.withLock { state in
            state.next += 1
            state.inFlight += 1
            return state.next
        }
    }

    func end(_ entry: RecordingIndex.Entry) {
        state.withLock { state in
            state.entries.append(entry)
            state.inFlight -= 1
        }
    }

    func failed(_ write: String) { state.withLock { $0.failedWrites.append(write) } }

    var inFlight: Int { state.withLock { $0.inFlight } }

    /// The exchanges written, in number order, and the writes that failed.
    var written: (entries: [RecordingIndex.Entry], failedWrites: [String]) {
        state.withLock { ($0.entries.sorted { $0.number < $1.number }, $0.failedWrites) }
    }
}
