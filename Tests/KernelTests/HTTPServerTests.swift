import Kernel
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing
import Wire
import WireHTTP

/// The shared HTTP server actors build on: answers, limits and credentials, on the simulated wire.
@Suite struct HTTPServerTests {
    static func world(limits: HTTPServer.Limits = HTTPServer.Limits()) throws -> (Kernel, Node) {
        let kernel = Kernel(seed: 7)
        let server = kernel.node("api")
        _ = try kernel.run("start api") {
            try await HTTPServer.start(on: server, port: 80, limits: limits) { request in
                switch request.basicCredentials {
                case .missing: return .text(.unauthorized, "credentials required", headers: ["WWW-Authenticate": "Basic realm=\"test\""])
                case .malformed(let why): return .text(.badRequest, why)
                case .valid(let credentials):
                    return .text(
                        .ok, "\(credentials.user) sent \(request.body.readableBytes) bytes to \(request.path) q=\(request.queryValue("q") ?? "-")")
                }
            }.get()
        }
        return (kernel, kernel.node("phone"))
    }

    static func send(_ kernel: Kernel, _ phone: Node, _ request: HTTPRequest) throws -> HTTPResponse {
        try kernel.run("send") { try await HTTPClient.send(request, host: "api", port: 80, on: phone) }
    }

    static let demo = BasicCredentials(user: "demo", password: "pa:ss").headerValue

    @Test func answersWithTheHandlersResponse() throws {
        let (kernel, phone) = try Self.world()
        let response = try Self.send(
            kernel, phone,
            HTTPRequest(
                method: .POST, target: "/x?q=a%20b", headers: ["Authorization": Self.demo],
                body: ByteBuffer(string: "hello")))
        #expect(response.status == .ok)
        #expect(response.text == "demo sent 5 bytes to /x q=a b\n")
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test func chunkedBodiesAndExpectContinueAreAccepted() throws {
        let (kernel, phone) = try Self.world()
        let response = try Self.send(
            kernel, phone,
            HTTPRequest(
                method: .PUT, target: "/y", headers: ["Authorization": Self.demo, "Expect": "100-continue"],
                body: ByteBuffer(repeating: 1, count: 200_000), chunked: true))
        #expect(response.text == "demo sent 200000 bytes to /y q=-\n")
    }

    @Test func oversizedBodiesAreRefusedWithTheLimit() throws {
        let (kernel, phone) = try Self.world(limits: HTTPServer.Limits(maxBodyBytes: 1000))
        for chunked in [false, true] {
            let response = try Self.send(
                kernel, phone,
                HTTPRequest(
                    method: .POST, target: "/", headers: ["Authorization": Self.demo],
                    body: ByteBuffer(repeating: 1, count: 5000), chunked: chunked))
            #expect(response.status == .payloadTooLarge)
            #expect(response.text.contains("exceeds the limit of 1000 bytes"))
        }
        // The server goes on serving.
        #expect(try Self.send(kernel, phone, HTTPRequest(headers: ["Authorization": Self.demo])).status == .ok)
    }

    @Test func credentialProblemsAreNamed() throws {
        let (kernel, phone) = try Self.world()
        #expect(try Self.send(kernel, phone, HTTPRequest()).headers.first(name: "WWW-Authenticate") == "Basic realm=\"test\"")
        let notBase64 = try Self.send(kernel, phone, HTTPRequest(headers: ["Authorization": "Basic ***"]))
        #expect(notBase64.text == "the Basic credentials are not valid base64\n")
        let latin1 = try Self.send(kernel, phone, HTTPRequest(headers: ["Authorization": "Basic 6WFiOng="]))  // "\u{e9}ab:x" in Latin-1
        #expect(latin1.text == "the Basic credentials are not valid UTF-8\n")
        let bearer = try Self.send(kernel, phone, HTTPRequest(headers: ["Authorization": "Bearer abc"]))
        #expect(bearer.text.contains("expected 'Authorization: Basic"))
    }

    @Test func aSlowUploadIsCutOffWith408() throws {
        let (kernel, phone) = try Self.world(limits: HTTPServer.Limits(requestTimeout: .seconds(5)))
        let channel = try kernel.run("connect") { try await phone.connect(host: "api", port: 80).get() }
        let received = NIOLockedValueBox(ByteBuffer())
        _ = try kernel.run("send head") {
            try await channel.pipeline.addHandler(Collect(box: received)).get()
            try await channel.writeAndFlush(ByteBuffer(string: "POST / HTTP/1.1\r\nHost: api\r\nContent-Length: 100\r\n\r\nabc")).get()
        }
        kernel.advance(by: .seconds(6))
        #expect(String(buffer: received.withLockedValue { $0 }).contains("408 Request Timeout"))
        #expect(!channel.isActive)
    }

    final class Collect: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let box: NIOLockedValueBox<ByteBuffer>
        init(box: NIOLockedValueBox<ByteBuffer>) { self.box = box }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var chunk = unwrapInboundIn(data)
            box.withLockedValue { _ = $0.writeBuffer(&chunk) }
        }
    }
}

/// Where a live handler runs: on the node's own loop, or on the loop of the connection it answers.
@Suite struct HTTPServerHandlerLoopTests {
    /// The loops eight requests' handlers ran on, each request on a new connection to a two-loop wire.
    static func handlerLoops(_ placement: HTTPServer.HandlerLoop) async throws -> (seen: Set<ObjectIdentifier>, home: ObjectIdentifier) {
        let wire = LiveWire(seed: 1, threads: 2)
        let api = wire.node("api")
        let seen = NIOLockedValueBox(Set<ObjectIdentifier>())
        // The server closes a connection idle for a minute (its default), and a connection is idle until this task
        // resumes after connecting to write the request: on a loaded machine, with the cooperative pool busy with the
        // suite's other tests, that once took over a minute ("connection closed before a complete response").
        let patient = HTTPServer.Limits(idleTimeout: .seconds(600))
        let server = try await HTTPServer.start(on: api, port: 0, limits: patient, handlerLoop: placement) { _ in
            if let loop = MultiThreadedEventLoopGroup.currentEventLoop { seen.withLockedValue { _ = $0.insert(ObjectIdentifier(loop)) } }
            return .text(.ok, "answered")
        }.get()
        let phone = wire.node("phone")
        for _ in 0..<8 {
            let response = try await HTTPClient.send(
                HTTPRequest(method: .GET, target: "/", headers: ["Connection": "close"]), host: "127.0.0.1", port: server.listener.port, on: phone)
            #expect(response.status == .ok)
        }
        try await wire.shutdown()
        return (seen.withLockedValue { $0 }, ObjectIdentifier(api.eventLoop))
    }

    @Test func byDefaultEveryHandlerRunsOnTheNodesLoop() async throws {
        let (seen, home) = try await Self.handlerLoops(.home)
        #expect(seen == [home])
    }

    /// Connections are spread over both loops, and with `.connection` each handler runs where its connection is.
    @Test func aConnectionPlacedHandlerRunsOnEveryLoop() async throws {
        let (seen, _) = try await Self.handlerLoops(.connection)
        #expect(seen.count == 2)
    }
}
