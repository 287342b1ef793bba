import EchoServer
import Kernel
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import TestSupport
import Testing
import Wire
import WireHTTP

/// A TCP client that keeps what it receives and notices the server's close: an `inputClosed` event while its own
/// output is open, or the channel going inactive once it had half-closed itself (its input then ends the channel).
final class TCPProbe: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let received = NIOLockedValueBox(ByteBuffer())
    let serverClosed = NIOLockedValueBox(false)

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        received.withLockedValue { _ = $0.writeBuffer(&chunk) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { serverClosed.withLockedValue { $0 = true } }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        serverClosed.withLockedValue { $0 = true }
        context.fireChannelInactive()
    }
}

/// The echo actor as tests and the tour use it: TCP echo (RFC 862), the HTTP echo with its delay and fault, the
/// `echo:` scheme on the bus, stopping, and the same actor on the live wire.
@Suite struct EchoServerTests {
    static func world(_ configuration: EchoServer.Configuration = .init()) throws -> (Kernel, EchoServer, Node) {
        let kernel = Kernel(seed: 1)
        let node = kernel.node("echo")
        let server = try kernel.run("start echo") { try await EchoServer.start(on: node, configuration: configuration).get() }
        return (kernel, server, kernel.node("phone"))
    }

    static func http(_ kernel: Kernel, _ phone: Node, _ request: HTTPRequest = HTTPRequest(), port: Int = 80) throws -> HTTPResponse {
        try kernel.run("\(request.method) \(request.target)") { try await HTTPClient.send(request, host: "echo", port: port, on: phone) }
    }

    @Test func tcpSendsBackEveryByteAndAnswersAHalfCloseWithOne() throws {
        let (kernel, _, phone) = try Self.world()
        kernel.network.setConditions(from: "phone", to: "echo", LinkConditions(latency: .fixed(2_000_000), bandwidth: 1_000_000))
        let probe = TCPProbe()
        let sent = ByteBuffer(bytes: (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let channel = try kernel.run("connect") {
            try await phone.connect(host: "echo", port: 7) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.syncOptions?.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
                    try channel.pipeline.syncOperations.addHandler(probe)
                }
            }.get()
        }
        _ = try kernel.run("send and half-close") {
            try await channel.writeAndFlush(sent).get()
            try await channel.close(mode: .output).get()
        }
        #expect(!probe.serverClosed.withLockedValue { $0 })
        kernel.advance(by: .seconds(5))
        #expect(probe.received.withLockedValue { $0 } == sent)
        #expect(probe.serverClosed.withLockedValue { $0 }, "the echo closes its side once it has echoed everything")
    }

    @Test func getRootSaysHello() throws {
        let (kernel, _, phone) = try Self.world()
        let response = try Self.http(kernel, phone)
        #expect(response.status == .ok)
        #expect(response.text == "echo hello\n")
        #expect(response.headers["Content-Type"] == ["text/plain; charset=utf-8"])
        #expect(response.headers["Content-Length"] == ["11"])
        #expect(kernel.trace.all.contains { $0.actor == "echo" && $0.event == "http-request" && $0["method"] == "GET" && $0["path"] == "/" })
        #expect(kernel.trace.all.contains { $0.actor == "echo" && $0.event == "http-response" && $0["status"] == "200" })
    }

    /// A malformed header gets a 400 that names the fault, and the connection closes (it used to stay open after
    /// an empty 400); the echo serves the next connection.
    @Test func aMalformedRequestIsAnswered400WithTheReasonAndClosed() throws {
        let (kernel, _, phone) = try Self.world()
        let answer = try kernel.run("malformed") {
            try await RawExchange.send(Array("GET / HTTP/1.1\r\nHost echo\r\n\r\n".utf8), to: "echo", port: 80, from: phone)
        }
        #expect(
            String(decoding: answer, as: UTF8.self) == "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: 57\r\nConnection: close\r\n\r\nThe request is not HTTP/1.1: invalid character in header\n")
        #expect(try Self.http(kernel, phone).text == "echo hello\n")
    }

    @Test func otherRequestsAreAnsweredWithASummaryOfThemselves() throws {
        let (kernel, _, phone) = try Self.world()
        let post = try Self.http(kernel, phone, HTTPRequest(method: .POST, target: "/upload?x=1", body: ByteBuffer(repeating: 0x41, count: 1_234)))
        #expect(post.status == .ok)
        #expect(post.text == "POST /upload 1234 bytes\n")
        #expect(try Self.http(kernel, phone, HTTPRequest(target: "/other")).text == "GET /other 0 bytes\n")
        #expect(try Self.http(kernel, phone, HTTPRequest(method: .PUT, target: "/", body: ByteBuffer(string: "abc"))).text == "PUT / 3 bytes\n")
    }

    @Test func aDelayIsSpentOnTheNodesVirtualClock() throws {
        let (kernel, _, phone) = try Self.world()
        func elapsed(_ target: String) throws -> Duration {
            let start = kernel.now
            #expect(try Self.http(kernel, phone, HTTPRequest(target: target)).status == .ok)
            return kernel.now - start
        }
        let plain = try elapsed("/")
        #expect(try elapsed("/?delay=250ms") - plain == .milliseconds(250))
        #expect(try elapsed("/?delay=2s") - plain == .seconds(2))
        #expect(try elapsed("/?delay=1500us") - plain == .microseconds(1_500))
        #expect(try elapsed("/?delay=soon") == plain, "a delay it cannot read is no delay")
    }

    @Test func theUnavailableFaultTurnsAnswersInto503() throws {
        let (kernel, _, phone) = try Self.world()
        #expect(kernel.faults.point(EchoServer.unavailableFault) != nil, "declared at start, so scenarios can list it")
        kernel.faults.set(EchoServer.unavailableFault, .times(1))
        let refused = try Self.http(kernel, phone)
        #expect(refused.status == .serviceUnavailable)
        #expect(refused.text == "echo is unavailable (fault echo.unavailable is on)\n")
        #expect(try Self.http(kernel, phone).status == .ok, "once: the next answer is normal again")
        #expect(kernel.trace.all.filter { $0.event == "fault-fired" }.map { $0["point"] } == ["echo.unavailable"])
    }

    @Test func connectionCloseIsHonoured() throws {
        let (kernel, _, phone) = try Self.world()
        let closing = try Self.http(kernel, phone, HTTPRequest(headers: ["Connection": "close"]))
        #expect(closing.headers["Connection"] == ["close"])
        #expect(closing.text == "echo hello\n")
        #expect(try Self.http(kernel, phone).headers["Connection"].isEmpty)
    }

    @Test func aPingOnTheBusIsAnsweredAtTheReplyURL() throws {
        let (kernel, _, phone) = try Self.world()
        let inbox = NIOLockedValueBox<[String]>([])
        kernel.bus.register(scheme: "phone", owner: "phone", on: phone.eventLoop) { url, sender in
            inbox.withLockedValue { $0.append("\(sender) -> \(url)") }
        }
        #expect(kernel.bus.owner(of: "echo") == "echo")
        #expect(kernel.bus.open("echo://ping?reply=phone%3A%2F%2Fpong%3Fn%3D1", from: "phone"))
        kernel.loop.runDue()
        #expect(inbox.withLockedValue { $0 } == ["echo -> phone://pong?n=1"])
        #expect(
            kernel.trace.all.contains {
                $0.actor == "echo" && $0.event == "url-received" && $0["from"] == "phone"
                    && $0["url"] == "echo://ping?reply=phone%3A%2F%2Fpong%3Fn%3D1"
            })
        // Without a reply the URL is only traced.
        #expect(kernel.bus.open("echo://hello", from: "phone"))
        kernel.loop.runDue()
        #expect(inbox.withLockedValue { $0 }.count == 1)
        #expect(kernel.trace.all.contains { $0.event == "url-received" && $0["url"] == "echo://hello" })
    }

    @Test func endpointsNameWhatAClientCanUse() throws {
        let (_, server, _) = try Self.world()
        #expect(server.endpoints.map { "\($0.label) \($0.url)" } == ["tcp tcp://echo:7", "http http://echo:80/", "bus echo://"])
        let (kernel, custom, phone) = try Self.world(EchoServer.Configuration(tcpPort: 2007, httpPort: 8080, scheme: nil))
        #expect(custom.endpoints.map { "\($0.label) \($0.url)" } == ["tcp tcp://echo:2007", "http http://echo:8080/"])
        #expect(kernel.bus.owner(of: "echo") == nil, "no scheme, no bus registration")
        #expect(try Self.http(kernel, phone, port: 8080).text == "echo hello\n")
        #expect { try Self.http(kernel, phone, port: 80) } throws: { ($0 as? WireError)?.kind == .refused }
    }

    @Test func stoppingClosesTheServicesAndLeavesTheBus() throws {
        let (kernel, server, phone) = try Self.world()
        #expect(try Self.http(kernel, phone).status == .ok)
        _ = try kernel.run("stop") { try await server.stop().get() }
        #expect(!kernel.bus.canOpen("echo://ping"))
        #expect { try Self.http(kernel, phone) } throws: { ($0 as? WireError)?.kind == .refused }
        #expect {
            try kernel.run("tcp") { try await phone.connect(host: "echo", port: 7).get() }
        } throws: { ($0 as? WireError)?.kind == .refused }
        #expect(kernel.trace.all.last { $0.actor == "echo" }?.event == "stopped")
    }

    @Test func theSameActorServesOnTheLiveWire() async throws {
        let wire = LiveWire(seed: 1, threads: 2)
        let server = try await withDeadline(liveStepLimit, "echo starting on loopback") {
            try await EchoServer.start(on: wire.node("echo"), configuration: EchoServer.Configuration(tcpPort: 0, httpPort: 0, scheme: "echo")).get()
        }
        let http = try #require(server.endpoints.first { $0.label == "http" }?.url)
        #expect(http == "http://127.0.0.1:\(server.http.port)/")
        let phone = wire.node("phone")
        let response = try await withDeadline(liveStepLimit, "GET / from the live echo") {
            try await HTTPClient.send(HTTPRequest(), host: "echo", port: server.http.port, on: phone)
        }
        #expect(response.text == "echo hello\n")
        try await withDeadline(liveStepLimit, "echo stopping") { try await server.stop().get() }
        try await wire.shutdown()
    }
}
