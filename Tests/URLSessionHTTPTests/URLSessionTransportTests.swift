import Foundation
import NIOCore
import SCPmsServer
import Synchronization
import TestSupport
import Testing
import URLSessionHTTP
import Wire
import WireHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transports side by side against the SCPms registration actor's Basic challenge on loopback, and the
/// behaviours of libcurl-backed URLSession the transport is built around (docs/urlsession.md).
@Suite(.serialized) struct URLSessionTransportTests {
    struct Served {
        let trace = LiveTrace()
        let wire: LiveWire
        let server: SCPmsServer
        let origin: HTTPOrigin

        init() async throws {
            wire = LiveWire(seed: 1, threads: 1, tracer: trace)
            server = try await SCPmsServer.start(on: wire.node("scpms"), configuration: SCPmsServer.Configuration(port: 0))
            let port = try #require(server.httpBaseURL?.split(separator: ":").last.flatMap { Int($0) })
            origin = HTTPOrigin(usesTLS: false, host: "127.0.0.1", port: port)
        }

        var transports: [any HTTPTransport] {
            [NIOHTTPTransport(node: wire.node("phone"), origin: origin, tls: nil), URLSessionTransport(origin: origin)]
        }

        func stop() async throws {
            try await server.stop()
            try await wire.shutdown()
        }
    }

    /// Counts the times it was asked.
    final class Answers: Sendable {
        private let count = Mutex(0)
        let credentials: BasicCredentials?
        init(_ credentials: BasicCredentials?) { self.credentials = credentials }
        var asked: Int { count.withLock { $0 } }
        var answer: BasicChallengeAnswer {
            { [self] in
                count.withLock { $0 += 1 }
                return credentials
            }
        }
    }

    static let app = HTTPRequest(method: .GET, target: "/com.workbench.demo")

    /// Unanswered, declined, refused again or accepted: each transport hands back the same final answer, body
    /// included (URLSession's delegate collects it: the 401's body arrives before the challenge, and a cancelled
    /// challenge ends the task as cancelled).
    @Test func bothTransportsHandBackTheSameAnswers() async throws {
        let served = try await Served()
        let cases: [(BasicCredentials?, Bool, UInt, String)] = [
            (nil, false, 401, "authentication required: send Authorization: Basic with your user and password"),
            (nil, true, 401, "authentication required: send Authorization: Basic with your user and password"),
            (BasicCredentials(user: "demo", password: "wrong"), true, 401, "the user or password is wrong"),
            (BasicCredentials(user: "demo", password: "password"), true, 403, "no X-SMP-APPCID header or cookie; register the device first"),
        ]
        for (credentials, answering, status, text) in cases {
            var seen: [String] = []
            for transport in served.transports {
                let answers = Answers(credentials)
                let response = try await withDeadline(liveStepLimit, "GET the application") {
                    try await transport.send(Self.app, answering: answering ? answers.answer : nil)
                }
                #expect(response.status.code == status, "\(type(of: transport))")
                #expect(answers.asked == (answering ? 1 : 0), "\(type(of: transport)) asked once per request, or not at all")
                if status == 401 { #expect(response.headers.first(name: "WWW-Authenticate") == #"Basic realm="SAP Mobile Services""#) }
                seen.append("\(response.status.code) \(response.text)")
            }
            #expect(seen.count == 2 && seen[0] == seen[1], "\(seen)")
            #expect(seen.first?.contains(text) == true, "\(seen)")
        }
        try await served.stop()
    }

    /// Apple's URLSession sends a `.forSession` credential up front to the protection space once it was accepted;
    /// libcurl-backed URLSession does not: every request is challenged again. (The SCPms client therefore keeps its
    /// own up-front credentials on either stack.)
    @Test func forSessionCredentialsAreNotSentUpFront() async throws {
        let served = try await Served()
        let transport = URLSessionTransport(origin: served.origin)
        let answers = Answers(BasicCredentials(user: "demo", password: "password"))
        for _ in 0..<2 {
            let response = try await withDeadline(liveStepLimit, "GET the application") {
                try await transport.send(Self.app, answering: answers.answer)
            }
            #expect(response.status == .forbidden)
        }
        #expect(answers.asked == 2)
        #expect(served.trace.requests(to: "scpms").count == 4, "each request was challenged before its credentials went")
        try await served.stop()
    }

    /// `.performDefaultHandling` with no stored credential (what the original app answers after two failures) leaves
    /// the task waiting for ever on Linux, neither answered nor failed; hence the transport's delegate cancels.
    @Test func performDefaultHandlingWithoutACredentialNeverEnds() async throws {
        let served = try await Served()
        let delegate = DefaultHandlingDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        let task = session.dataTask(with: URL(string: "\(served.origin.text)/com.workbench.demo")!)
        task.resume()
        #expect(delegate.ended(within: .seconds(2)) == nil, "no end within 2 s")
        #expect(delegate.challenges == 1)
        task.cancel()
        #expect(delegate.ended(within: liveStepLimit) == NSURLErrorCancelled)
        session.finishTasksAndInvalidate()
        try await served.stop()
    }
}

/// Answers every challenge with `.performDefaultHandling`; tells how the task ended.
final class DefaultHandlingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let state = Mutex<(challenges: Int, ended: Int?)>((0, nil))
    private let end = DispatchSemaphore(value: 0)

    var challenges: Int { state.withLock { $0.challenges } }

    /// The task's error code (0 for none) once it ended, or nil if it did not within `limit`.
    func ended(within limit: Duration) -> Int? {
        guard end.wait(timeout: .now() + .seconds(Int(limit.components.seconds))) == .success else { return nil }
        return state.withLock { $0.ended }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        state.withLock { $0.challenges += 1 }
        completionHandler(.performDefaultHandling, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock { $0.ended = (error as NSError?)?.code ?? 0 }
        end.signal()
    }
}
