import Foundation
import NodeHTTP
import TestSupport
import Testing
import WorkbenchKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A team's own server (NodeHTTPServer) on a node of a simulated world, called by NodeURLSession from another node
/// over the simulated network, on virtual time.
@Suite struct NodeHTTPServerTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "the device is locked" }
    }

    /// The team's backend: what each test calls. `/hello` echoes what the handler was given; `/fail` throws; `/basic`
    /// and `/bearer` read credentials; `/upload` counts the body.
    static func backend(_ request: NodeHTTPRequest) async throws -> NodeHTTPResponse {
        switch request.path {
        case "/hello":
            let name = request.queryValue("name") ?? "nobody"
            var answer = NodeHTTPResponse.text(
                "\(request.method) hello \(name), \(request.body.count) bytes, agent \(request.headers["user-agent"] ?? "-")")
            answer.headers.add(name: "X-Served-By", value: "backend")
            return answer
        case "/fail":
            throw Refused()
        case "/status":
            return NodeHTTPResponse(status: Int(request.queryValue("code") ?? "") ?? 0)
        case "/basic":
            switch request.basicCredentials {
            case .present(let credentials) where credentials.matches(user: "demo", password: "password"):
                return .text("hello \(credentials.user)")
            case .malformed(let reason):
                return .text(reason, status: 400)
            case .present, .missing:
                return .basicChallenge(realm: "Team Backend")
            }
        case "/bearer":
            switch request.bearerToken {
            case .present("abc"): return .text("token accepted")
            case .present: return .bearerChallenge(reason: "the token is not valid", invalidToken: true)
            case .malformed(let reason): return .bearerChallenge(reason: reason)
            case .missing: return .bearerChallenge()
            }
        case "/upload":
            return .text("\(request.body.count) bytes")
        default:
            return .text("no \(request.path) here", status: 404)
        }
    }

    /// Starts the backend on `backend:8080` in `world`.
    static func start(
        in world: Simulation, node: String = "backend", port: Int = 8080, tls: NodeHTTPServer.TLS? = nil, limits: NodeHTTPServer.Limits = .init()
    )
        throws -> NodeHTTPServer
    {
        let backend = world.node(node)
        return try world.perform("start the backend") {
            try await NodeHTTPServer.start(on: backend, port: port, tls: tls, limits: limits, handler: Self.backend)
        }
    }

    static func request(
        _ url: String, method: String = "GET", body: String? = nil, headers: [String: String] = [:], timeout: TimeInterval = 60
    ) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// The status and body text of each request in turn, or the URLError's code as a negative status.
    static func call(
        _ world: Simulation, _ requests: [URLRequest], delegate: (any NodeURLSessionDelegate)? = nil, trust: NodeURLSession.Trust = .systemRoots
    )
        throws -> [(status: Int, text: String, response: HTTPURLResponse?)]
    {
        let session = try NodeURLSession(node: world.node("phone"), trust: trust, delegate: delegate)
        return try world.perform("call the backend") {
            var answers: [(status: Int, text: String, response: HTTPURLResponse?)] = []
            for request in requests {
                do {
                    let (data, response) = try await session.data(for: request)
                    let http = response as? HTTPURLResponse
                    answers.append((http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), http))
                } catch let error as URLError {
                    answers.append((-error.code.rawValue, error.localizedDescription, nil))
                }
            }
            return answers
        }
    }

    @Test func servesTheTeamsHandlerOnASimulatedNode() throws {
        var digests: [String] = []
        for _ in 1...2 {
            let world = Simulation(seed: 31)
            let server = try Self.start(in: world)
            try world.apply(.link(from: "phone", to: "backend", latency: .fixed(.milliseconds(30))))
            #expect(server.url.absoluteString == "http://backend:8080/")
            #expect(server.host == "backend" && server.port == 8080 && !server.usesTLS)
            let answers = try Self.call(
                world,
                [
                    Self.request("http://backend:8080/hello?name=Ann%20B", headers: ["User-Agent": "desk/1"]),
                    Self.request("http://backend:8080/hello?name=Bo", method: "POST", body: "12345"),
                    Self.request("http://backend:8080/elsewhere"),
                ])
            #expect(answers.map(\.status) == [200, 200, 404])
            #expect(answers[0].text == "GET hello Ann B, 0 bytes, agent desk/1\n")
            #expect(answers[1].text == "POST hello Bo, 5 bytes, agent -\n")
            #expect(answers[0].response?.value(forHTTPHeaderField: "x-served-by") == "backend")
            #expect(answers[0].response?.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
            // Three round trips of 30 ms each way, on virtual time.
            #expect(world.now >= .milliseconds(180), "\(world.now)")
            let served = world.events.filter { $0.actor == "backend" && $0.name == "http-request" }
            #expect(served.map { $0["path"] } == ["/hello", "/hello", "/elsewhere"])
            try world.perform("stop the backend") { try await server.stop() }
            #expect(try Self.call(world, [Self.request("http://backend:8080/hello")]).map(\.status) == [-URLError.Code.cannotConnectToHost.rawValue])
            world.finish()
            #expect(world.failures.isEmpty, "\(world.failures)")
            digests.append(world.digest)
        }
        #expect(digests[0] == digests[1], "the same seed gives the same trace")
    }

    /// Bytes that are no HTTP request get WireHTTP's `400` with the reason; the server goes on serving.
    @Test func aMalformedRequestIsAnswered400() throws {
        let world = Simulation(seed: 32)
        _ = try Self.start(in: world)
        let phone = world.node("phone")
        let answer = try world.perform("send garbage") {
            try await RawExchange.send(Array("HELLO THERE\r\n\r\n".utf8), to: "backend", port: 8080, from: phone)
        }
        let text = String(decoding: answer, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(text)")
        #expect(text.contains("The request is not HTTP/1.1"), "\(text)")
        #expect(world.events.contains { $0.actor == "backend" && $0.name == "http-bad-request" })
        #expect(try Self.call(world, [Self.request("http://backend:8080/hello")]).map(\.status) == [200])
    }

    /// A handler that throws is answered `500` with the error's description, as is a status no final answer has; the
    /// next request is served.
    @Test func aHandlerThatThrowsIsAnswered500AndTheNextRequestIsServed() throws {
        let world = Simulation(seed: 33)
        _ = try Self.start(in: world)
        let answers = try Self.call(
            world,
            [
                Self.request("http://backend:8080/fail"), Self.request("http://backend:8080/hello"),
                Self.request("http://backend:8080/status?code=101"), Self.request("http://backend:8080/status?code=201"),
            ])
        #expect(answers.map(\.status) == [500, 200, 500, 201])
        #expect(answers[0].text == "the handler failed: the device is locked\n")
        #expect(answers[2].text == "the handler answered status 101, outside 200…999\n")
        let errors = world.events.filter { $0.actor == "backend" && $0.name == "http-error" }.compactMap { $0["error"] }
        #expect(errors == ["the handler failed: the device is locked", "the handler answered status 101, outside 200…999"])
        world.finish()
        #expect(world.failures.isEmpty, "\(world.failures)")
    }

    /// A body over the limit is answered `413` before the handler sees it; one at the limit is served.
    @Test func aBodyOverTheLimitIsAnswered413() throws {
        let world = Simulation(seed: 34)
        _ = try Self.start(in: world, limits: .init(maxBodyBytes: 16))
        let answers = try Self.call(
            world,
            [
                Self.request("http://backend:8080/upload", method: "POST", body: String(repeating: "x", count: 17)),
                Self.request("http://backend:8080/upload", method: "POST", body: String(repeating: "x", count: 16)),
            ])
        #expect(answers.map(\.status) == [413, 200])
        #expect(answers[0].text == "the request body of 17 bytes exceeds the limit of 16 bytes\n")
        #expect(answers[1].text == "16 bytes\n")
        let handled = world.events.filter { $0.actor == "backend" && $0.name == "http-request" }
        #expect(handled.count == 1, "the handler saw only the body within the limit")
    }

    /// Basic and bearer credentials, read by the workbench's own parsers: up front, through a session delegate that
    /// answers the Basic challenge, wrong, missing and malformed.
    @Test func readsBasicAndBearerCredentials() throws {
        let world = Simulation(seed: 35)
        _ = try Self.start(in: world)
        func basic(_ pair: String) -> String { "Basic " + Data(pair.utf8).base64EncodedString() }
        let answers = try Self.call(
            world,
            [
                Self.request("http://backend:8080/basic", headers: ["Authorization": basic("demo:password")]),
                Self.request("http://backend:8080/basic", headers: ["Authorization": basic("demo:wrong")]),
                Self.request("http://backend:8080/basic"),
                Self.request("http://backend:8080/basic", headers: ["Authorization": "Basic !!!"]),
                Self.request("http://backend:8080/bearer", headers: ["Authorization": "Bearer abc"]),
                Self.request("http://backend:8080/bearer", headers: ["Authorization": "Bearer xyz"]),
                Self.request("http://backend:8080/bearer", headers: ["Authorization": basic("demo:password")]),
                Self.request("http://backend:8080/bearer"),
            ])
        #expect(answers.map(\.status) == [200, 401, 401, 400, 200, 401, 401, 401])
        #expect(answers[0].text == "hello demo\n")
        #expect(answers[1].response?.value(forHTTPHeaderField: "WWW-Authenticate") == #"Basic realm="Team Backend""#)
        #expect(answers[3].text == "the Basic credentials are not valid base64\n")
        #expect(answers[4].text == "token accepted\n")
        #expect(answers[5].response?.value(forHTTPHeaderField: "WWW-Authenticate") == #"Bearer error="invalid_token""#)
        #expect(answers[6].text == "the Authorization scheme is 'Basic'; expected 'Authorization: Bearer <token>'\n")
        #expect(answers[7].response?.value(forHTTPHeaderField: "WWW-Authenticate") == "Bearer")

        // The challenge answered by the client's delegate, as an app's URLSession delegate would.
        let delegate = Challenged(.credential(user: "demo", password: "password"))
        let challenged = try Self.call(world, [Self.request("http://backend:8080/basic")], delegate: delegate)
        #expect(challenged.map(\.status) == [200])
        #expect(delegate.challenges.map(\.realm) == ["Team Backend"])
    }

    /// The readers on a request made by hand (a handler called directly in a unit test).
    @Test func readsCredentialsOfARequestMadeByHand() {
        let basic = NodeHTTPRequest(target: "/x?a=1&b=two%20words", headers: ["authorization": "Basic ZGVtbzpwYTpzcw=="])
        #expect(basic.basicCredentials == .present(NodeHTTPBasicCredentials(user: "demo", password: "pa:ss")))
        #expect(basic.basicCredentials.credentials?.matches(user: "demo", password: "pa:ss") == true)
        #expect(basic.basicCredentials.credentials?.matches(user: "demo", password: "pa:s") == false)
        #expect(basic.bearerToken == .malformed("the Authorization scheme is 'Basic'; expected 'Authorization: Bearer <token>'"))
        #expect(basic.path == "/x" && basic.queryValue("b") == "two words" && basic.query.map(\.name) == ["a", "b"])
        let bearer = NodeHTTPRequest(method: "POST", target: "/", headers: ["Authorization": "Bearer  t0k3n "], body: Data("hi".utf8))
        #expect(bearer.bearerToken == .present("t0k3n"))
        #expect(bearer.basicCredentials.credentials == nil)
        #expect(bearer.text == "hi" && bearer.method == "POST")
        let none = NodeHTTPRequest(target: "/")
        #expect(none.basicCredentials == .missing && none.bearerToken == .missing)
        #expect(NodeHTTPRequest(target: "/", headers: ["Authorization": "Bearer "]).bearerToken != .missing)
    }

    /// A partition cuts the phone from the backend: the request ends at its timeout, on virtual time; healed, it is
    /// served.
    @Test func aPartitionedClientTimesOut() throws {
        let world = Simulation(seed: 36)
        _ = try Self.start(in: world)
        try world.apply(.partition("phone", "backend"))
        let cut = try Self.call(world, [Self.request("http://backend:8080/hello", timeout: 5)])
        #expect(cut.map(\.status) == [-URLError.Code.timedOut.rawValue], "\(cut.map(\.text))")
        #expect(world.now >= .seconds(5) && world.now < .seconds(6), "\(world.now)")
        try world.apply(.heal("phone", "backend"))
        #expect(try Self.call(world, [Self.request("http://backend:8080/hello", timeout: 5)]).map(\.status) == [200])
    }

    /// TLS with the test certificate (its names include `tls-server`): trusted through the test CA, and plain HTTP
    /// sent to the TLS port answered `400` as nginx answers it.
    @Test func servesHTTPSWithAPEMCertificate() throws {
        let world = Simulation(seed: 37)
        func pem(_ path: String) throws -> [UInt8] { try Array(Data(contentsOf: URL(fileURLWithPath: Repository.fixture(path)))) }
        let tls = try NodeHTTPServer.TLS(certificateChainPEM: try pem("tls/server.pem"), privateKeyPEM: try pem("tls/server.key"))
        let server = try Self.start(in: world, node: "tls-server", port: 443, tls: tls)
        #expect(server.url.absoluteString == "https://tls-server:443/" && server.usesTLS)
        let trusted = try Self.call(world, [Self.request("https://tls-server/hello?name=tls")], trust: .caPEM(try pem("tls/ca.pem")))
        #expect(trusted.map(\.status) == [200])
        #expect(trusted.first?.text == "GET hello tls, 0 bytes, agent -\n")
        let plain = try Self.call(world, [Self.request("http://tls-server:443/hello")])
        #expect(plain.map(\.status) == [400])
        #expect(plain.first?.text == "The plain HTTP request was sent to HTTPS port\n")
        #expect(throws: NodeHTTPServerError.self) {
            try NodeHTTPServer.TLS(certificateChainPEM: Array("no PEM".utf8), privateKeyPEM: try pem("tls/server.key"))
        }
        #expect(throws: NodeHTTPServerError.self) {
            try NodeHTTPServer.TLS(certificateChainPEM: try pem("tls/server.pem"), privateKeyPEM: Array("no key".utf8))
        }
    }

    @Test func headersCompareNamesWithoutCase() {
        var headers: NodeHTTPHeaders = ["Accept": "text/plain", "X-Tag": "a"]
        headers.add(name: "x-tag", value: "b")
        #expect(headers["ACCEPT"] == "text/plain")
        #expect(headers.values(of: "X-TAG") == ["a", "b"])
        headers.replaceOrAdd(name: "X-Tag", value: "c")
        #expect(headers.map(\.value) == ["text/plain", "c"])
        #expect(headers["missing"] == nil)
    }
}
