import Foundation
import IMSSDK
import IMSSigningBackend
import IMSVerifier
import JWT
import TestSupport
import Testing
import Wire
import WireHTTP

/// The IMS SDK's signing flow through URLSession — the URL signer to the host's back end, the session and status
/// requests to IMS — against the served actors on loopback, next to the same flow through the NIO stack.
@Suite(.serialized) struct URLSessionIMSTests {
    static let apiKey = "63d9a389-4ddc-4df1-8dd1-af6a10c7226e"

    static func fixture(_ name: String) -> String {
        (try? String(contentsOfFile: Repository.fixture("ims/\(name)"), encoding: .utf8)) ?? "missing fixture \(name)"
    }

    /// The back end (HTTP, or HTTPS with the test certificate) and IMS on the live wire, user 14 enrolled at both.
    struct LiveIMS {
        let trace = LiveTrace()
        let wire: LiveWire
        let signer: HostSigningBackend
        let ims: IMSVerifier
        let phone: Node
        let appToken: String

        init(tls: Bool = false) async throws {
            wire = LiveWire(seed: 1, threads: 1, tracer: trace)
            let configuration = HostSigningBackend.Configuration(
                apiKey: URLSessionIMSTests.apiKey, privateKeyPEM: URLSessionIMSTests.fixture("host.key"),
                certificatePEM: URLSessionIMSTests.fixture("host.pem"), adminToken: "signer-admin", port: 0,
                tls: tls
                    ? .init(certificateChainPath: Repository.fixture("tls/server.pem"), privateKeyPath: Repository.fixture("tls/server.key")) : nil)
            signer = try await HostSigningBackend.start(on: wire.node("ims-signer"), configuration: configuration)
            ims = try await IMSVerifier.start(on: wire.node("ims"), configuration: IMSVerifier.Configuration(port: 0, adminToken: "ims-admin"))
            try await ims.registerCertificate(issuer: URLSessionIMSTests.apiKey, keyID: nil, pem: URLSessionIMSTests.fixture("host.pem"))
            try await ims.enrol(issuer: URLSessionIMSTests.apiKey, subject: "14")
            appToken = signer.enrol(user: "14")
            phone = wire.node("phone")
        }

        func client(_ stack: HTTPStack) throws -> IMSClient {
            let signer = try URLTokenSigner(node: phone, url: self.signer.baseURL + "sign", appAuthorization: appToken, stack: stack)
            let configuration = IMSClient.Configuration(
                apiKey: URLSessionIMSTests.apiKey, userID: "14", imsURL: ims.baseURL, retryDelay: .milliseconds(50), httpStack: stack)
            return IMSClient(node: phone, configuration: configuration, tokenSignerFactory: { signer })
        }

        func stop() async throws {
            try await signer.stop()
            try await ims.stop()
            try await wire.shutdown()
        }
    }

    /// What one run showed; jti, times and session ids differ from run to run.
    struct Observed: Equatable {
        var issuer = ""
        var subject = ""
        var lifetime: Int64 = 0
        var sessionStarted = false
        var status: UInt = 0
        var statusBodyStart = ""
        var refreshed: Bool?
        var signingRetries = 0
        var signedAfterARetry = false
        var signerDown: String?
        var requests: [String] = []
    }

    static func flow(_ stack: HTTPStack) async throws -> Observed {
        let live = try await LiveIMS()
        var observed = Observed()
        let client = try live.client(stack)
        let session = try await withDeadline(liveStepLimit, "start an IMS session") { try await client.startSession() }
        observed.issuer = session.claims.issuer
        observed.subject = session.claims.subject
        observed.lifetime = session.claims.expires - session.claims.notBefore
        observed.sessionStarted = !session.id.isEmpty
        let (status, refreshed) = try await withDeadline(liveStepLimit, "ask the status") { try await client.status() }
        observed.status = status.status.code
        observed.statusBodyStart = String(status.text.prefix(#"{"sub":"14","state":"active""#.count))
        observed.refreshed = refreshed

        // The back end down once: the SDK signs again after the retry delay.
        live.wire.faults.set(HostSigningBackend.unavailableFault, .times(1))
        let retried = try live.client(stack)
        let (token, _) = try await withDeadline(liveStepLimit, "sign after a 503") { try await retried.signedToken() }
        observed.signedAfterARetry = token.split(separator: ".").count == 3
        // Down for good: the back end's 503, in the original signer's words.
        live.wire.faults.set(HostSigningBackend.unavailableFault, .on)
        let down = try live.client(stack)
        do {
            _ = try await withDeadline(liveStepLimit, "sign while the back end is down") { try await down.signedToken() }
        } catch {
            observed.signerDown = "\(error)"
        }
        live.wire.faults.set(HostSigningBackend.unavailableFault, .off)
        observed.signingRetries = live.trace.events("phone", "signing-retry").count
        observed.requests = live.trace.requests(to: "ims-signer") + live.trace.requests(to: "ims")
        try await live.stop()
        return observed
    }

    @Test func theSigningFlowThroughURLSessionShowsWhatTheNIOStackShows() async throws {
        let nio = try await Self.flow(.nio)
        let urlsession = try await Self.flow(.urlsession)
        #expect(urlsession == nio)
        #expect(urlsession.issuer == Self.apiKey)
        #expect(urlsession.subject == "14")
        #expect(urlsession.lifetime == 900)
        #expect(urlsession.sessionStarted)
        #expect(urlsession.status == 200)
        #expect(urlsession.statusBodyStart == #"{"sub":"14","state":"active""#)
        #expect(urlsession.refreshed == false)
        #expect(urlsession.signedAfterARetry)
        #expect(urlsession.signingRetries == 1 + 2, "one before the second client signed, two before the third gave up")
        #expect(urlsession.signerDown?.hasPrefix("Bad response: 503") == true, "\(String(describing: urlsession.signerDown))")
        #expect(
            urlsession.requests == [
                "POST /sign", "POST /sign", "POST /sign", "POST /sign", "POST /sign", "POST /sign", "POST /v1/sessions", "GET /v1/drivesync/status",
            ])
    }

    /// URLSession on Linux cannot trust the test CA: a CA is refused when the signer is made, and with the system's
    /// roots the back end's certificate is refused by libcurl (the delegate is never asked about server trust).
    @Test func anHTTPSBackEndThroughURLSessionTrustsOnlyTheSystemsRoots() async throws {
        let live = try await LiveIMS(tls: true)
        let url = live.signer.baseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "sign"
        let ca = Array((try String(contentsOfFile: Repository.fixture("tls/ca.pem"), encoding: .utf8)).utf8)
        #expect {
            _ = try URLTokenSigner(node: live.phone, url: url, appAuthorization: live.appToken, trust: .caPEM(ca), stack: .urlsession)
        } throws: { error in
            (error as? TokenSigningError)?.message == "a trusted CA needs the nio stack: URLSession on Linux trusts only the system's roots"
        }
        let nio = try URLTokenSigner(node: live.phone, url: url, appAuthorization: live.appToken, trust: .caPEM(ca))
        let prototype = try live.client(.nio).makePrototype()
        let signed = try await withDeadline(liveStepLimit, "sign over NIO") { try await nio.sign(prototype.compact) }
        #expect(signed.split(separator: ".").count == 3, "the NIO stack trusts the test CA")

        let system = try URLTokenSigner(node: live.phone, url: url, appAuthorization: live.appToken, stack: .urlsession)
        let refused = await #expect(throws: TokenSigningError.self) {
            try await withDeadline(liveStepLimit, "sign over URLSession") { try await system.sign(prototype.compact) }
        }
        #expect(refused?.kind == .transport)
        #expect(
            refused?.message.contains("SSL certificate problem: unable to get local issuer certificate") == true, "\(String(describing: refused))")
        #expect(live.trace.requests(to: "ims-signer") == ["POST /sign"], "only the NIO signer's request got through")
        try await live.stop()
    }
}
