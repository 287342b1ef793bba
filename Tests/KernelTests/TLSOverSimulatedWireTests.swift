import Kernel
import NIOCore
import NIOSSL
import Testing
import Wire

#if canImport(Glibc)
    import Glibc
#endif

/// Proof (b): a TLS handshake and an exchange with swift-nio-ssl (BoringSSL) on both sides run on the simulated wire.
///
/// The server "tls-server" presents `Fixtures/tls/server.pem`; the client "phone" trusts only the test CA and
/// verifies the host name `tls-server`. After the handshake the client sends one line and the server answers it
/// upper-cased.
@Suite struct TLSOverSimulatedWireTests {
    static let versions: [TLSVersion] = [.tlsv13, .tlsv12]

    /// Starts the upper-casing TLS server on "tls-server" and returns the kernel and a client node.
    static func world(seed: UInt64) throws -> (Kernel, Node) {
        let kernel = Kernel(seed: seed)
        let server = kernel.node("tls-server")
        let context = try TLSFixtures.serverContext()
        _ = try kernel.run("start tls-server") { try await UpperCaseTLSServer.start(on: server, context: context).get() }
        return (kernel, kernel.node("phone"))
    }

    static func exchange(
        _ kernel: Kernel, _ phone: Node, version: TLSVersion = .tlsv13, line: String = "hello tls"
    ) throws -> TLSExchangeResult {
        let context = try TLSFixtures.clientContext(maximumVersion: version)
        return try kernel.run("TLS exchange") {
            try await TLSLineClient.exchange(line, host: "tls-server", context: context, on: phone)
        }
    }

    @Test(arguments: versions)
    func handshakeAndExchangeComplete(version: TLSVersion) throws {
        let (kernel, phone) = try Self.world(seed: 1)
        let result = try Self.exchange(kernel, phone, version: version)
        #expect(result.reply == "HELLO TLS")
        #expect(result.version == version)
        let events = kernel.trace.all
        for role in ["client", "server"] {
            #expect(
                events.contains {
                    $0.event == "tls-handshake-completed" && $0["role"] == role && $0["version"] == version.traceName
                })
        }
        #expect(events.contains { $0.actor == "tls-server" && $0.event == "tls-line-received" && $0["line"] == "hello tls" })
        #expect(events.contains { $0.actor == "phone" && $0.event == "tls-reply-received" && $0["line"] == "HELLO TLS" })
        // The client closed with close_notify and the server answered with its own: no error on either side.
        #expect(!events.contains { $0.event == "connection-error" })
        #expect(events.filter { $0.actor == "net" && $0.event == "close" }.count == 2)
        // Everything, BoringSSL included, ran as jobs of the simulation loop on the driving thread.
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test(arguments: versions)
    func sameSeedSameDigestUnderLatency(version: TLSVersion) throws {
        // Keys, nonces and signatures come from system randomness and differ every run, but their sizes do not
        // (RSA 2048 signatures, the X25519 and X25519MLKEM768 key shares, AEAD records), so byte counts, virtual
        // timings and the trace match. The server's session tickets stay on: the session they encrypt has only
        // fixed-size fields (ticket_age_add is a fixed u32, times are 4-byte integers until 2038). Checked over
        // 300 runs per version: one digest, always 1589/2952 bytes (TLS 1.3) and 315/1641 bytes (TLS 1.2).
        func digest(_ seed: UInt64) throws -> String {
            let (kernel, phone) = try Self.world(seed: seed)
            kernel.setConditions(
                between: "phone", and: "tls-server",
                LinkConditions(latency: .uniform(1_000_000, 20_000_000), bandwidth: 200_000))
            for line in ["one", "two", "three"] {
                _ = try Self.exchange(kernel, phone, version: version, line: line)
            }
            #expect(kernel.loop.violations.isEmpty)
            return kernel.trace.digest
        }
        #expect(try digest(7) == digest(7))
        #expect(try digest(7) != digest(8), "random latency must depend on the seed")
    }

    @Test(arguments: versions)
    func latencyCostsRoundTrips(version: TLSVersion) throws {
        let (kernel, phone) = try Self.world(seed: 1)
        let oneWay = Duration.milliseconds(25)
        let roundTrip = oneWay * 2
        kernel.setConditions(between: "phone", and: "tls-server", LinkConditions(latency: .fixed(oneWay.nanosecondsValue)))
        let result = try Self.exchange(kernel, phone, version: version)
        #expect(result.reply == "HELLO TLS")
        // TCP connect is one round trip; the TLS 1.3 handshake one more (the client is done when the server's
        // Finished arrives), TLS 1.2 two more; the line and its answer another one.
        let handshakeRoundTrips = version == .tlsv13 ? 2 : 3
        #expect(result.handshakeTime >= roundTrip * handshakeRoundTrips)
        #expect(result.handshakeTime < roundTrip * (handshakeRoundTrips + 1))
        #expect(result.replyTime >= result.handshakeTime + roundTrip)
        #expect(result.replyTime < result.handshakeTime + roundTrip * 2)
    }

    @Test func resetAfterHandshakeFailsTheClient() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        kernel.setConditions(between: "phone", and: "tls-server", LinkConditions(latency: .fixed(10_000_000)))
        let context = try TLSFixtures.clientContext()
        let exchange = kernel.spawn("TLS exchange") {
            try await TLSLineClient.exchange("hello tls", host: "tls-server", context: context, on: phone)
        }
        // Right after the client's handshake completes its line is on the wire; reset the connection under it.
        #expect(kernel.drive(until: { $0.actor == "phone" && $0.event == "tls-handshake-completed" }))
        #expect(kernel.network.resetConnections(between: "phone", and: "tls-server") == 1)
        // The reset aborts the client's socket with ECONNRESET, which reaches the pipeline first and so is what the
        // exchange fails with. NIOSSL then sees the channel go inactive without close_notify and also reports
        // NIOSSLError.uncleanShutdown, but the first error wins (see ExchangeOutcome).
        #expect {
            try kernel.wait(for: exchange, timeout: .seconds(5))
        } throws: { ($0 as? IOError)?.errnoCode == ECONNRESET }
        let events = kernel.trace.all
        #expect(events.contains { $0.actor == "net" && $0.event == "reset" })
        #expect(events.contains { $0.actor == "phone" && $0.event == "connection-error" })
        // Both handlers close their channel in errorCaught while the reset is closing it: each end closes once.
        #expect(events.filter { $0.actor == "net" && $0.event == "close" }.map { $0["end"] } == ["phone", "tls-server"])
        // The line was in flight when the connection went: the server never read it.
        #expect(!events.contains { $0.event == "tls-line-received" })
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test func partitionBeforeConnectTimesOut() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        kernel.setPartitioned(between: "phone", and: "tls-server", true)
        let context = try TLSFixtures.clientContext()
        let before = kernel.now
        // Every SYN is lost, so TCP never connects and TLS never starts: the connect's own timeout decides.
        #expect {
            try kernel.run("TLS exchange") {
                try await TLSLineClient.exchange(
                    "hello tls", host: "tls-server", context: context, on: phone,
                    connectTimeout: .seconds(5))
            }
        } throws: { ($0 as? WireError)?.kind == .timedOut }
        #expect(kernel.now - before == .seconds(5))
        #expect(!kernel.trace.all.contains { $0.event == "tls-handshake-completed" })
    }

    @Test func partitionDuringHandshakeHitsTheClientTimeout() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        kernel.setConditions(between: "phone", and: "tls-server", LinkConditions(latency: .fixed(10_000_000)))
        let context = try TLSFixtures.clientContext()
        let before = kernel.now
        let exchange = kernel.spawn("TLS exchange") {
            try await TLSLineClient.exchange(
                "hello tls", host: "tls-server", context: context, on: phone,
                handshakeTimeout: .seconds(3))
        }
        // TCP is up (t = 20 ms) and the ClientHello is in flight; cut the link so the server's answer never comes.
        #expect(kernel.drive(until: { $0.actor == "net" && $0.event == "connected" }))
        let connectedAt = kernel.now
        kernel.setPartitioned(between: "phone", and: "tls-server", true)
        // A partition does not fail a socket that is only waiting to receive, so TCP alone would wait for ever
        // (only the server, whose flight is stuck, gives up after the retransmission timeout): the client's
        // handshake timeout is what ends the attempt.
        #expect {
            try kernel.wait(for: exchange, timeout: .seconds(10))
        } throws: { ($0 as? TLSTestError) == .handshakeTimedOut }
        #expect(connectedAt - before == .milliseconds(20))
        #expect(kernel.now - connectedAt == .seconds(3))
    }

    @Test func untrustedServerCertificateFailsTheHandshake() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        // A client that trusts no CA at all, so the test CA that signed server.pem is unknown to it.
        let distrusting = try TLSFixtures.clientContext(trustRoots: [])
        #expect {
            try kernel.run("TLS exchange, untrusted") {
                try await TLSLineClient.exchange("hello tls", host: "tls-server", context: distrusting, on: phone)
            }
        } throws: { Self.isCertificateVerificationFailure($0) }
        // The client aborts with an alert; the server sees its handshake fail too. Nothing was exchanged.
        let events = kernel.trace.all
        #expect(events.contains { $0.actor == "tls-server" && $0.event == "connection-error" })
        #expect(!events.contains { $0.event == "tls-handshake-completed" || $0.event == "tls-line-received" })

        // The CA is trusted but the name is not one of the certificate's SANs. NIOSSL checks the host name itself
        // once BoringSSL has verified the chain, so this fails with its own error rather than CERTIFICATE_VERIFY_FAILED.
        let trusting = try TLSFixtures.clientContext()
        #expect {
            try kernel.run("TLS exchange, wrong name") {
                try await TLSLineClient.exchange(
                    "hello tls", host: "tls-server", serverHostname: "elsewhere",
                    context: trusting, on: phone)
            }
        } throws: { ($0 as? NIOSSLExtraError) == .failedToValidateHostname }
        #expect(kernel.loop.violations.isEmpty)
    }

    static func isCertificateVerificationFailure(_ error: any Error) -> Bool {
        guard case .handshakeFailed(let boringSSLError)? = error as? NIOSSLError else { return false }
        return String(describing: boringSSLError).contains("CERTIFICATE_VERIFY_FAILED")
    }
}
