import Foundation
import IPP
import Kernel
import MiGClient
import MiGServer
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import TLSProxy
import TestSupport
import Testing
import Wire
import WireHTTP

/// The original deployment's client-certificate set-up: a TLS proxy verifying client certificates in front of MiG, whose
/// account requires the forwarded certificate. On the simulated wire (our proxy) and live (a real nginx).
@Suite struct TLSProxyTests {
    static let tls = MiGInteropTests.fixtures + "/tls"
    static let secure = BasicCredentials(user: "secure", password: "secure-password").headerValue
    static let proxySecret = "secret-of-this-deployment-0123456789"

    /// Live MiG for a proxy in front of it: plain IPP on a free port only, sharing `proxySecret`, with the `secure`
    /// account that requires a forwarded client certificate.
    static func liveConfiguration() -> MiGServer.Configuration {
        var configuration = MiGServer.Configuration()
        configuration.tlsPort = nil
        configuration.plainPort = 0
        configuration.clientCAPath = "\(tls)/ca.pem"
        configuration.proxySecret = proxySecret
        configuration.accounts = [.init(user: "secure", password: "secure-password", requiresClientCertificate: true)]
        return configuration
    }

    /// MiG (plain 631, IPPS 8050 with optional mutual TLS) behind the proxy, sharing `proxySecret`.
    static func world() throws -> (Kernel, Node) {
        let kernel = Kernel(seed: 3)
        var configuration = MiGServer.Configuration()
        configuration.certificatePath = "\(tls)/server.pem"
        configuration.privateKeyPath = "\(tls)/server.key"
        configuration.clientCAPath = "\(tls)/ca.pem"
        configuration.proxySecret = proxySecret
        configuration.accounts = [.init(user: "secure", password: "secure-password", requiresClientCertificate: true)]
        let mig = kernel.node("mig")
        let proxy = kernel.node("proxy")
        let finalConfiguration = configuration
        var proxyConfiguration = TLSProxy.Configuration(
            certificatePath: "\(tls)/server.pem", privateKeyPath: "\(tls)/server.key", clientCAPath: "\(tls)/ca.pem",
            upstreamHost: "mig", upstreamPort: 631)
        proxyConfiguration.upstreamSecret = proxySecret
        let finalProxyConfiguration = proxyConfiguration
        _ = try kernel.run("start") {
            _ = try await MiGServer.start(on: mig, configuration: finalConfiguration).get()
            return try await TLSProxy.start(on: proxy, configuration: finalProxyConfiguration).get().listener.port
        }
        return (kernel, kernel.node("phone"))
    }

    /// Plain HTTP to a TLS port — the proxy's and MiG's own IPPS port — gets nginx's answer instead of a TLS failure
    /// the client cannot read; every port serves on, TLS included (the check in front of TLS steps aside for a
    /// handshake, here on the simulated wire, which carries the same bytes as a socket).
    @Test func plainHTTPOnATLSPortIsAnsweredAsNginxDoesAndTheTLSPortsServeOn() throws {
        let (kernel, phone) = try Self.world()
        let plainHTTP = Array("POST /ipp/print HTTP/1.1\r\nHost: proxy\r\nContent-Length: 0\r\n\r\n".utf8)
        for (host, port) in [("proxy", 443), ("mig", 8050)] {
            let answer = try kernel.run("plain HTTP to \(host):\(port)") { try await RawExchange.send(plainHTTP, to: host, port: port, from: phone) }
            #expect(
                String(decoding: answer, as: UTF8.self) == "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    + "Content-Length: 46\r\nConnection: close\r\n\r\nThe plain HTTP request was sent to HTTPS port\n", "\(host):\(port)")
        }
        #expect(kernel.trace.all.filter { $0.event == "http-bad-request" }.map(\.actor) == ["proxy", "mig"])
        #expect(try Self.send(kernel, phone, withCertificate: true).status == .ok)
        #expect(try Self.send(kernel, phone, withCertificate: true, host: "mig", port: 8050).status == .ok)
    }

    /// A POST of Get-Printer-Attributes as `secure` straight to MiG's plain port, with extra headers.
    static func direct(_ kernel: Kernel, _ phone: Node, _ headers: HTTPHeaders) throws -> HTTPResponse {
        var all: HTTPHeaders = ["Authorization": secure, "Content-Type": "application/ipp"]
        all.add(contentsOf: headers)
        let request = HTTPRequest(method: .POST, target: "/ipp/print", headers: all, body: try getPrinterAttributes())
        return try kernel.run("POST direct") { try await HTTPClient.send(request, host: "mig", port: 631, on: phone) }
    }

    static func pem(_ file: String) throws -> String {
        try String(contentsOfFile: "\(tls)/\(file)", encoding: .utf8).replacingOccurrences(of: "\n", with: " ")
    }

    static func getPrinterAttributes() throws -> ByteBuffer {
        ByteBuffer(
            bytes: try IPPEncoder().encode(IPPMessage.request(.getPrinterAttributes, requestID: 1) { $0.addPrinterURI("ipps://proxy/ipp/print") }))
    }

    /// The phone's TLS: the test CA trusted, and the client certificate if asked for.
    static func clientContext(withCertificate: Bool) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile("\(tls)/ca.pem"))
        configuration.certificateVerification = .noHostnameVerification
        if withCertificate {
            configuration.certificateChain = try NIOSSLCertificate.fromPEMFile("\(tls)/client.pem").map { .certificate($0) }
            configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: "\(tls)/client.key", format: .pem))
        }
        return try NIOSSLContext(configuration: configuration)
    }

    static func send(
        _ kernel: Kernel, _ phone: Node, withCertificate: Bool, target: String = "/ipp/print",
        host: String = "proxy", port: Int = 443, headers extra: HTTPHeaders = [:]
    ) throws -> HTTPResponse {
        let context = try clientContext(withCertificate: withCertificate)
        var headers: HTTPHeaders = ["Authorization": secure, "Content-Type": "application/ipp"]
        headers.add(contentsOf: extra)
        let request = HTTPRequest(method: .POST, target: target, headers: headers, body: try getPrinterAttributes())
        return try kernel.run("POST via proxy") {
            try await HTTPClient.send(request, host: host, port: port, on: phone) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: nil))
                }
            }
        }
    }

    @Test func aVerifiedCertificateReachesMiGAndIsChecked() throws {
        let (kernel, phone) = try Self.world()
        let response = try Self.send(kernel, phone, withCertificate: true)
        #expect(response.status == .ok)
        #expect(try IPPDecoder().decode(Array(response.body.readableBytesView)).status == .successfulOK)
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test func withoutACertificateTheProxyAnswersLikeNginx() throws {
        let (kernel, phone) = try Self.world()
        let response = try Self.send(kernel, phone, withCertificate: false)
        #expect(response.status == .badRequest)
        #expect(response.text.contains("No required SSL certificate was sent"))
        #expect(try Self.send(kernel, phone, withCertificate: true, target: "/admin").status == .notFound)
    }

    @Test func migRefusesTheAccountWithoutACertificate() throws {
        let (kernel, phone) = try Self.world()
        let direct = try Self.direct(kernel, phone, [:])
        #expect(direct.status == .forbidden)
        #expect(direct.text.contains("requires a valid client certificate: no client certificate"))
    }

    @Test func aForgedForwardedCertificateIsRefusedWithoutTheProxysSecret() throws {
        let (kernel, phone) = try Self.world()
        // The real client certificate is public: typed into the header, it must prove nothing.
        let forged = try Self.direct(kernel, phone, ["SSL_CLIENT_CERT": try Self.pem("client.pem")])
        #expect(forged.status == .forbidden)
        #expect(forged.text.contains("believed only from MiG's TLS proxy"))
        let guessed = try Self.direct(
            kernel, phone, ["SSL_CLIENT_CERT": try Self.pem("client.pem"), "X-MiG-Proxy-Secret": "a-guess-of-the-secret-0000"])
        #expect(guessed.status == .forbidden)
        #expect(guessed.text.contains("believed only from MiG's TLS proxy"))
        // Through the proxy, a client's own copies of both headers are replaced by the proxy's.
        #expect(try Self.send(kernel, phone, withCertificate: false).status == .badRequest)
    }

    @Test func withTheSecretTheForwardedCertificateIsStillChecked() throws {
        let (kernel, phone) = try Self.world()
        // The server certificate is signed by the same CA, but not for client authentication.
        let server = try Self.direct(kernel, phone, ["SSL_CLIENT_CERT": try Self.pem("server.pem"), "X-MiG-Proxy-Secret": Self.proxySecret])
        #expect(server.status == .forbidden)
        #expect(server.text.contains("not issued for client authentication"))
        let garbage = try Self.direct(kernel, phone, ["SSL_CLIENT_CERT": "not a certificate", "X-MiG-Proxy-Secret": Self.proxySecret])
        #expect(garbage.status == .forbidden)
        #expect(garbage.text.contains("not a PEM X.509 certificate"))
        let client = try Self.direct(kernel, phone, ["SSL_CLIENT_CERT": try Self.pem("client.pem"), "X-MiG-Proxy-Secret": Self.proxySecret])
        #expect(client.status == .ok)
    }

    @Test func mutualTLSOnMiGsOwnIPPSPortNeedsNoProxy() throws {
        let (kernel, phone) = try Self.world()
        let with = try Self.send(kernel, phone, withCertificate: true, host: "mig", port: 8050)
        #expect(with.status == .ok)
        #expect(try IPPDecoder().decode(Array(with.body.readableBytesView)).status == .successfulOK)
        let without = try Self.send(kernel, phone, withCertificate: false, host: "mig", port: 8050)
        #expect(without.status == .forbidden)
        #expect(without.text.contains("no client certificate"))
        // The forged header on the IPPS listener: the handshake had no certificate, and the header proves nothing.
        let forged = try Self.send(
            kernel, phone, withCertificate: false, host: "mig", port: 8050,
            headers: ["SSL_CLIENT_CERT": try Self.pem("client.pem")])
        #expect(forged.status == .forbidden)
        #expect(forged.text.contains("believed only from MiG's TLS proxy"))
        #expect(kernel.loop.violations.isEmpty)
    }
}

/// A real nginx with the original deployment's configuration in front of a live MiG; curl and the MiG client, each with and
/// without a client certificate.
@Suite(.serialized) struct NginxInteropTests {
    /// Live, the proxy's connections run on every loop and each relays on its own loop: eight clients at once through
    /// a two-loop wire are all answered, and the proxy read their requests on both loops.
    @Test func liveTheProxysConnectionsRunOnEveryLoop() async throws {
        let sink = LoopRecordingSink()
        let wire = LiveWire(threads: 2, tracer: sink)
        let mig = try await MiGServer.start(on: wire.node("mig"), configuration: TLSProxyTests.liveConfiguration()).get()
        let upstream = try #require(mig.endpoints.first?.url.split(separator: ":").last?.split(separator: "/").first.flatMap { Int($0) })
        var proxyConfiguration = TLSProxy.Configuration(
            certificatePath: "\(TLSProxyTests.tls)/server.pem", privateKeyPath: "\(TLSProxyTests.tls)/server.key",
            clientCAPath: "\(TLSProxyTests.tls)/ca.pem",
            upstreamHost: "mig", upstreamPort: upstream)
        proxyConfiguration.port = 0
        proxyConfiguration.upstreamSecret = TLSProxyTests.proxySecret
        let proxy = try await TLSProxy.start(on: wire.node("proxy"), configuration: proxyConfiguration).get()
        let context = try TLSProxyTests.clientContext(withCertificate: true)
        let request = HTTPRequest(
            method: .POST, target: "/ipp/print", headers: ["Authorization": TLSProxyTests.secure, "Content-Type": "application/ipp"],
            body: try TLSProxyTests.getPrinterAttributes())
        let phone = wire.node("phone")
        let statuses = try await withThrowingTaskGroup(of: HTTPResponseStatus.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await HTTPClient.send(request, host: "proxy", port: proxy.listener.port, on: phone) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: nil))
                        }
                    }.status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: HTTPResponseStatus.ok, count: 8))
        #expect(sink.loops(actor: "proxy", event: "proxy-request") == 2, "the proxy read requests on one loop only")
        try await proxy.stop().get()
        try await wire.shutdown()
    }

    /// Runs a program under the shared watchdog; returns its exit status and everything it printed.
    static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        let result = try ExternalProcess.run(executable, arguments)
        return (result.status, result.output)
    }

    @Test func curlAndTheClientThroughNginxNeedTheClientCertificate() async throws {
        let tls = TLSProxyTests.tls
        let state = NSTemporaryDirectory() + "mig-nginx-\(getpid())"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let wire = LiveWire()
        let mig = try await MiGServer.start(on: wire.node("mig"), configuration: TLSProxyTests.liveConfiguration()).get()
        let upstream = try #require(mig.endpoints.first?.url.split(separator: "@").last?.split(separator: "/").first)
        let port = try Ports.free()
        let conf = """
            daemon off;
            pid \(state)/nginx.pid;
            error_log \(state)/error.log;
            events {}
            http {
              access_log off;
              client_body_temp_path \(state)/body;
              proxy_temp_path \(state)/proxy;
              server {
                listen 127.0.0.1:\(port) ssl;
                ssl_certificate \(tls)/server.pem;
                ssl_certificate_key \(tls)/server.key;
                location ^~ /ipp/print {
                  proxy_set_header SSL_CLIENT_CERT $ssl_client_cert;
                  proxy_set_header X-MiG-Proxy-Secret "\(TLSProxyTests.proxySecret)";
                  proxy_pass http://\(upstream);
                }
                ssl_client_certificate \(tls)/ca.pem;
                ssl_verify_client on;
              }
            }
            """
        try conf.write(toFile: "\(state)/nginx.conf", atomically: true, encoding: .utf8)
        let nginx = try ServedProcess.start(
            "/usr/sbin/nginx", ["-c", "\(state)/nginx.conf", "-e", "\(state)/error.log"],
            until: .acceptsConnections(port: port), readyWithin: 30)
        defer { nginx.stop() }
        let request = "\(state)/request.ipp"
        try Data(try TLSProxyTests.getPrinterAttributes().readableBytesView).write(to: URL(fileURLWithPath: request))
        let common = [
            "-sS", "-o", "\(state)/answer", "-w", "%{http_code}", "--cacert", "\(tls)/ca.pem", "-u", "secure:secure-password",
            "-H", "Content-Type: application/ipp", "--data-binary", "@\(request)", "https://localhost:\(port)/ipp/print",
        ]
        let with = try Self.run("/usr/bin/curl", ["--cert", "\(tls)/client.pem", "--key", "\(tls)/client.key"] + common)
        #expect(with.1 == "200")
        let answer = try Data(contentsOf: URL(fileURLWithPath: "\(state)/answer"))
        #expect(try IPPDecoder().decode(Array(answer)).status == .successfulOK)
        let without = try Self.run("/usr/bin/curl", common)
        #expect(without.1 == "400")
        // A forger with the public certificate in a header: nginx wants the key in the handshake; MiG's own port
        // wants the proxy's secret.
        let forgedHeader = ["-H", "SSL_CLIENT_CERT: \(try TLSProxyTests.pem("client.pem"))"]
        #expect(try Self.run("/usr/bin/curl", forgedHeader + common).1 == "400")
        let straight = try Self.run(
            "/usr/bin/curl",
            [
                "-sS", "-o", "\(state)/straight", "-w", "%{http_code}", "-u", "secure:secure-password",
                "-H", "Content-Type: application/ipp", "--data-binary", "@\(request)",
            ]
                + forgedHeader + ["http://\(upstream)/ipp/print"])
        #expect(straight.1 == "403")
        #expect(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: "\(state)/straight")), as: UTF8.self).contains(
                "believed only from MiG's TLS proxy"))

        // The shipped client, with the original app's password-protected PKCS#12, through the same nginx.
        let phone = wire.node("phone")
        let url = "https://localhost:\(port)/ipp/print"
        let withP12 = try MiGClient(
            configuration: try .init(
                url: url, user: "secure", password: "secure-password", trust: .caFile("\(tls)/ca.pem"),
                clientIdentity: .pkcs12(file: "\(tls)/client.p12", password: "workbench")), node: phone)
        let job = try await withP12.print(.bytes(TestDocuments.pdf(pages: 1), name: "via-nginx.pdf", format: "application/pdf"))
        #expect(job.status == .successfulOK)
        let noP12 = try MiGClient(
            configuration: try .init(
                url: url, user: "secure", password: "secure-password", trust: .caFile("\(tls)/ca.pem"),
                retry: .none), node: phone)
        await #expect(throws: MiGError.self) { _ = try await noP12.print(.bytes(TestDocuments.pdf(pages: 1))) }
        #expect(try mig.jobs().count == 1)
        try await mig.stop().get()
        try await wire.shutdown()
    }
}

/// Records which event loop each trace event was recorded on (a handler traces on its connection's loop).
final class LoopRecordingSink: TraceSink {
    private let seen = Mutex<[String: Set<ObjectIdentifier>]>([:])

    func record(actor: String, event: String, fields: [(String, String)]) {
        guard let loop = MultiThreadedEventLoopGroup.currentEventLoop else { return }
        seen.withLock { _ = $0["\(actor) \(event)", default: []].insert(ObjectIdentifier(loop)) }
    }

    /// How many loops `actor` recorded `event` on.
    func loops(actor: String, event: String) -> Int { seen.withLock { $0["\(actor) \(event)"]?.count ?? 0 } }
}
