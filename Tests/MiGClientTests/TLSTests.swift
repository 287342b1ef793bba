import Foundation
import IPP
import Kernel
import MiGClient
import NIOCore
import NIOSSL
import Testing
import Wire
import WireHTTP

/// IPPS on the simulated wire with the test certificates: trust, client certificates from PKCS#12, and the
/// typed errors for each way it goes wrong.
@Suite struct TLSTests {
    static let p12 = RepositoryPaths.tls("client.p12")

    /// A TLS server on mig:8050 presenting `server.pem`; with `requireClientCertificate` it demands one signed by the test CA.
    static func startServer(
        _ world: SimulatedWorld, requireClientCertificate: Bool = false,
        maximumVersion: TLSVersion = .tlsv13
    ) throws -> Recorder {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(RepositoryPaths.tls("server.pem")).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: RepositoryPaths.tls("server.key"), format: .pem)))
        configuration.maximumTLSVersion = maximumVersion
        if requireClientCertificate {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(RepositoryPaths.tls("ca.pem")))
        }
        let context = try NIOSSLContext(configuration: configuration)
        return try world.startIPPServer(
            setup: { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
            },
            answer: { request in
                request.path == "/" ? .text(.ok, "MIG hello") : IPPAnswer.jobCreated(request, id: 11)
            })
    }

    static let url = "https://demo:secret@mig:8050/ipp/print"
    static let caTrust = MiGClient.ServerTrust.caFile(RepositoryPaths.tls("ca.pem"))

    @Test func printsOverTLSTrustingTheTestCA() throws {
        let world = SimulatedWorld()
        let recorder = try Self.startServer(world)
        let client = try world.client(url: Self.url, trust: Self.caTrust)
        #expect(client.securityWarnings.isEmpty)
        #expect(try world.run { await client.isAlive() } == .alive)
        let job = try world.run { try await client.print(try .generated(byteCount: 700_000)) }
        #expect(job.id == 11)
        #expect(recorder.requests.last?.document.count == 700_000)
        #expect(recorder.requests.last?.ipp?.printerURI == "ipps://mig:8050/ipp/print")
        #expect(world.kernel.loop.violations.isEmpty)
    }

    @Test func anUntrustedServerIsNamed() throws {
        let world = SimulatedWorld()
        _ = try Self.startServer(world)
        // Trusting another CA (the server certificate itself is not a CA) must fail verification.
        let client = try world.client(
            url: Self.url, trust: .caPEM(Array(try String(contentsOfFile: RepositoryPaths.tls("client.pem"), encoding: .utf8).utf8)))
        let error = try world.run { await expectMiGError { try await client.print(.bytes([1])) } }
        guard case .tlsUntrustedServer = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func aHostNameOutsideTheCertificateIsUntrusted() throws {
        let world = SimulatedWorld()
        _ = try Self.startServer(world)
        var configuration = try MiGClient.Configuration(url: Self.url, trust: Self.caTrust)
        configuration.serverName = "elsewhere.example"
        let client = try MiGClient(configuration: configuration, node: world.phone)
        let error = try world.run { await expectMiGError { try await client.print(.bytes([1])) } }
        guard case .tlsUntrustedServer = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func acceptAnyCertificateIsAllowedButLoud() throws {
        let world = SimulatedWorld()
        _ = try Self.startServer(world)
        let client = try world.client(url: Self.url, trust: .acceptAnyCertificate)
        #expect(client.securityWarnings.count == 1)
        #expect(try world.run { try await client.print(.bytes([1, 2, 3])) }.id == 11)
    }

    @Test func theClientCertificateFromPKCS12IsAccepted() throws {
        let world = SimulatedWorld()
        _ = try Self.startServer(world, requireClientCertificate: true)
        let client = try world.client(url: Self.url, trust: Self.caTrust, identity: .pkcs12(file: Self.p12, password: "workbench"))
        #expect(try world.run { try await client.print(.bytes([1, 2, 3])) }.id == 11)
    }

    @Test func aMissingClientCertificateIsRejectedByATLS12Server() throws {
        // TLS 1.2: the server checks the certificate before its Finished, so its alert reaches the client in the handshake.
        let world = SimulatedWorld()
        _ = try Self.startServer(world, requireClientCertificate: true, maximumVersion: .tlsv12)
        let client = try world.client(url: Self.url, trust: Self.caTrust)
        let error = try world.run { await expectMiGError { try await client.print(.bytes([1])) } }
        guard case .tlsClientCertificateRejected = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func aMissingClientCertificateNeverPrintsOverTLS13() throws {
        // TLS 1.3: the client's handshake ends before the server has seen its (missing) certificate, the request
        // follows at once, and the server's alert races the reset its close causes; either way nothing prints.
        let world = SimulatedWorld()
        let recorder = try Self.startServer(world, requireClientCertificate: true)
        let client = try world.client(url: Self.url, retry: .none, trust: Self.caTrust)
        let error = try world.run { await expectMiGError { try await client.print(.bytes([1])) } }
        switch error {
        case .tlsClientCertificateRejected, .connectionDropped: break
        default: Issue.record("got \(String(describing: error))")
        }
        #expect(recorder.requests.isEmpty)
    }

    /// The derived credential an app vaulted with the Ivanti client, held in memory as DER (issued by the test CA).
    static func derived(_ part: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: RepositoryPaths.tls("../ivanti/tls-client.\(part).der"))))
    }

    @Test func aDERIdentityHeldInMemoryIsPresented() throws {
        let world = SimulatedWorld()
        _ = try Self.startServer(world, requireClientCertificate: true)
        let identity = MiGClient.ClientIdentity.der(
            certificateChain: [try Self.derived("cert")], privateKey: try Self.derived("key"), source: "derived credential")
        let client = try world.client(url: Self.url, trust: Self.caTrust, identity: identity)
        #expect(try world.run { try await client.print(.bytes([1, 2, 3])) }.id == 11)
    }

    @Test func aDERIdentityWhoseKeyIsNotItsCertificatesIsRefusedUpFront() throws {
        let world = SimulatedWorld()
        let otherKey = Array(try Data(contentsOf: URL(fileURLWithPath: RepositoryPaths.tls("../ivanti/encryption.key.der"))))
        for (chain, key, what) in [
            ([try Self.derived("cert")], otherKey, "not the certificate's"),
            ([[0x30, 0x01]], try Self.derived("key"), "not DER X.509"),
            ([], try Self.derived("key"), "no certificate"),
        ] {
            do {
                _ = try world.client(url: Self.url, identity: .der(certificateChain: chain, privateKey: key, source: "credential 7"))
                Issue.record("accepted an identity whose problem is: \(what)")
            } catch let error as MiGError {
                guard case .clientCertificate("credential 7", .unusable(let reason)) = error, reason.contains(what) else {
                    Issue.record("got \(error), expected one saying \(what)")
                    continue
                }
            }
        }
    }

    @Test func aWrongPKCS12PasswordNamesTheFile() throws {
        let world = SimulatedWorld()
        #expect(throws: MiGError.clientCertificate(file: Self.p12, problem: .wrongPassword)) {
            _ = try world.client(url: Self.url, identity: .pkcs12(file: Self.p12, password: "not-the-password"))
        }
        #expect(throws: MiGError.clientCertificate(file: "/nonexistent/client.p12", problem: .unreadable("no such file"))) {
            _ = try world.client(url: Self.url, identity: .pkcs12(file: "/nonexistent/client.p12", password: "workbench"))
        }
        do {
            _ = try world.client(url: Self.url, identity: .pkcs12(file: RepositoryPaths.tls("ca.pem"), password: "workbench"))
            Issue.record("a PEM file was accepted as PKCS#12")
        } catch let error as MiGError {
            guard case .clientCertificate(_, .invalid) = error else {
                Issue.record("got \(error)")
                return
            }
        } catch {
            Issue.record("got \(error)")
        }
        #expect(throws: MiGError.self) {
            _ = try world.client(url: "ipp://mig:631/ipp/print", identity: .pkcs12(file: Self.p12, password: "workbench"))
        }
    }
}
