import IPP
import Kernel
import MiGClient
import NIOCore
import NIOHTTP1
import Synchronization
import Wire
import WireHTTP

/// A simulated world with a phone (the app) and a host "mig" where the tests start small canned servers.
struct SimulatedWorld {
    let kernel: Kernel
    let phone: Node
    let server: Node

    init(seed: UInt64 = 1) {
        kernel = Kernel(seed: seed)
        server = kernel.node("mig")
        phone = kernel.node("phone")
    }

    /// Runs async work on the kernel until it finishes.
    func run<T: Sendable>(_ label: String = "test", _ body: @escaping @Sendable () async throws -> T) throws -> T {
        try kernel.run(label, timeout: .seconds(3600), body)
    }

    func client(
        url: String = "http://demo:secret@mig:8050/ipp/print", retry: MiGClient.RetryPolicy = .init(),
        timeouts: MiGClient.Timeouts = .init(), trust: MiGClient.ServerTrust = .systemDefault,
        identity: MiGClient.ClientIdentity? = nil
    ) throws -> MiGClient {
        let configuration = try MiGClient.Configuration(url: url, trust: trust, clientIdentity: identity, retry: retry, timeouts: timeouts)
        return try MiGClient(configuration: configuration, node: phone)
    }

    /// Starts an IPP server on `mig:port` built on WireHTTP's server (which sends 100 Continue).
    @discardableResult
    func startIPPServer(
        port: Int = 8050, recorder: Recorder = Recorder(),
        setup: @escaping @Sendable (any Channel) -> EventLoopFuture<Void> = { $0.eventLoop.makeSucceededVoidFuture() },
        answer: @escaping @Sendable (ReceivedRequest) -> HTTPResponse
    ) throws -> Recorder {
        _ = try run("start server") {
            try await HTTPServer.start(on: server, port: port, limits: HTTPServer.Limits(maxBodyBytes: 64 << 20), setup: setup) { request in
                let received = ReceivedRequest(request)
                recorder.append(received)
                return answer(received)
            }.get()
        }
        return recorder
    }
}

/// What a canned server was sent.
struct ReceivedRequest: Sendable {
    let method: HTTPMethod
    let path: String
    let headers: HTTPHeaders
    let ipp: IPPMessage?
    let document: [UInt8]

    init(_ request: HTTPServerRequest) {
        method = request.method
        path = request.path
        headers = request.headers
        let bytes = Array(buffer: request.body)
        if let (message, offset) = try? IPPDecoder().decodeWithDocumentOffset(bytes) {
            ipp = message
            document = Array(bytes[offset...])
        } else {
            ipp = nil
            document = []
        }
    }
}

/// Requests a canned server received, in order.
final class Recorder: Sendable {
    private let storage = Mutex<[ReceivedRequest]>([])
    func append(_ request: ReceivedRequest) { storage.withLock { $0.append(request) } }
    var requests: [ReceivedRequest] { storage.withLock { $0 } }
}

/// A counter shared with a server closure.
final class Counter: Sendable {
    private let value = Mutex(0)
    /// Increments and returns the new value.
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
    var current: Int { value.withLock { $0 } }
}

/// Answers in IPP.
enum IPPAnswer {
    static func http(_ message: IPPMessage) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: ["Content-Type": "application/ipp"], body: ByteBuffer(bytes: try! message.encoded()))
    }

    /// A Print-Job answer with a job group.
    static func jobCreated(_ request: ReceivedRequest, id: Int32, state: IPPJobState = .pending) -> HTTPResponse {
        var response = IPPMessage.response(to: request.ipp!, status: .successfulOK)
        response.addGroup(.job) { job in
            job.addJobID(id)
            job.addJobURI("ipp://mig:8050/ipp/print/\(id)")
            job.add(IPPAttributeName.jobState, .enumValue(state.rawValue))
            job.add(IPPAttributeName.jobStateReasons, .keyword("none"))
        }
        return http(response)
    }

    static func status(_ request: ReceivedRequest, _ status: IPPStatus, message: String? = nil) -> HTTPResponse {
        http(IPPMessage.response(to: request.ipp!, status: status, statusMessage: message))
    }

    static func job(_ request: ReceivedRequest, id: Int32, state: IPPJobState, reasons: [String]) -> HTTPResponse {
        var response = IPPMessage.response(to: request.ipp!, status: .successfulOK)
        response.addGroup(.job) { job in
            job.addJobID(id)
            job.add(IPPAttributeName.jobState, .enumValue(state.rawValue))
            job.add(IPPAttributeName.jobStateReasons, values: (reasons.isEmpty ? ["none"] : reasons).map(IPPValue.keyword))
        }
        return http(response)
    }
}

/// A raw HTTP server for what WireHTTP's server deliberately does not do: never sending `100 Continue`, or
/// answering 401 on the request head without reading the body.
enum RawHTTPServer {
    enum Behaviour: Sendable {
        /// Reads the whole request (never sends 100 Continue) and answers a Print-Job.
        case ignoreExpectContinue
        /// Answers 401 as soon as the head arrives, without reading the body, then closes its side and discards
        /// what still comes (a lingering close, as nginx does: closing at once would reset the upload and the
        /// client would lose the answer, on real TCP as on the simulated wire).
        case unauthorizedOnHead
    }

    static func start(on node: Node, port: Int = 8050, behaviour: Behaviour, recorder: Recorder) throws -> EventLoopFuture<any Listener> {
        node.listen(port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false)
                try channel.pipeline.syncOperations.addHandler(RawHandler(behaviour: behaviour, recorder: recorder))
            }
        }
    }

    private final class RawHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let behaviour: Behaviour
        let recorder: Recorder
        var head: HTTPRequestHead?
        var body = ByteBuffer()
        var answered = false

        init(behaviour: Behaviour, recorder: Recorder) {
            self.behaviour = behaviour
            self.recorder = recorder
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answered else { return }
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                if case .unauthorizedOnHead = behaviour {
                    answered = true
                    recorder.append(
                        ReceivedRequest(HTTPServerRequest(method: head.method, target: head.uri, headers: head.headers, body: ByteBuffer())))
                    respond(context: context, HTTPResponse(status: .unauthorized, headers: ["WWW-Authenticate": "Basic realm=\"MiG\""]))
                    context.close(mode: .output, promise: nil)
                }
            case .body(var part):
                body.writeBuffer(&part)
            case .end:
                guard let head else { return }
                answered = true
                let received = ReceivedRequest(HTTPServerRequest(method: head.method, target: head.uri, headers: head.headers, body: body))
                recorder.append(received)
                respond(context: context, IPPAnswer.jobCreated(received, id: 1))
                context.close(promise: nil)
            }
        }

        private func respond(context: ChannelHandlerContext, _ response: HTTPResponse) {
            var headers = response.headers
            headers.add(name: "Content-Length", value: "\(response.body.readableBytes)")
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case ChannelEvent.inputClosed = event { context.close(promise: nil) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

/// Collects progress callbacks (they run on the loop; the test reads them afterwards).
final class ProgressLog: Sendable {
    private let storage = Mutex<[(Int64, Int64?)]>([])
    var handler: PrintProgress { { sent, total in self.storage.withLock { $0.append((sent, total)) } } }
    var entries: [(sent: Int64, total: Int64?)] { storage.withLock { $0.map { ($0.0, $0.1) } } }
}

/// Repository paths for fixtures, found from this file's location.
enum RepositoryPaths {
    static let root: String = {
        // …/Tests/MiGClientTests/Support/CannedServers.swift → the repository root.
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }()

    static func tls(_ name: String) -> String { root + "/Fixtures/tls/" + name }
}
