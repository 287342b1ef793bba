import Kernel
import NIOCore
import SOCPrint
import TestSupport
import Testing
import Wire

@testable import Sunfire

/// A client whose first line is no SSH identification hears what sshd says ("Invalid SSH identification string.")
/// before the close, instead of a silent drop; the host serves on.
@Suite struct SSHIdentificationTests {
    static let banner = "SSH-2.0-SwiftNIOSSH_1.0\r\n"

    @Test(arguments: [
        ("hello there, this is not SSH\r\n", "Invalid SSH identification string."),
        ("GET / HTTP/1.1\r\nHost: sunfire\r\n\r\n", "Invalid SSH identification string."),
        ("SSH-1.5-OldClient\r\n", "Protocol major versions differ."),
    ])
    func aBadFirstLineGetsSshdsAnswerAndTheHostServesOn(sent: String, answer: String) throws {
        let kernel = Kernel(seed: 5)
        let key = try #require(SimulatedSunfireTests.hostKey)
        _ = try kernel.run("start") { try await Sunfire.start(on: kernel.node("sunfire"), configuration: Sunfire.Configuration(hostKey: key)) }
        let phone = kernel.node("phone")
        let reply = try kernel.run("bad bytes") { try await RawExchange.send(Array(sent.utf8), to: "sunfire", port: 22, from: phone) }
        #expect(String(decoding: reply, as: UTF8.self) == Self.banner + answer + "\r\n")
        #expect(kernel.trace.all.contains { $0.event == "ssh-disconnected" && $0["reason"] == answer })
        let ssh = SSHConnectivity(host: "sunfire", user: "demo", password: "demo-password", node: phone)
        let listing = try kernel.run("good login") { () async throws -> String in
            let login = await ssh.connect()
            #expect(login.authorised)
            let output = await ssh.runCommand("echo still serving")
            await ssh.disconnect()
            return output
        }
        #expect(listing == "still serving\n")
    }

    @Test func theFirstLineIsJudgedAsSshdJudgesIt() {
        func verdict(_ text: String) -> SSHIdentification { SSHIdentification(ByteBuffer(string: text).readableBytesView) }
        #expect(verdict("SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n") == .accepted)
        #expect(verdict("SSH-2.0-libssh2_1.11.0\n") == .accepted)
        #expect(verdict("SSH-1.99-dual\r\n") == .accepted)
        #expect(verdict("SSH-2.0-OpenSSH") == .needMoreBytes)
        #expect(verdict("") == .needMoreBytes)
        #expect(verdict("SSH-1.5-old\r\n") == .refused("Protocol major versions differ."))
        #expect(verdict("SSH-3.0-future\r\n") == .refused("Protocol major versions differ."))
        for bad in [
            "hello\r\n", "\r\n", "SSH-2.0-\r\n", "SSH-2.0\r\n", "SSH-x.0-a\r\n", "SSH-2.0-a\rb\n", "SSH-2.0-a\0b\r\n",
            String(repeating: "a", count: 255), "SSH-2.0-" + String(repeating: "a", count: 250) + "\r\n",
        ] {
            #expect(verdict(bad) == .refused("Invalid SSH identification string."), "\(bad.debugDescription)")
        }
    }
}
