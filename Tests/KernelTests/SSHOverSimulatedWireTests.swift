import Kernel
import NIOCore
import NIOSSH
import Testing
import Wire

#if canImport(Glibc)
    import Glibc
#endif

/// Proof (c): an SSH connection with swift-nio-ssh on both sides — key exchange, ed25519 host key check, password
/// authentication, a session channel and an exec request — runs on the simulated wire.
///
/// The server "sunfire" runs a toy shell (`echo` works, anything else is "not found"); the client "phone" knows the
/// server's host key and logs in as `demo`.
@Suite struct SSHOverSimulatedWireTests {
    /// Starts the SSH server on "sunfire" and returns the kernel and a client node.
    static func world(seed: UInt64) throws -> (Kernel, Node) {
        let kernel = Kernel(seed: seed)
        let server = kernel.node("sunfire")
        _ = try kernel.run("start sunfire") { try await ExecSSHServer.start(on: server).get() }
        return (kernel, kernel.node("phone"))
    }

    static func exec(
        _ kernel: Kernel, _ phone: Node, _ command: String, password: String = SSHFixtures.password
    ) throws -> SSHExecResult {
        try kernel.run("ssh \(command)") {
            try await SSHExecClient.exec(command, host: "sunfire", password: password, on: phone)
        }
    }

    @Test func execEchoReturnsHelloAndExitZero() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        #expect(try Self.exec(kernel, phone, "echo hello") == SSHExecResult(stdout: "hello\n", stderr: "", exitStatus: 0))
        let events = kernel.trace.all
        #expect(events.contains { $0.actor == "phone" && $0.event == "ssh-host-key" && $0["known"] == "true" })
        #expect(events.contains { $0.actor == "sunfire" && $0.event == "ssh-auth" && $0["user"] == "demo" && $0["outcome"] == "success" })
        #expect(events.contains { $0.actor == "sunfire" && $0.event == "ssh-exec" && $0["command"] == "echo hello" })
        #expect(events.contains { $0.actor == "phone" && $0.event == "ssh-exit-status" && $0["status"] == "0" })
        #expect(!events.contains { $0.event == "connection-error" })
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test func unknownCommandWritesStderrAndExits127() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        let result = try Self.exec(kernel, phone, "frobnicate --now")
        #expect(result == SSHExecResult(stdout: "", stderr: "sh: 1: frobnicate: not found\n", exitStatus: 127))
        #expect(kernel.trace.all.contains { $0.actor == "phone" && $0.event == "ssh-exit-status" && $0["status"] == "127" })
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test func wrongPasswordFailsAuthentication() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        // The server answers USERAUTH_FAILURE; NIOSSH asks the client's delegate for another method, it has none
        // left and fails the request, which NIOSSH turns into an error on the connection.
        #expect {
            try Self.exec(kernel, phone, "echo hello", password: "guess")
        } throws: { ($0 as? SSHTestError) == .authenticationFailed(user: "demo") }
        let events = kernel.trace.all
        #expect(events.contains { $0.actor == "sunfire" && $0.event == "ssh-auth" && $0["outcome"] == "failure" })
        #expect(events.contains { $0.actor == "phone" && $0.event == "ssh-auth-gave-up" })
        #expect(!events.contains { $0.event == "ssh-exec" })
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test func unknownHostKeyIsRejected() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        #expect {
            try kernel.run("ssh to an impostor") {
                try await SSHExecClient.exec(
                    "echo hello", host: "sunfire",
                    expectedHostKey: SSHFixtures.otherHostKey.publicKey, on: phone)
            }
        } throws: { ($0 as? SSHTestError) == .unknownHostKey }
        // The password is never sent to a server whose key is wrong.
        #expect(!kernel.trace.all.contains { $0.event == "ssh-auth" })
    }

    @Test func sameSeedSameDigestUnderLatency() throws {
        // Key-exchange keys, nonces and padding bytes are random, but every size is fixed (curve25519 shares,
        // ed25519 signatures, AES-GCM, padding lengths from the block size), so the trace depends on the seed only.
        func digest(_ seed: UInt64) throws -> String {
            let (kernel, phone) = try Self.world(seed: seed)
            kernel.setConditions(
                between: "phone", and: "sunfire",
                LinkConditions(latency: .uniform(1_000_000, 20_000_000), bandwidth: 200_000))
            _ = try Self.exec(kernel, phone, "echo hello")
            _ = try Self.exec(kernel, phone, "ls")
            #expect(throws: SSHTestError.self) { try Self.exec(kernel, phone, "echo hello", password: "guess") }
            #expect(kernel.loop.violations.isEmpty)
            return kernel.trace.digest
        }
        #expect(try digest(7) == digest(7))
        #expect(try digest(7) != digest(8), "random latency must depend on the seed")
    }

    @Test func latencyCostsRoundTrips() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        let oneWay = Duration.milliseconds(25)
        let roundTrip = oneWay * 2
        kernel.setConditions(between: "phone", and: "sunfire", LinkConditions(latency: .fixed(oneWay.nanosecondsValue)))
        let start = kernel.now
        #expect(try Self.exec(kernel, phone, "echo hello").stdout == "hello\n")
        let elapsed = kernel.now - start
        // Sequential round trips at the least: TCP connect, key exchange, user authentication, channel open, exec.
        // (NIOSSH 0.15 takes 7 in all: the key exchange and the auth service request cost one more each.)
        #expect(elapsed >= roundTrip * 5)
        #expect(elapsed < roundTrip * 8)
        // Without latency the same exchange takes no virtual time at all.
        let (idle, idlePhone) = try Self.world(seed: 1)
        let idleStart = idle.now
        _ = try Self.exec(idle, idlePhone, "echo hello")
        #expect(idle.now - idleStart == .zero)
    }

    @Test func resetMidSessionFailsTheExec() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        kernel.setConditions(between: "phone", and: "sunfire", LinkConditions(latency: .fixed(10_000_000)))
        let exec = kernel.spawn("ssh echo hello") {
            try await SSHExecClient.exec("echo hello", host: "sunfire", on: phone)
        }
        // Logged in, session channel open, exec request on the wire: reset the connection under it.
        #expect(kernel.drive(until: { $0.actor == "phone" && $0.event == "ssh-exec-request" }))
        #expect(kernel.network.resetConnections(between: "phone", and: "sunfire") == 1)
        // The reset aborts the client's socket with ECONNRESET; that error reaches the connection's pipeline before
        // NIOSSH closes the session channel, so it is what the exec fails with (not "closed without exit status").
        #expect {
            try kernel.wait(for: exec, timeout: .seconds(5))
        } throws: { ($0 as? IOError)?.errnoCode == ECONNRESET }
        let events = kernel.trace.all
        #expect(events.contains { $0.actor == "net" && $0.event == "reset" })
        #expect(!events.contains { $0.event == "ssh-exec" })
        // Both handlers close their channel in errorCaught while the reset is closing it: each end closes once.
        #expect(events.filter { $0.actor == "net" && $0.event == "close" }.map { $0["end"] } == ["phone", "sunfire"])
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test func partitionMakesTheConnectTimeOut() throws {
        let (kernel, phone) = try Self.world(seed: 1)
        kernel.setPartitioned(between: "phone", and: "sunfire", true)
        let before = kernel.now
        #expect {
            try kernel.run("ssh during partition") {
                try await SSHExecClient.exec("echo hello", host: "sunfire", on: phone, connectTimeout: .seconds(5))
            }
        } throws: { ($0 as? WireError)?.kind == .timedOut }
        #expect(kernel.now - before == .seconds(5))
        #expect(!kernel.trace.all.contains { $0.event == "ssh-auth" })
    }
}
