import EchoServer
import Kernel
import NIOCore
import NIOHTTP1
import Testing
import Wire
import WireHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Proof (a): an HTTP/1.1 exchange with NIOHTTP1 on both sides runs on the simulated wire.
@Suite struct HTTPOverSimulatedWireTests {
    /// Starts the echo actor on host "echo" and returns the kernel and a client node.
    static func world(seed: UInt64) throws -> (Kernel, Node) {
        let kernel = Kernel(seed: seed)
        let server = kernel.node("echo")
        _ = try kernel.run("start echo") { try await EchoServer.start(on: server).get() }
        return (kernel, kernel.node("phone"))
    }

    static func get(_ kernel: Kernel, _ phone: Node, _ target: String = "/") throws -> HTTPResponse {
        try kernel.run("GET \(target)") {
            try await HTTPClient.send(HTTPRequest(target: target), host: "echo", port: 80, on: phone)
        }
    }

    @Test func exchangeCompletesAndIsTraced() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        let response = try Self.get(kernel, phone)
        #expect(response.status == .ok)
        #expect(response.text == "echo hello\n")
        let events = kernel.trace.all.map(\.event)
        #expect(events.contains("accept"))
        #expect(events.contains("http-request"))
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test func sameSeedSameDigest() throws {
        func digest(_ seed: UInt64) throws -> String {
            let (kernel, phone) = try Self.world(seed: seed)
            kernel.network.setConditions(from: "phone", to: "echo", LinkConditions(latency: .uniform(1_000_000, 9_000_000)))
            kernel.network.setConditions(from: "echo", to: "phone", LinkConditions(latency: .normal(mean: 5_000_000, deviation: 2_000_000)))
            for path in ["/", "/a", "/b?delay=20ms"] { _ = try Self.get(kernel, phone, path) }
            return kernel.trace.digest
        }
        #expect(try digest(7) == digest(7))
        #expect(try digest(7) != digest(8), "random latency must depend on the seed")
    }

    @Test func latencyAndBandwidthCostVirtualTimeOnly() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        kernel.network.setConditions(from: "phone", to: "echo", LinkConditions(latency: .fixed(50_000_000), bandwidth: 10_000))
        kernel.network.setConditions(from: "echo", to: "phone", LinkConditions(latency: .fixed(50_000_000)))
        let start = kernel.now
        let body = ByteBuffer(repeating: 0x41, count: 20_000)
        let response = try kernel.run("POST") {
            try await HTTPClient.send(HTTPRequest(method: .POST, target: "/upload", body: body), host: "echo", port: 80, on: phone)
        }
        #expect(response.text == "POST /upload 20000 bytes\n")
        // Handshake 100 ms, 20 kB at 10 kB/s = 2 s, plus one-way latencies: well over 2 s of virtual time.
        #expect(kernel.now - start > .seconds(2))
        #expect(kernel.now - start < .seconds(3))
    }

    @Test func resetMidExchangeFailsTheClient() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        kernel.network.setConditions(from: "phone", to: "echo", LinkConditions(latency: .fixed(1_000_000), bandwidth: 100_000))
        let upload = kernel.spawn("upload") {
            try await HTTPClient.send(
                HTTPRequest(method: .POST, target: "/big", body: ByteBuffer(repeating: 1, count: 1_000_000)),
                host: "echo", port: 80, on: phone)
        }
        kernel.advance(by: .milliseconds(500))
        #expect(kernel.network.resetConnections(between: "phone", and: "echo") == 1)
        // The reset itself, not a time-out of the kernel's wait (which would also be an error).
        #expect {
            try kernel.wait(for: upload, timeout: .seconds(5))
        } throws: { ($0 as? IOError)?.errnoCode == ECONNRESET }
        #expect(kernel.trace.all.contains { $0.event == "reset" })
    }

    @Test func partitionTimesOutAndHealRestoresService() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        kernel.network.setPartitioned(from: "phone", to: "echo", true)
        kernel.network.setPartitioned(from: "echo", to: "phone", true)
        let before = kernel.now
        #expect {
            try kernel.run("GET during partition") {
                try await HTTPClient.send(HTTPRequest(), host: "echo", port: 80, on: phone, timeout: .seconds(5))
            }
        } throws: { ($0 as? WireError)?.kind == .timedOut }
        #expect(kernel.now - before == .seconds(5))
        kernel.network.setPartitioned(from: "phone", to: "echo", false)
        kernel.network.setPartitioned(from: "echo", to: "phone", false)
        #expect(try Self.get(kernel, phone).status == .ok)
    }

    @Test func holdDelaysWithoutFailing() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        kernel.network.setHeld(from: "echo", to: "phone", true)
        let request = kernel.spawn("GET") { try await HTTPClient.send(HTTPRequest(), host: "echo", port: 80, on: phone) }
        kernel.advance(by: .seconds(3))
        #expect(!request.isFinished)
        kernel.network.setHeld(from: "echo", to: "phone", false)
        #expect(try kernel.wait(for: request, timeout: .seconds(1)).status == .ok)
    }

    @Test func refusedAndUnknownHost() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        #expect { try kernel.run("refused") { try await HTTPClient.send(HTTPRequest(), host: "echo", port: 81, on: phone) } } throws: {
            ($0 as? WireError)?.kind == .refused
        }
        #expect { try kernel.run("unknown") { try await HTTPClient.send(HTTPRequest(), host: "nowhere", port: 80, on: phone) } } throws: {
            ($0 as? WireError)?.kind == .unknownHost
        }
    }
}
