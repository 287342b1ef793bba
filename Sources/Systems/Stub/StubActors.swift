import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
import Recordings
import Scenario
import SystemKit
import Wire
import WireHTTP

/// A recording played back as an actor: `start stub from=DIR` in scenarios, `serve --start 'stub as NAME from=DIR'`
/// live. It answers each request with the recorded answer that matches it (``StubPlayback``), on either wire, so a
/// server the workbench does not simulate (the app's own backend) can join a scenario.
extension ActorKind {
    static let stub = ActorKind(
        name: "stub",
        summary: "a recording (workbench record --out DIR) played back: each request gets the recorded answer that matches it",
        defaultHost: "stub",
        options: [
            .recordingFolder("from", "the recording to play back: a folder `workbench record --out` made (required)"),
            .port("port", "HTTP port (default 80, with tls=true 443; 0 live: a free one)"),
            .flag(
                "tls", "true: HTTPS with the workbench's test certificate (Fixtures/tls/server.pem, trusted with Fixtures/tls/ca.pem); default false"),
            .text("match-headers", "headers a request is also matched on, comma-separated (default: method and target only)"),
            .text("match-json", "JSON body fields a request is also matched on, by path (DeviceType,d.UserName), comma-separated"),
            .text("match-ipp", "IPP attributes an IPP request is also matched on (job-id,document-format); its operation always is"),
        ],
        faultPoints: [StubServer.unavailableFault]
    ) { node, options in
        guard let folder = options["from"] else { throw WorkbenchError("stub: option from=DIR is required") }
        let playback = try StubPlayback(
            recording: Recording(folder: try Fixtures.resolve(folder)),
            matching: StubMatching(
                headers: StubMatching.names(options["match-headers"]), jsonFields: StubMatching.names(options["match-json"]),
                ippAttributes: StubMatching.names(options["match-ipp"])))
        let tls = try parseFlag(options["tls"], "tls")
        let port = try options["port"].map { try parsePort($0, "port") } ?? (tls ? 443 : 80)
        return try await StubServer.start(on: node, port: port, tls: tls ? try StubServer.testCertificate() : nil, playback: playback)
    }
}

extension ActorOption {
    /// A recording's folder, read whole when the line is read: a mistyped path or a folder that is no recording stops
    /// the scenario before it starts. Required.
    static func recordingFolder(_ name: String, _ meaning: String) -> ActorOption {
        ActorOption(name, meaning, required: true) { value in
            do {
                _ = try Recording(folder: try Fixtures.resolve(value))
                return nil
            } catch { return "option \(name)=\(value): \(error)" }
        }
    }
}

/// The playing actor: one HTTP listener, the playback behind a lock (requests may come on any loop live).
final class StubServer: RunningActor {
    /// The fault point that makes every answer 503, as a real server that is down for maintenance.
    static let unavailableFault = "stub.unavailable"

    let node: Node
    let http: HTTPServer
    /// `http` or `https`.
    let scheme: String
    let recorded: Int
    /// The requests the recording answers, as the request log names them (`GET /path`).
    let requests: [String]

    private init(node: Node, http: HTTPServer, scheme: String, playback: StubPlayback) {
        self.node = node
        self.http = http
        self.scheme = scheme
        recorded = playback.exchanges.count
        requests = playback.exchanges.map { "\($0.request.method) \($0.request.target)" }.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// - parameter tls: serve HTTPS with this context (nil: plain HTTP).
    static func start(on node: Node, port: Int, tls: NIOSSLContext?, playback: StubPlayback) async throws -> StubServer {
        node.faults.declare(unavailableFault)
        let state = NIOLockedValueBox(playback)
        let http = try await HTTPServer.start(
            on: node, port: port,
            setup: { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addTLSServerHandler(NIOSSLServerHandler(context: tls), node: node) }
                }
            },
            handlerLoop: .connection
        ) { request in answer(request, state: state, node: node) }.get()
        let server = StubServer(node: node, http: http, scheme: tls == nil ? "http" : "https", playback: playback)
        node.trace("started", [("exchanges", "\(playback.exchanges.count)"), ("url", server.baseURL)])
        return server
    }

    /// The workbench's test server certificate (Fixtures/tls/server.pem and its key).
    static func testCertificate() throws -> NIOSSLContext {
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(try Fixtures.path("tls/server.pem")).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: try Fixtures.path("tls/server.key"), format: .pem)))
        return try NIOSSLContext(configuration: configuration)
    }

    /// `http://host:port` or `https://host:port`.
    var baseURL: String { "\(scheme)://\(http.listener.host):\(http.listener.port)" }

    var endpoints: [(label: String, url: String)] { [(scheme, baseURL)] }
    var notes: [String] { ["plays back \(recorded) recorded exchanges"] }

    func stop() async throws {
        try await http.stop().get()
        node.trace("stopped", [])
    }

    /// The recorded answer for `request`, or a 404 naming the closest recorded exchange (what WireMock answers an
    /// unmatched request), or a 503 while the fault is on.
    static func answer(_ request: HTTPServerRequest, state: NIOLockedValueBox<StubPlayback>, node: Node) -> HTTPResponse {
        if node.fault(unavailableFault) { return .text(.serviceUnavailable, "the stub is unavailable (fault \(unavailableFault) is on)") }
        let asked = StubRequest(
            method: request.method.rawValue, target: request.target, headers: request.headers.map { ($0.name, $0.value) },
            body: Array(buffer: request.body))
        switch state.withLockedValue({ $0.answer(asked) }) {
        case .miss(let why):
            node.trace("stub-miss", [("method", asked.method), ("path", asked.target), ("why", why)])
            return .text(.notFound, why)
        case .answer(let exchange, let sequence, let count):
            node.trace(
                "stub-answered",
                [
                    ("exchange", Recording.fileName(of: exchange.number)), ("method", asked.method), ("path", asked.target),
                    ("sequence", "\(sequence)/\(count)"),
                ])
            return response(exchange.response, to: asked)
        }
    }

    /// A recorded answer as the client gets it: its status, reason, headers (but those of one connection: the length
    /// is the body's again) and body; an IPP answer carries the request's own request-id, as any IPP server's does.
    static func response(_ recorded: RecordedExchange.Response, to request: StubRequest) -> HTTPResponse {
        var headers = HTTPHeaders()
        for header in recorded.headers where !RecordedHeader.hopByHop.contains(header.name.lowercased()) {
            headers.add(name: header.name, value: header.value)
        }
        var body = recorded.body?.data ?? []
        let isIPP = headers.first(name: "Content-Type")?.lowercased().hasPrefix("application/ipp") == true
        if isIPP, body.count >= 8, request.body.count >= 8 { body.replaceSubrange(4..<8, with: request.body[4..<8]) }
        return HTTPResponse(
            status: HTTPResponseStatus(statusCode: recorded.status, reasonPhrase: recorded.reason), headers: headers, body: ByteBuffer(bytes: body))
    }
}
