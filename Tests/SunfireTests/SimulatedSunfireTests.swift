import Kernel
import PrintDocuments
import SFTP
import SOCPrint
import Sunfire
import Testing
import Wire

/// Sunfire on the simulated wire, driven by the SOC Print client's connectivity: the same run gives the same trace,
/// and hostile clients lose only their own session.
@Suite struct SimulatedSunfireTests {
    static let hostKey = try? OpenSSHHostKey(file: LiveSunfire.fixture("sunfire/ssh_host_ed25519_key"))

    /// Starts Sunfire, runs `body` from the phone, returns the trace digest.
    static func world(seed: UInt64 = 7, _ body: @escaping @Sendable (SSHConnectivity, Sunfire) async throws -> Void) throws -> String {
        let kernel = Kernel(seed: seed)
        let key = try #require(hostKey)
        let sunfire = try kernel.run("start") {
            try await Sunfire.start(on: kernel.node("sunfire"), configuration: Sunfire.Configuration(hostKey: key))
        }
        let phone = SSHConnectivity(host: "sunfire", user: "demo", password: "demo-password", node: kernel.node("phone"))
        try kernel.run("phone", timeout: .seconds(600)) {
            let login = await phone.connect()
            #expect(login.authorised && login.failure == nil)
            try await body(phone, sunfire)
            await phone.disconnect()
        }
        kernel.advance(by: .seconds(1))
        return kernel.trace.digest
    }

    @Test func thePrintFlowGivesTheSameTraceTwice() throws {
        let flow: @Sendable (SSHConnectivity, Sunfire) async throws -> Void = { phone, _ in
            let made = try await phone.execute("mkdir socPrint/")
            #expect(made.exitStatus == 0)
            #expect(
                await phone.upload(.bytes(OfficeDocument.generate(.docx, pages: 5, title: "Essay")), to: "socPrint/source.docx", transport: .sftp))
            #expect(await phone.upload(.bytes(StandInJar.nupPDF.bytes()), to: "socPrint/nup_pdf.jar", transport: .scp))
            #expect(await phone.upload(.bytes(StandInJar.docsToPDF.bytes()), to: "socPrint/docs-to-pdf-converter-1.7.jar", transport: .scp))
            #expect(await phone.runCommand("java -jar socPrint/docs-to-pdf-converter-1.7.jar -i socPrint/source.docx -o socPrint/source.pdf") == "")
            _ = await phone.runCommand("java -jar socPrint/nup_pdf.jar socPrint/source.pdf socPrint/formatted.pdf 4")
            #expect(await phone.runCommand(#"pdftops socPrint/formatted.pdf socPrint/"Essay.ps""#) == "")
            #expect(await phone.runCommand(#"lpr -P psts socPrint/"Essay.ps""#) == "")
            #expect(await phone.runCommand("lpq -P psts").contains("Essay.ps"))
        }
        let first = try Self.world(flow)
        #expect(try Self.world(flow) == first)
    }

    @Test func scpProtocolViolationsAreAnsweredAndTheHostCarriesOn() throws {
        _ = try Self.world { phone, _ in
            let garbage = try await phone.execute("scp -t socPrint/x", input: Array("Xnonsense\n".utf8))
            #expect(garbage.stdout == "\0\u{2}scp: protocol error: expected a control line starting with C, D, E or T, found byte 0x58\n")
            #expect(garbage.exitStatus == 1)
            let escape = try await phone.execute("scp -t .", input: Array("C0644 4 ../escape\n".utf8))
            #expect(escape.stdout.contains("scp: protocol error: unexpected filename: ../escape"))
            // Digits only, as OpenSSH's sink checks them: a sign in the mode or the size is a protocol error.
            for line in ["C+644 4 signed.bin\n", "C0644 +4 signed.bin\n"] {
                let signed = try await phone.execute("scp -t .", input: Array(line.utf8))
                #expect(signed.stdout.contains("scp: protocol error: expected 'C<mode> <size> <name>'"), "\(line)")
                #expect(signed.exitStatus == 1)
            }
            let short = try await phone.execute("scp -t short.bin", input: Array("C0644 10 short.bin\nabc".utf8))
            #expect(short.exitStatus == 1, "the copy ended inside the file")
            let listing = try await phone.execute("ls -l short.bin")
            #expect(listing.stdout.contains(" 3 short.bin"), "the partial file stays")
            let alive = try await phone.execute("true")
            #expect(alive.exitStatus == 0)
        }
    }

    @Test func malformedSFTPPacketsEndOnlyThatSession() throws {
        _ = try Self.world { phone, _ in
            var stream = SFTPMessage.initialize(version: 3, extensions: []).encoded
            stream += [0x7F, 0xFF, 0xFF, 0xFF, 3]  // a packet claiming 2 GiB
            let result = try await phone.execute("sftp", input: stream, subsystem: true)
            #expect(result.exitStatus == 1)
            guard case .version(3, _)? = try? SFTPPacketDecoder.decode(packet: Array(result.stdout.utf8)) else {
                Issue.record("the server answered INIT before refusing the oversized packet")
                return
            }
            var traversal = SFTPMessage.initialize(version: 3, extensions: []).encoded
            SFTPMessage.open(id: 1, path: "../alice/notes", flags: [.write, .create], attributes: SFTPFileAttributes()).encode(into: &traversal)
            let refused = try await phone.execute("sftp", input: traversal, subsystem: true)
            #expect(refused.stdout.utf8.count > 9)
            let alive = try await phone.execute("true")
            #expect(alive.exitStatus == 0, "the host keeps serving")
        }
    }
}
