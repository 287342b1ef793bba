import Foundation
import NodeHTTP
import Synchronization
import TestSupport
import Testing
import WorkbenchKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// NodeURLSession in a simulated world: requests in URLSession's shape to the echo and SCPms actors over the simulated
/// network, on virtual time, through the ``HTTPDataLoading`` protocol an app's own code is written against.
@Suite struct NodeURLSessionTests {
    static let scpmsConnections = "/odata/applications/latest/com.workbench.demo/Connections"

    /// A loader on the phone, typed as what the app's code sees.
    static func loader(
        _ world: Simulation, trust: NodeURLSession.Trust = .systemRoots, delegate: (any NodeURLSessionDelegate)? = nil,
        maxResponseBytes: Int = NodeURLSession.defaultMaxResponseBytes
    ) throws -> any HTTPDataLoading {
        try NodeURLSession(node: world.node("phone"), trust: trust, delegate: delegate, maxResponseBytes: maxResponseBytes)
    }

    static func request(_ url: String, method: String = "GET", body: String? = nil, timeout: TimeInterval = 60) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        return request
    }

    @Test func postsToTheEchoActorAndReadsItsAnswer() throws {
        var digests: [String] = []
        for _ in 1...2 {
            let world = Simulation(seed: 11)
            try world.start("echo")
            try world.apply(.link(from: "phone", to: "echo", latency: .fixed(.milliseconds(40))))
            let loader = try Self.loader(world)
            var request = Self.request("http://echo/upload?x=1%202", method: "POST", body: "hello")
            request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
            let (data, response) = try world.perform("post to echo") { [request] in try await loader.data(for: request) }
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(http.url == request.url)
            #expect(http.value(forHTTPHeaderField: "content-type") == "text/plain; charset=utf-8")
            #expect(String(decoding: data, as: UTF8.self) == "POST /upload 5 bytes\n")
            // At least the request's way there and the answer's way back, 40 ms each.
            #expect(world.now >= .milliseconds(80))
            let received = world.events.filter { $0.actor == "echo" && $0.name == "http-request" }
            #expect(received.count == 1)
            #expect(received.first?["bytes"] == "5")
            #expect(received.first?["path"] == "/upload")
            world.finish()
            #expect(world.failures.isEmpty, "\(world.failures)")
            digests.append(world.digest)
        }
        #expect(digests[0] == digests[1], "the same seed gives the same trace")
    }

    /// Any status is an answer, as with URLSession: a 503 the actor's fault point makes is returned, not thrown.
    @Test func aServerErrorIsAnAnswer() throws {
        let world = Simulation(seed: 12)
        try world.start("echo")
        try world.apply(.fault("echo.unavailable", .once))
        let loader = try Self.loader(world)
        let statuses = try world.perform("two gets") {
            var statuses: [Int] = []
            for _ in 1...2 {
                let (_, response) = try await loader.data(for: Self.request("http://echo/"))
                statuses.append((response as? HTTPURLResponse)?.statusCode ?? 0)
            }
            return statuses
        }
        #expect(statuses == [503, 200])
    }

    /// Registers with SCPms over HTTPS, trusting the test CA, with the credentials sent up front (as the SCPms app does).
    @Test func registersWithSCPmsOverHTTPS() throws {
        let world = Simulation(seed: 13)
        let scpms = try world.start("scpms")
        #expect(scpms.urls["application"]?.hasPrefix("https://demo:password@scpms:443/") == true)
        let ca = try Array(Data(contentsOf: URL(fileURLWithPath: Repository.fixture("tls/ca.pem"))))
        let loader = try Self.loader(world, trust: .caPEM(ca))
        var request = Self.request("https://scpms" + Self.scpmsConnections, method: "POST", body: #"{"DeviceType":"Android"}"#)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Basic " + Data("demo:password".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        let (data, response) = try world.perform("register") { [request] in try await loader.data(for: request) }
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 201)
        let registered = try #require(world.events.first { $0.actor == "scpms" && $0.name == "registered" })
        let id = try #require(registered["id"])
        #expect(registered["device-type"] == "Android")
        #expect(http.value(forHTTPHeaderField: "Location") == "https://scpms:443\(Self.scpmsConnections)('\(id)')")
        #expect(String(decoding: data, as: UTF8.self).contains(#""ApplicationConnectionId":"\#(id)""#))

        // The system's roots do not include the test CA: the handshake fails, as URLSession's would.
        let untrusting = try Self.loader(world)
        let refused = try world.perform("register, trusting the system") { [request] () -> URLError? in
            do {
                _ = try await untrusting.data(for: request)
                return nil
            } catch let error as URLError {
                return error
            }
        }
        #expect(refused?.code == .secureConnectionFailed)
    }

    @Test func aCAThatIsNoPEMIsRefusedWhenTheSessionIsMade() throws {
        let world = Simulation(seed: 14)
        #expect(throws: NodeURLSessionError.self) { try NodeURLSession(node: world.node("phone"), trust: .caPEM(Array("no PEM".utf8))) }
    }

    /// The delegate is asked once per request about a Basic challenge, with URLSession's challenge; what it answers
    /// decides, as in URLSession.
    @Test func answersABasicChallengeThroughTheDelegate() throws {
        let world = Simulation(seed: 15)
        try world.start("scpms")
        let request = Self.request("http://scpms" + Self.scpmsConnections, method: "POST")
        let cases: [(Challenged.Answer?, Int?, Int, Int)] = [  // answer, status (nil: thrown), challenges asked, registrations
            (nil, 401, 0, 0),
            (.credential(user: "demo", password: "password"), 201, 1, 1),
            (.credential(user: "demo", password: "wrong"), 401, 1, 1),
            (.disposition(.performDefaultHandling), 401, 1, 1),
            (.disposition(.rejectProtectionSpace), 401, 1, 1),
            (.disposition(.cancelAuthenticationChallenge), nil, 1, 1),
        ]
        for (answer, status, asked, registrations) in cases {
            let delegate = answer.map(Challenged.init)
            let loader = try Self.loader(world, delegate: delegate)
            let outcome = try world.perform("register") { () -> Result<Int, URLError> in
                do {
                    let (_, response) = try await loader.data(for: request)
                    return .success((response as? HTTPURLResponse)?.statusCode ?? 0)
                } catch let error as URLError {
                    return .failure(error)
                }
            }
            let label = "\(answer.map { "\($0)" } ?? "no delegate")"
            if let status {
                #expect((try? outcome.get()) == status, "\(label)")
            } else {
                #expect(throws: URLError.self, "\(label)") { try outcome.get() }
                if case .failure(let error) = outcome { #expect(error.code == .cancelled, "\(label)") }
            }
            #expect(delegate?.challenges.count ?? 0 == asked, "\(label)")
            #expect(world.events.filter { $0.actor == "scpms" && $0.name == "registered" }.count == registrations, "\(label)")
            if let challenge = delegate?.challenges.first {
                #expect(challenge.host == "scpms" && challenge.port == 80 && challenge.protocol == "http")
                #expect(challenge.realm == "SAP Mobile Services")
                #expect(challenge.method == NSURLAuthenticationMethodHTTPBasic)
                #expect(challenge.previousFailureCount == 0 && challenge.failureStatus == 401)
            }
        }
    }

    /// A partition cuts the phone from echo: the request ends at its `timeoutInterval`, on virtual time.
    @Test func timesOutUnderAPartition() throws {
        let world = Simulation(seed: 16)
        try world.start("echo")
        try world.apply(.partition("phone", "echo"))
        let loader = try Self.loader(world)
        let outcome = try world.perform("get through a partition") { () -> URLError? in
            do {
                _ = try await loader.data(for: Self.request("http://echo/", timeout: 5))
                return nil
            } catch let error as URLError {
                return error
            }
        }
        #expect(outcome?.code == .timedOut, "\(String(describing: outcome))")
        #expect(world.now >= .seconds(5) && world.now < .seconds(6), "\(world.now)")
        #expect(outcome?.failingURL?.absoluteString == "http://echo/")
    }

    /// An answer that comes later than `timeoutInterval` (echo's `?delay=`) times out too; a shorter delay does not.
    @Test func timesOutOnASlowAnswer() throws {
        let world = Simulation(seed: 17)
        try world.start("echo")
        let loader = try Self.loader(world)
        let codes = try world.perform("slow gets") { () -> [String] in
            var codes: [String] = []
            for delay in ["2s", "8s"] {
                do {
                    let (_, response) = try await loader.data(for: Self.request("http://echo/x?delay=\(delay)", timeout: 5))
                    codes.append("\((response as? HTTPURLResponse)?.statusCode ?? 0)")
                } catch let error as URLError {
                    codes.append("\(error.code.rawValue)")
                }
            }
            return codes
        }
        #expect(codes == ["200", "\(URLError.Code.timedOut.rawValue)"])
        #expect(world.now >= .seconds(7) && world.now < .seconds(8), "2 s answered, then 5 s waited: \(world.now)")
    }

    /// What cannot be sent is a thrown `URLError` that says why, before anything goes out.
    @Test func refusesRequestsItCannotSend() throws {
        let world = Simulation(seed: 18)
        let loader = try Self.loader(world)
        var noURL = URLRequest(url: URL(string: "http://echo/")!)
        noURL.url = nil
        var stream = Self.request("http://echo/x", method: "POST")
        stream.httpBodyStream = InputStream(data: Data("body".utf8))
        let cases: [(URLRequest, URLError.Code, String)] = [
            (noURL, .badURL, "no URL"),
            (Self.request("ftp://echo/file"), .unsupportedURL, "the scheme 'ftp' is not supported"),
            (Self.request("mailto:someone@example.com"), .unsupportedURL, "the scheme 'mailto' is not supported"),
            (Self.request("http:/no-host"), .badURL, "no host"),
            (Self.request("http://echo:70000/"), .badURL, "port 70000 is outside"),
            (stream, .unsupportedURL, "a body stream is not supported"),
        ]
        for (request, code, text) in cases {
            let error = try world.perform("send") { () -> URLError? in
                do {
                    _ = try await loader.data(for: request)
                    return nil
                } catch let error as URLError {
                    return error
                }
            }
            #expect(error?.code == code, "\(request)")
            #expect(error?.localizedDescription.contains(text) == true, "\(String(describing: error?.localizedDescription))")
        }
        #expect(!world.events.contains { $0.actor == "net" && $0.name == "connect" }, "nothing was sent")
    }

    @Test func aClosedPortAndAnOversizedBodyAreURLErrors() throws {
        let world = Simulation(seed: 19)
        try world.start("echo")
        let small = try Self.loader(world, maxResponseBytes: 4)
        let codes = try world.perform("gets") { () -> [URLError.Code?] in
            var codes: [URLError.Code?] = []
            for url in ["http://echo:81/", "http://echo/"] {
                do {
                    _ = try await small.data(for: Self.request(url))
                    codes.append(nil)
                } catch let error as URLError {
                    codes.append(error.code)
                }
            }
            return codes
        }
        #expect(codes == [.cannotConnectToHost, .dataLengthExceedsMaximum])
    }
}

/// A delegate that answers every challenge alike and keeps what it was asked.
final class Challenged: NodeURLSessionDelegate {
    enum Answer: Sendable, CustomStringConvertible {
        case credential(user: String, password: String)
        case disposition(URLSession.AuthChallengeDisposition)

        var description: String {
            switch self {
            case .credential(let user, let password): "credential \(user):\(password)"
            case .disposition(let disposition): "disposition \(disposition.rawValue)"
            }
        }
    }

    /// What a challenge said, kept as values.
    struct Seen: Sendable {
        let host: String
        let port: Int
        let `protocol`: String?
        let realm: String?
        let method: String
        let previousFailureCount: Int
        let failureStatus: Int?
    }

    let answer: Answer
    private let seen = Mutex<[Seen]>([])
    var challenges: [Seen] { seen.withLock { $0 } }

    init(_ answer: Answer) { self.answer = answer }

    func urlSession(
        _ session: NodeURLSession, didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let space = challenge.protectionSpace
        let entry = Seen(
            host: space.host, port: space.port, protocol: space.protocol, realm: space.realm, method: space.authenticationMethod,
            previousFailureCount: challenge.previousFailureCount, failureStatus: (challenge.failureResponse as? HTTPURLResponse)?.statusCode)
        seen.withLock { $0.append(entry) }
        switch answer {
        case .credential(let user, let password): return (.useCredential, URLCredential(user: user, password: password, persistence: .forSession))
        case .disposition(let disposition): return (disposition, nil)
        }
    }
}
