import Foundation
import NodeHTTP
import Synchronization
import TestSupport
import Testing
import Wire
import WorkbenchKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Streamed bodies: a handler's answer written part by part (`NodeHTTPResponse.streamed`), read as it arrives
/// (`NodeURLSession.bytes(for:)`), under simulation on virtual time and on the live wire.
@Suite struct NodeHTTPStreamingTests {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "the feed broke" }
    }

    /// `/feed?parts=N&gap-ms=G&break-after=B`: N parts (`part 1\n`, …) G ms apart on the node's clock; with B, the
    /// producer throws instead of writing part B+1.
    static func feed(on node: Node) -> NodeHTTPServer.Handler {
        { request in
            let parts = Int(request.queryValue("parts") ?? "") ?? 3
            let gap = Int(request.queryValue("gap-ms") ?? "") ?? 1000
            let breakAfter = request.queryValue("break-after").flatMap(Int.init)
            return .streamed(headers: ["Content-Type": "text/plain; charset=utf-8"]) { writer in
                for part in 1...parts {
                    if part > 1 { try await node.clock.sleep(for: .milliseconds(gap)) }
                    if let breakAfter, part > breakAfter { throw Broken() }
                    try await writer.write("part \(part)\n")
                }
            }
        }
    }

    static func start(in world: Simulation) throws {
        let backend = world.node("backend")
        _ = try world.perform("start the feed") { try await NodeHTTPServer.start(on: backend, port: 8080, handler: feed(on: backend)) }
        try world.apply(.link(from: "phone", to: "backend", latency: .fixed(.milliseconds(20))))
    }

    /// What a reader of `url` saw: each part with the virtual time it arrived, then how the body ended.
    static func read(
        _ url: String, in world: Simulation, timeout: TimeInterval = 60
    ) throws
        -> (status: Int, parts: [(at: Duration, text: String)], end: String)
    {
        let phone = world.node("phone")
        let session = try NodeURLSession(node: phone)
        return try world.perform("read the feed") {
            let (bytes, response) = try await session.bytes(for: URLRequest(url: URL(string: url)!, timeoutInterval: timeout))
            var parts: [(at: Duration, text: String)] = []
            do {
                for try await part in bytes.chunks {
                    parts.append((world.now, String(decoding: part, as: UTF8.self)))
                }
                return ((response as? HTTPURLResponse)?.statusCode ?? 0, parts, "end")
            } catch let error as URLError {
                return ((response as? HTTPURLResponse)?.statusCode ?? 0, parts, "URLError \(error.code.rawValue)")
            }
        }
    }

    /// Each part reaches the reader when it is written, a second apart on virtual time, long before the last; the same
    /// seed reads the same way.
    @Test func eachPartArrivesWhenItIsWritten() throws {
        var digests: [String] = []
        for _ in 1...2 {
            let world = Simulation(seed: 41)
            try Self.start(in: world)
            let started = world.now
            let read = try Self.read("http://backend:8080/feed?parts=3&gap-ms=1000", in: world)
            #expect(read.status == 200)
            #expect(read.parts.map(\.text) == ["part 1\n", "part 2\n", "part 3\n"])
            #expect(read.end == "end")
            let offsets = read.parts.map { $0.at - started }
            #expect(offsets.count == 3 && offsets[0] < .milliseconds(200), "\(offsets)")
            #expect(offsets.count == 3 && offsets[1] - offsets[0] >= .seconds(1) && offsets[2] - offsets[1] >= .seconds(1), "\(offsets)")
            #expect(world.events.contains { $0.actor == "backend" && $0.name == "http-response" && $0["streamed"] == "true" })
            world.finish()
            #expect(world.failures.isEmpty, "\(world.failures)")
            digests.append(world.digest)
        }
        #expect(digests[0] == digests[1])
    }

    /// `data(for:)` reads a streamed answer whole; the bytes one by one are the same bytes.
    @Test func aStreamedAnswerReadsWholeOrByteByByte() throws {
        let world = Simulation(seed: 42)
        try Self.start(in: world)
        let session = try NodeURLSession(node: world.node("phone"))
        let url = URL(string: "http://backend:8080/feed?parts=4&gap-ms=10")!
        let (whole, bytes) = try world.perform("read the feed twice") {
            let (data, _) = try await session.data(for: URLRequest(url: url))
            var bytes: [UInt8] = []
            for try await byte in try await session.bytes(for: URLRequest(url: url)).0 { bytes.append(byte) }
            return (data, bytes)
        }
        #expect(String(decoding: whole, as: UTF8.self) == "part 1\npart 2\npart 3\npart 4\n")
        #expect(bytes == Array(whole))
    }

    /// A producer that throws closes the connection: the reader has the parts written, then `networkConnectionLost`,
    /// never a body that looks whole; the server goes on serving.
    @Test func aProducerThatThrowsEndsTheBodyAsLost() throws {
        let world = Simulation(seed: 43)
        try Self.start(in: world)
        let read = try Self.read("http://backend:8080/feed?parts=4&gap-ms=100&break-after=2", in: world)
        #expect(read.parts.map(\.text) == ["part 1\n", "part 2\n"])
        #expect(read.end == "URLError \(URLError.Code.networkConnectionLost.rawValue)")
        #expect(
            world.events.contains { $0.actor == "backend" && $0.name == "http-error" && $0["error"] == "the streamed body failed: the feed broke" })
        #expect(try Self.read("http://backend:8080/feed?parts=1", in: world).parts.map(\.text) == ["part 1\n"])
    }

    /// `timeoutInterval` is an idle timeout for a streamed body: parts 1 s apart pass a 2 s timeout, a 5 s gap does not.
    @Test func aBodyThatStopsComingTimesOut() throws {
        let world = Simulation(seed: 44)
        try Self.start(in: world)
        let slow = try Self.read("http://backend:8080/feed?parts=4&gap-ms=1000", in: world, timeout: 2)
        #expect(slow.parts.count == 4 && slow.end == "end", "\(slow)")
        let before = world.now
        let stalled = try Self.read("http://backend:8080/feed?parts=2&gap-ms=5000", in: world, timeout: 2)
        #expect(stalled.parts.map(\.text) == ["part 1\n"])
        #expect(stalled.end == "URLError \(URLError.Code.timedOut.rawValue)")
        #expect(world.now - before < .seconds(3), "the wait ended at the timeout, not at the next part: \(world.now - before)")
    }

    /// Parts `gap` apart on `clock`: an upload produced as it is sent.
    struct Paced: AsyncSequence, Sendable {
        typealias Element = Data
        let clock: NodeClock
        let parts: [Data]
        let gap: Duration

        func makeAsyncIterator() -> Iterator { Iterator(paced: self) }

        struct Iterator: AsyncIteratorProtocol {
            let paced: Paced
            var index = 0

            mutating func next() async throws -> Data? {
                guard index < paced.parts.count else { return nil }
                if index > 0 { try await paced.clock.sleep(for: paced.gap) }
                defer { index += 1 }
                return paced.parts[index]
            }
        }
    }

    /// What the streaming handler saw: each part's size and when it arrived, or how reading failed.
    final class Seen: Sendable {
        let log = Mutex<[String]>([])
        func add(_ line: String) { log.withLock { $0.append(line) } }
        var lines: [String] { log.withLock { $0 } }
    }

    /// A server that streams request bodies: `/count` reads the body part by part (noting each part's size and virtual
    /// time) and answers the totals; `/early` answers without reading it.
    static func startCounting(in world: Simulation, limit: Int = 1 << 20, seen: Seen) throws {
        let backend = world.node("backend")
        let start = backend.clock.now
        _ = try world.perform("start the counter") {
            try await NodeHTTPServer.start(on: backend, port: 8080, limits: .init(maxBodyBytes: limit), streamsRequestBodies: true) { request in
                guard request.path == "/count" else { return .text("not read", status: 202) }
                guard let parts = request.bodyParts, request.body.isEmpty else { return .text("no streamed body", status: 500) }
                var (count, bytes) = (0, 0)
                do {
                    for try await part in parts {
                        count += 1
                        bytes += part.count
                        seen.add("\(part.count) bytes at \(start.duration(to: backend.clock.now))")
                    }
                } catch {
                    seen.add("failed: \(error)")
                    throw error
                }
                return .text("\(count) parts, \(bytes) bytes")
            }
        }
        try world.apply(.link(from: "phone", to: "backend", latency: .fixed(.milliseconds(20))))
    }

    static func upload(_ path: String, _ parts: [String], gap: Duration, in world: Simulation) throws -> (status: Int, text: String) {
        let phone = world.node("phone")
        let session = try NodeURLSession(node: phone)
        let body = Paced(clock: phone.clock, parts: parts.map { Data($0.utf8) }, gap: gap)
        return try world.perform("upload") {
            do {
                let (data, response) = try await session.upload(
                    for: URLRequest(url: URL(string: "http://backend:8080" + path)!, timeoutInterval: 60), streaming: body)
                return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
            } catch let error as URLError {
                return (-error.code.rawValue, error.localizedDescription)
            }
        }
    }

    /// An upload produced a second a part reaches the handler a part at a time, a second apart, before it ended.
    @Test func anUploadIsReadAsItArrives() throws {
        let world = Simulation(seed: 45)
        let seen = Seen()
        try Self.startCounting(in: world, seen: seen)
        let answer = try Self.upload("/count", ["first ", "second ", "third"], gap: .seconds(1), in: world)
        #expect(answer.status == 200 && answer.text == "3 parts, 18 bytes\n", "\(answer)")
        #expect(seen.lines.map { $0.prefix { $0 != " " } } == ["6", "7", "5"], "\(seen.lines)")
        let times = seen.lines.compactMap { $0.split(separator: " at ").last }
        // The connection's handshake and the head take 60 ms on a 20 ms link; then a part a second.
        #expect(times == ["0.06 seconds", "1.06 seconds", "2.06 seconds"], "\(seen.lines)")
        #expect(world.events.contains { $0.actor == "backend" && $0.name == "http-request" && $0["bytes"] == "streamed" })
        world.finish()
        #expect(world.failures.isEmpty, "\(world.failures)")
    }

    /// A streamed body over the limit is answered `413` as a whole one is, and the handler's reading fails; a handler
    /// that answers without reading the body is answered, and the connection closes after it.
    @Test func aStreamedUploadOverTheLimitIs413AndAnEarlyAnswerIsKept() throws {
        let world = Simulation(seed: 46)
        let seen = Seen()
        try Self.startCounting(in: world, limit: 10, seen: seen)
        let over = try Self.upload("/count", ["12345678", "12345678", "12345678"], gap: .milliseconds(100), in: world)
        #expect(over.status == 413 && over.text == "the request body exceeds the limit of 10 bytes\n", "\(over)")
        #expect(
            seen.lines.first == "8 bytes at 0.06 seconds" && seen.lines.last?.hasPrefix("failed: the request body did not arrive whole") == true,
            "\(seen.lines)")
        let early = try Self.upload("/early", ["a", "b", "c"], gap: .milliseconds(100), in: world)
        #expect(early.status == 202 && early.text == "not read\n", "\(early)")
        #expect(try Self.upload("/count", ["1234", "5678"], gap: .milliseconds(10), in: world).text == "2 parts, 8 bytes\n")
    }

    /// A server that reads bodies whole takes a streamed upload whole.
    @Test func aWholeBodyServerTakesAStreamedUpload() throws {
        let world = Simulation(seed: 47)
        _ = try NodeHTTPServerTests.start(in: world)
        let answer = try Self.upload("/upload", ["abc", "defg", "hi"], gap: .milliseconds(500), in: world)
        #expect(answer.status == 200 && answer.text == "9 bytes\n", "\(answer)")
    }

    /// On the live wire: Foundation's URLSession reads the chunked answer whole, a NodeURLSession of another node
    /// reads it part by part.
    @Test func aStreamedAnswerOnTheLiveWire() async throws {
        let wire = LiveWire(seed: 1, threads: 1)
        let backend = wire.node("backend")
        let server = try await NodeHTTPServer.start(on: backend, port: 0, handler: Self.feed(on: backend))
        let url = URL(string: server.url.absoluteString + "feed?parts=3&gap-ms=50")!
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (whole, response) = try await withDeadline(liveStepLimit, "URLSession reads the feed") {
            try await session.data(for: URLRequest(url: url, timeoutInterval: 30))
        }
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Transfer-Encoding")?.lowercased() == "chunked")
        #expect(String(decoding: whole, as: UTF8.self) == "part 1\npart 2\npart 3\n")
        let parts = try await withDeadline(liveStepLimit, "NodeURLSession reads the feed") {
            var parts: [String] = []
            for try await part in try await NodeURLSession(node: wire.node("phone")).bytes(for: URLRequest(url: url)).0.chunks {
                parts.append(String(decoding: part, as: UTF8.self))
            }
            return parts
        }
        #expect(parts == ["part 1\n", "part 2\n", "part 3\n"])
        // Uploads to a server that streams request bodies: Foundation's, whole; NodeURLSession's, as produced.
        let counter = try await NodeHTTPServer.start(on: backend, port: 0, streamsRequestBodies: true) { request in
            var (count, bytes) = (0, 0)
            for try await part in try #require(request.bodyParts) {
                count += 1
                bytes += part.count
            }
            return .text("\(bytes) bytes in \(count > 0 ? "parts" : "none")")
        }
        let upload = {
            var upload = URLRequest(url: URL(string: counter.url.absoluteString + "count")!, timeoutInterval: 30)
            upload.httpMethod = "POST"
            return upload
        }()
        let phone = wire.node("phone")
        let uploads = try await withDeadline(liveStepLimit, "uploads to the counter") {
            let (whole, _) = try await session.upload(for: upload, from: Data(repeating: 65, count: 100_000))
            let paced = Paced(clock: phone.clock, parts: Array(repeating: Data(repeating: 66, count: 50_000), count: 3), gap: .milliseconds(10))
            let (streamed, _) = try await NodeURLSession(node: phone).upload(for: upload, streaming: paced)
            return [whole, streamed].map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(uploads == ["100000 bytes in parts\n", "150000 bytes in parts\n"])
        try await counter.stop()
        try await server.stop()
        try await wire.shutdown()
    }
}
