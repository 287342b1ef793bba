import Foundation
import NodeHTTP
import TestSupport
import Testing
import Wire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The backend of NodeHTTPServerTests, unchanged, on a node of the live wire: real sockets on loopback, called by
/// Foundation's URLSession (libcurl on Linux) and by a NodeURLSession of another live node, through the protocol an
/// app's code is written against.
@Suite struct NodeHTTPServerLiveTests {
    @Test func theSameBackendServesURLSessionOnTheLiveWire() async throws {
        let wire = LiveWire(seed: 1, threads: 1)
        let server = try await NodeHTTPServer.start(
            on: wire.node("backend"), port: 0, limits: .init(maxBodyBytes: 16), handler: NodeHTTPServerTests.backend)
        #expect(server.host == "127.0.0.1" && server.port > 0)
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let loaders: [(String, any HTTPDataLoading)] = [("URLSession", session), ("NodeURLSession", try NodeURLSession(node: wire.node("phone")))]
        let base = server.url.absoluteString
        let basic = "Basic " + Data("demo:password".utf8).base64EncodedString()
        let requests = [
            NodeHTTPServerTests.request(base + "hello?name=Ann%20B", headers: ["User-Agent": "desk/1"], timeout: 30),
            NodeHTTPServerTests.request(base + "fail", timeout: 30),
            NodeHTTPServerTests.request(base + "upload", method: "POST", body: String(repeating: "x", count: 17), timeout: 30),
            NodeHTTPServerTests.request(base + "upload", method: "POST", body: String(repeating: "x", count: 16), timeout: 30),
            NodeHTTPServerTests.request(base + "basic", headers: ["Authorization": basic], timeout: 30),
            NodeHTTPServerTests.request(base + "bearer", headers: ["Authorization": "Bearer abc"], timeout: 30),
            NodeHTTPServerTests.request(base + "bearer", timeout: 30),
        ]
        for (name, loader) in loaders {
            let answers = try await withDeadline(liveStepLimit, "the backend's requests through \(name)") {
                var answers: [(Int, String)] = []
                for request in requests {
                    let (data, response) = try await loader.data(for: request)
                    answers.append(((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self)))
                }
                return answers
            }
            #expect(answers.map(\.0) == [200, 500, 413, 200, 200, 200, 401], "\(name)")
            #expect(answers.first?.1 == "GET hello Ann B, 0 bytes, agent desk/1\n", "\(name)")
            #expect(answers[1].1 == "the handler failed: the device is locked\n", "\(name)")
            #expect(answers[2].1 == "the request body of 17 bytes exceeds the limit of 16 bytes\n", "\(name)")
            #expect(answers[4].1 == "hello demo\n", "\(name)")
            #expect(answers[5].1 == "token accepted\n", "\(name)")
        }
        // Bytes that are no HTTP request: WireHTTP's 400 with the reason, on real sockets too.
        let garbage = try await withDeadline(liveStepLimit, "garbage to the backend") {
            try await RawExchange.send(Array("HELLO THERE\r\n\r\n".utf8), to: server.host, port: server.port, from: wire.node("phone"))
        }
        let text = String(decoding: garbage, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n") && text.contains("The request is not HTTP/1.1"), "\(text)")
        try await server.stop()
        try await wire.shutdown()
    }
}
